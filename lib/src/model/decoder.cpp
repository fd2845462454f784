#include "decoder.hpp"

#include <algorithm>
#include <utility>

namespace perfmodel::decoder {

using Kind = GraphNode::Kind;

GraphNode node(Kind kind, std::string name, int64_t count) {
  GraphNode n;
  n.kind = kind;
  n.name = std::move(name);
  n.count = count;
  return n;
}

GraphNode norm(std::string name, int64_t count, bool after_residual) {
  GraphNode n = node(Kind::norm, std::move(name), count);
  n.after_residual = after_residual;
  return n;
}

GraphNode linear(std::string name, std::vector<GraphNode::Part> parts, int64_t in, bool bias, int64_t count) {
  GraphNode n = node(Kind::linear, std::move(name), count);
  n.parts = std::move(parts);
  n.in = in;
  n.bias = bias;
  return n;
}

GraphNode head_norm(std::string name, int64_t heads, const Model& m) {
  GraphNode n = node(Kind::norm, std::move(name), m.layers);
  n.width = m.head_dim;
  n.rows_per_token = heads;
  return n;
}

namespace {

// Tensor parallelism all-reduces its output (layer_graph.hpp).
GraphNode row_parallel(GraphNode n) {
  n.row_parallel = true;
  return n;
}

}  // namespace

LayerGraph attention_graph(const Model& m, const Workload&) {
  return {{node(Kind::attention, "attention", m.layers)}};
}

LayerGraph graph(const Model& m, const Workload& w, const Options& o) {
  const int64_t L = m.layers;
  LayerGraph g;
  auto add = [&](GraphNode n) { g.nodes.push_back(std::move(n)); };
  add(node(Kind::embed, "embed_tokens", 1));
  if (m.position == PositionKind::learned) add(node(Kind::position_embed, "embed_positions", 1));

  // Attention block. The first layer's norm has no residual to add; the difference is one
  // tensor read and write and is ignored (every layer is priced alike).
  add(norm("input_norm", L, true));
  GraphNode qkv = linear("qkv_proj", {{"q_proj", m.q_dim()}, {"k_proj", m.kv_dim()}, {"v_proj", m.kv_dim()}},
                         m.hidden, m.qkv_bias, L);
  qkv.framework_views = 2;  // .view() and .transpose(1, 2) of each
  add(qkv);
  if (m.qk_norm) {  // Qwen3 (modeling_qwen3.py, modeling_qwen3_moe.py): RMSNorm of each head's q and k, before rotary
    add(head_norm("q_norm", m.heads, m));
    add(head_norm("k_norm", m.kv_heads, m));
  }
  if (m.position == PositionKind::rope) add(node(Kind::rotary, "rotary", L));
  add(node(Kind::kv_write, "kv_write", L));
  for (GraphNode& a : attention_graph(m, w).nodes) add(a);
  add(row_parallel(linear("o_proj", {{"o_proj", m.hidden}}, m.q_dim(), m.o_bias, L)));
  if (o.sandwich_norms) add(norm("post_attn_norm2", L, false));
  add(node(Kind::residual_add, "residual_add_attn", L));

  // MLP block.
  add(norm("post_attn_norm", L, true));
  GraphNode act = node(Kind::activation, m.gated_mlp ? "act_mul" : "act", L);
  act.gated = m.gated_mlp;
  if (m.gated_mlp) {
    add(linear("gate_up_proj", {{"gate_proj", m.intermediate}, {"up_proj", m.intermediate}}, m.hidden, m.mlp_bias, L));
    add(act);
    add(row_parallel(linear("down_proj", {{"down_proj", m.hidden}}, m.intermediate, m.mlp_bias, L)));
  } else {
    add(linear("fc_in", {{"fc_in", m.intermediate}}, m.hidden, m.mlp_bias, L));
    add(act);
    add(row_parallel(linear("fc_out", {{"fc_out", m.hidden}}, m.intermediate, m.mlp_bias, L)));
  }
  if (o.sandwich_norms) add(norm("post_mlp_norm", L, false));
  add(node(Kind::residual_add, "residual_add_mlp", L));

  // The last layer's residual add goes into the final norm.
  add(norm("final_norm", 1, true));
  GraphNode head = linear("lm_head", {{"lm_head", m.vocab}}, m.hidden, false, 1);
  head.logits = true;
  head.framework_views = 1;  // hidden_states[:, -1:, :]
  add(head);
  return g;
}

double parameters(const Model& m) {
  const double d = static_cast<double>(m.hidden);
  const double attn = d * m.q_dim() + 2.0 * d * m.kv_dim() + static_cast<double>(m.q_dim()) * d;
  const double mlp = (m.gated_mlp ? 3.0 : 2.0) * d * m.intermediate;
  double biases = 0;
  if (m.qkv_bias) biases += m.q_dim() + 2.0 * m.kv_dim();
  if (m.o_bias) biases += d;
  if (m.mlp_bias) biases += (m.gated_mlp ? 2.0 : 1.0) * m.intermediate + d;
  // LayerNorm carries a bias next to its weight.
  const double norm_params = (m.norm == NormKind::layernorm ? 2.0 : 1.0) * d;
  // Qwen3's q_norm and k_norm: one RMSNorm weight of head_dim each per layer (shared by the heads).
  const double qk_norms = m.qk_norm ? 2.0 * static_cast<double>(m.head_dim) : 0.0;
  const double per_layer = attn + mlp + biases + m.norms_per_layer * norm_params + qk_norms;
  const double embeddings = static_cast<double>(m.vocab) * d * (m.tie_word_embeddings ? 1 : 2);
  const double positions = m.position == PositionKind::learned ? static_cast<double>(m.max_positions) * d : 0;
  return embeddings + positions + m.layers * per_layer + norm_params;
}

double kv_bytes_per_token(const Model& m, DType kv) {
  return 2.0 * static_cast<double>(m.layers) * static_cast<double>(m.kv_dim()) * bytes_of(kv);
}

double kv_bytes_per_sequence(const Model& m, DType kv, int64_t ctx) {
  double tokens = static_cast<double>(m.layers) * static_cast<double>(ctx);
  if (m.sliding_window > 0) {
    // Local layers (all, or every other one starting with the first) hold at most the window.
    const int64_t local = m.window_pattern == WindowPattern::all ? m.layers : (m.layers + 1) / 2;
    const double held = static_cast<double>(std::min(ctx, m.sliding_window));
    tokens = static_cast<double>(local) * held + static_cast<double>(m.layers - local) * static_cast<double>(ctx);
  }
  return 2.0 * tokens * static_cast<double>(m.kv_dim()) * bytes_of(kv);
}

ModelFamily dense_family(std::string_view name, std::vector<std::string_view> architectures,
                         LayerGraph (*graph)(const Model& m, const Workload& w)) {
  return {.name = name,
          .architectures = std::move(architectures),
          .graph = graph,
          .context_graph = attention_graph,
          .parameters = parameters,
          .kv_bytes_per_token = kv_bytes_per_token,
          .kv_bytes_per_sequence = kv_bytes_per_sequence};
}

}  // namespace perfmodel::decoder
