// Family `moe`: the Llama-like decoder with a mixture-of-experts MLP: Mixtral (8 experts of
// intermediate_size, top-2; modeling_mixtral.py), Qwen2-MoE (routed experts plus one gated
// shared expert, q/k/v bias; modeling_qwen2_moe.py) and Qwen3-MoE (routed experts only, RMSNorm
// on each head's q and k; modeling_qwen3_moe.py).
#include <algorithm>

#include "decoder.hpp"
#include "moe_block.hpp"

namespace perfmodel {

namespace {

GraphNode head_norm(const std::string& name, int64_t heads, const Model& m) {
  GraphNode n;
  n.kind = GraphNode::Kind::norm;
  n.name = name;
  n.count = m.layers;
  n.width = m.head_dim;
  n.rows_per_token = heads;
  return n;
}

LayerGraph graph(const Model& m, const Workload& w) {
  LayerGraph g = decoder::graph(m, w, {});
  if (m.qk_norm) {  // Qwen3: q_norm and k_norm over head_dim, before rotary
    auto at = std::find_if(g.nodes.begin(), g.nodes.end(),
                           [](const GraphNode& n) { return n.kind == GraphNode::Kind::rotary; });
    at = g.nodes.insert(at, head_norm("q_norm", m.heads, m));
    g.nodes.insert(at + 1, head_norm("k_norm", m.kv_heads, m));
  }
  moe::splice_mlp(g, m);
  return g;
}

// The decoder's count with the dense MLP of every layer replaced by the MoE layers' block
// counting `routed` experts (and Qwen3's q/k norm weights).
double count(const Model& m, double routed) {
  const double qk_norms = m.qk_norm ? 2.0 * static_cast<double>(m.head_dim) : 0.0;
  return decoder::parameters(m) - static_cast<double>(m.layers) * moe::gated_mlp_parameters(m, m.intermediate) +
         static_cast<double>(m.dense_layers()) * moe::gated_mlp_parameters(m, m.intermediate) +
         static_cast<double>(m.moe_layers()) * moe::mlp_parameters(m, routed) +
         static_cast<double>(m.layers) * qk_norms;
}

double parameters(const Model& m) { return count(m, static_cast<double>(m.moe.experts)); }
double active_parameters(const Model& m) { return count(m, static_cast<double>(m.moe.top_k)); }

}  // namespace

const ModelFamily& moe_family() {
  static const ModelFamily f{.name = "moe",
                             .architectures = {"mixtral", "qwen2_moe", "qwen3_moe"},
                             .graph = graph,
                             .context_graph = decoder::attention_graph,
                             .parameters = parameters,
                             .active_parameters = active_parameters,
                             .kv_bytes_per_token = decoder::kv_bytes_per_token,
                             .kv_bytes_per_sequence = decoder::kv_bytes_per_sequence};
  return f;
}

}  // namespace perfmodel
