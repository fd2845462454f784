// Family `deepseek`: DeepSeek-V2/V3 (and Kimi-K2, the V3 layout): multi-head latent attention
// (DeepSeek-V2 paper, arXiv:2405.04434, section 2.1), the MoE MLP with shared experts
// (DeepSeekMoE, section 2.2; V3 paper arXiv:2412.19437 section 2.1.2: sigmoid scores,
// group-limited top-k) and dense leading layers (first_k_dense_replace). Layer by layer as HF
// modeling_deepseek_v3.py: q = q_b_proj(q_a_layernorm(q_a_proj(x))) (or q_proj(x) without
// q_lora_rank); [c_KV | k_rope] = kv_a_proj_with_mqa(x); c_KV = kv_a_layernorm(c_KV); keys and
// values come from kv_b_proj(c_KV) (expanded) or are absorbed into the query and the output
// (decode in serving engines); o_proj from heads x v_head_dim.
#include <algorithm>

#include "decoder.hpp"
#include "moe_block.hpp"

namespace perfmodel {

namespace {

using Kind = GraphNode::Kind;

GraphNode make(Kind kind, std::string name, int64_t count) { return decoder::node(kind, std::move(name), count); }

GraphNode linear(std::string name, std::vector<GraphNode::Part> parts, int64_t in, int64_t count) {
  GraphNode n = decoder::linear(std::move(name), std::move(parts), in, false, count);
  n.framework_views = 1;
  return n;
}

GraphNode latent_norm(std::string name, int64_t width, int64_t count) {
  GraphNode n = make(Kind::norm, std::move(name), count);
  n.width = width;
  return n;
}

std::vector<GraphNode>::iterator find(LayerGraph& g, const std::string& name) {
  return std::find_if(g.nodes.begin(), g.nodes.end(), [&](const GraphNode& n) { return n.name == name; });
}

LayerGraph graph(const Model& m, const Workload& w) {
  const MlaSpec& a = m.mla;
  const int64_t L = m.layers, H = m.heads;
  LayerGraph g = decoder::graph(m, w, {});
  // The projections in place of q/k/v. With q_lora_rank, vLLM runs q_a_proj and
  // kv_a_proj_with_mqa as one GEMM (fused_qkv_a_proj); HF as two nn.Linear.
  std::vector<GraphNode> proj;
  const int64_t q_out = H * a.qk_head_dim();
  if (a.q_lora_rank > 0) {
    proj.push_back(linear("qkv_a_proj", {{"q_a_proj", a.q_lora_rank}, {"kv_a_proj_with_mqa", a.cache_width()}},
                          m.hidden, L));
    proj.push_back(latent_norm("q_a_layernorm", a.q_lora_rank, L));
    proj.push_back(linear("q_b_proj", {{"q_b_proj", q_out}}, a.q_lora_rank, L));
  } else {
    proj.push_back(linear("q_kv_a_proj", {{"q_proj", q_out}, {"kv_a_proj_with_mqa", a.cache_width()}}, m.hidden, L));
  }
  proj.push_back(latent_norm("kv_a_layernorm", a.kv_lora_rank, L));
  auto at = g.nodes.erase(find(g, "qkv_proj"));
  g.nodes.insert(at, proj.begin(), proj.end());
  // The latent's up-projection around the attention (expanded kv_b_proj or absorbed W_UK/W_UV:
  // the profile picks).
  GraphNode up = make(Kind::mla_up, "kv_b_proj", L);
  g.nodes.insert(find(g, "attention"), up);
  up.before_attention = false;
  up.name = "v_up";
  g.nodes.insert(find(g, "attention") + 1, up);
  find(g, "o_proj")->in = H * a.v_head_dim;
  moe::splice_mlp(g, m);
  return g;
}

double attention_parameters(const Model& m) {
  const MlaSpec& a = m.mla;
  const double d = static_cast<double>(m.hidden), H = static_cast<double>(m.heads);
  const double q_out = H * static_cast<double>(a.qk_head_dim());
  const double ql = static_cast<double>(a.q_lora_rank), r = static_cast<double>(a.kv_lora_rank);
  const double q = a.q_lora_rank > 0 ? d * ql + ql + ql * q_out : d * q_out;  // q_a, its norm, q_b
  const double kv = d * static_cast<double>(a.cache_width()) + r +           // kv_a_proj_with_mqa, its norm
                    r * H * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim);  // kv_b_proj
  const double o = H * static_cast<double>(a.v_head_dim) * d;
  return q + kv + o;
}

double count(const Model& m, double routed) {
  const double d = static_cast<double>(m.hidden);
  const double per_layer = attention_parameters(m) + 2.0 * d;  // + input and post-attention RMSNorm
  const double embeddings = static_cast<double>(m.vocab) * d * (m.tie_word_embeddings ? 1 : 2);
  return embeddings + d + static_cast<double>(m.layers) * per_layer +
         static_cast<double>(m.dense_layers()) * moe::gated_mlp_parameters(m, m.intermediate) +
         static_cast<double>(m.moe_layers()) * moe::mlp_parameters(m, routed);
}

double parameters(const Model& m) { return count(m, static_cast<double>(m.moe.experts)); }
double active_parameters(const Model& m) { return count(m, static_cast<double>(m.moe.top_k)); }

LayerGraph attention_graph(const Model& m, const Workload&) {
  return {{make(Kind::attention, "attention", m.layers)}};
}

// The cache holds the latent and the shared rope key, no K/V pair (reference B.2, B.3).
double kv_bytes_per_token(const Model& m, DType kv) {
  return static_cast<double>(m.mla.cache_width()) * static_cast<double>(m.layers) * bytes_of(kv);
}

double kv_bytes_per_sequence(const Model& m, DType kv, int64_t ctx) {
  return kv_bytes_per_token(m, kv) * static_cast<double>(ctx);
}

}  // namespace

const ModelFamily& deepseek_family() {
  static const ModelFamily f{.name = "deepseek",
                             .architectures = {"deepseek_v2", "deepseek_v3"},
                             .graph = graph,
                             .context_graph = attention_graph,
                             .parameters = parameters,
                             .active_parameters = active_parameters,
                             .kv_bytes_per_token = kv_bytes_per_token,
                             .kv_bytes_per_sequence = kv_bytes_per_sequence};
  return f;
}

}  // namespace perfmodel
