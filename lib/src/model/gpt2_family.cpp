// Family `gpt2`: GPT-2 (and nanoGPT's baby GPT): learned absolute positions, LayerNorm with
// biases, a plain GELU MLP, biases on every linear, multi-head attention.
#include "decoder.hpp"

namespace perfmodel {

namespace {
LayerGraph graph(const Model& m, const Workload& w) { return decoder::graph(m, w, {}); }
}  // namespace

const ModelFamily& gpt2_family() {
  static const ModelFamily f = decoder::dense_family("gpt2", {"gpt2"}, graph);
  return f;
}

}  // namespace perfmodel
