// The static inputs of a compiled decode graph, which set the host time before its replay
// (price_step.cpp, graph_call_host_per_input). What each is, on one lease (h200-chost14's second
// call, chost14_law.py / hostreplay_points.py): dynamo's transformed bytecode gathers each
// parameter and cache tensor from the module tree and its guards check them (1.2 us an input of
// the guards' 3.6), AOT's wrappers pass them on, and the cudagraph tree compares each static
// input's data pointer and copies the non-static ones before CUDAGraph.replay.
#include "compiled_graph_inputs.hpp"

namespace perfmodel {

int64_t compiled_graph_inputs(const LayerGraph& g, const Model& m) {
  using Kind = GraphNode::Kind;
  const int64_t norm_tensors = m.norm == NormKind::layernorm ? 2 : 1;  // weight (+ bias)
  int64_t n = 0;
  for (const GraphNode& node : g.nodes) {
    int64_t per = 0;
    switch (node.kind) {
      case Kind::embed:
      case Kind::position_embed: per = 1; break;  // the table
      case Kind::norm: per = norm_tensors; break;
      case Kind::linear:
        if (node.logits && m.tie_word_embeddings) break;  // the embedding's own tensor
        per = static_cast<int64_t>(node.parts.size()) * (node.bias ? 2 : 1);
        break;
      case Kind::kv_write: per = 3; break;  // K, V and one more a layer (chost14_counts.py)
      default: break;
    }
    n += per * node.count;
  }
  if (m.position == PositionKind::rope) n += 1;  // rotary_emb.inv_freq, a buffer
  return n;
}

}  // namespace perfmodel
