// Family `llama`: the pre-norm decoder with RMSNorm, rotary positions and a gated MLP (SwiGLU or
// GeGLU), grouped-query attention, optional sliding windows on every layer (Mistral) and q/k/v
// biases (Qwen2). Llama 2/3, Mistral, Qwen2/2.5/3, Gemma, TinyLlama.
#include "decoder.hpp"

namespace perfmodel {

namespace {
LayerGraph graph(const Model& m, const Workload& w) { return decoder::graph(m, w, {}); }
}  // namespace

const ModelFamily& llama_family() {
  static const ModelFamily f = decoder::dense_family("llama", {"llama", "mistral", "qwen2", "qwen3", "gemma"}, graph);
  return f;
}

}  // namespace perfmodel
