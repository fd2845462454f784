#pragma once
// The pre-norm decoder-only transformer the dense families share (Llama, Mistral, Qwen2/3,
// Gemma, GPT-2; Gemma-2 adds sandwich norms): its layer graph, parameter count and KV formulas.
#include "perfmodel/family.hpp"

namespace perfmodel::decoder {

struct Options {
  // Gemma-2: a norm after attention and after the MLP, before each residual add (reference B.1:
  // pre/post attention, pre/post feed-forward).
  bool sandwich_norms = false;
};

// Node makers the families share.
GraphNode node(GraphNode::Kind kind, std::string name, int64_t count);
GraphNode norm(std::string name, int64_t count, bool after_residual);
GraphNode linear(std::string name, std::vector<GraphNode::Part> parts, int64_t in, bool bias, int64_t count);
// A norm over each head's head_dim features (Qwen3's q_norm / k_norm): `heads` rows per token.
GraphNode head_norm(std::string name, int64_t heads, const Model& m);

LayerGraph graph(const Model& m, const Workload& w, const Options& o);
// The attention nodes alone (the only ones whose cost depends on the context in decode).
LayerGraph attention_graph(const Model& m, const Workload& w);
// Reference B.3's Llama-like count, plus biases, LayerNorm biases, learned positions and Qwen3's
// q/k norm weights.
double parameters(const Model& m);
// 2 (K and V) x layers x kv heads x head_dim x bytes (reference B.3).
double kv_bytes_per_token(const Model& m, DType kv);
// Sliding-window layers hold at most the window.
double kv_bytes_per_sequence(const Model& m, DType kv, int64_t ctx);

// A dense family on this decoder: its own layer graph, the decoder's context graph, parameter count
// and KV formulas.
ModelFamily dense_family(std::string_view name, std::vector<std::string_view> architectures,
                         LayerGraph (*graph)(const Model& m, const Workload& w));

}  // namespace perfmodel::decoder
