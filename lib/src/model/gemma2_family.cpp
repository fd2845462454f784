// Family `gemma2`: Gemma-2's decoder: sandwich norms (a norm before and after attention and the
// MLP, reference B.1), GeGLU, head_dim 256, and sliding-window attention on every other layer.
#include "decoder.hpp"

namespace perfmodel {

namespace {
LayerGraph graph(const Model& m, const Workload& w) { return decoder::graph(m, w, {.sandwich_norms = true}); }
}  // namespace

const ModelFamily& gemma2_family() {
  static const ModelFamily f = decoder::dense_family("gemma2", {"gemma2"}, graph);
  return f;
}

}  // namespace perfmodel
