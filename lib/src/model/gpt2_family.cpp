// Family `gpt2`: GPT-2 (and nanoGPT's baby GPT): learned absolute positions, LayerNorm with
// biases, a plain GELU MLP, biases on every linear, multi-head attention.
#include "decoder.hpp"

namespace perfmodel {

namespace {
LayerGraph graph(const Model& m, const Workload& w) { return decoder::graph(m, w, {}); }
}  // namespace

const ModelFamily& gpt2_family() {
  static const ModelFamily f{.name = "gpt2",
                             .architectures = {"gpt2"},
                             .graph = graph,
                             .context_graph = decoder::attention_graph,
                             .parameters = decoder::parameters,
                             .kv_bytes_per_token = decoder::kv_bytes_per_token,
                             .kv_bytes_per_sequence = decoder::kv_bytes_per_sequence};
  return f;
}

}  // namespace perfmodel
