// The static inputs of a torch.compile (reduce-overhead) decode graph (branch hostreplay).
#pragma once

#include <cstdint>

#include "perfmodel/layer_graph.hpp"
#include "perfmodel/model.hpp"

namespace perfmodel {

// The tensors the compiled call hands its CUDA graph as static inputs: every parameter (a
// Linear's weight and bias, a norm's weight and bias, the embedding tables, an untied LM head),
// three per cache layer (the StaticCache's K and V and one more a layer) and the rotary's
// inv_freq buffer. Read off dynamo's and the cudagraph tree's counts (validation/results/
// h200-chost14, chost14_counts.py): 4 + 12 a layer for the Llama family, 4 + 15 for Qwen2.5.
int64_t compiled_graph_inputs(const LayerGraph& g, const Model& m);

}  // namespace perfmodel
