// Family `moe`: the Llama-like decoder with a mixture-of-experts MLP: Mixtral (8 experts of
// intermediate_size, top-2; modeling_mixtral.py), Qwen2-MoE (routed experts plus one gated
// shared expert, q/k/v bias; modeling_qwen2_moe.py) and Qwen3-MoE (routed experts only, RMSNorm
// on each head's q and k; modeling_qwen3_moe.py).
#include "decoder.hpp"
#include "moe_block.hpp"

namespace perfmodel {

namespace {

LayerGraph graph(const Model& m, const Workload& w) {
  LayerGraph g = decoder::graph(m, w, {});  // with Qwen3's q/k norms (decoder.cpp)
  moe::splice_mlp(g, m);
  return g;
}

// The decoder's count (Qwen3's q/k norm weights included) with the dense MLP of every layer
// replaced by the MoE layers' block counting `routed` experts.
double count(const Model& m, double routed) {
  return decoder::parameters(m) - static_cast<double>(m.layers) * moe::gated_mlp_parameters(m, m.intermediate) +
         static_cast<double>(m.dense_layers()) * moe::gated_mlp_parameters(m, m.intermediate) +
         static_cast<double>(m.moe_layers()) * moe::mlp_parameters(m, routed);
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
