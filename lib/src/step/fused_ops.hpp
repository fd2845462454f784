#pragma once
// The fused kernels a serving engine and Inductor both run (fused_profile.cpp), shared by the
// fused and compiled profiles' lowerings.
#include <string>

#include "perfmodel/layer_graph.hpp"
#include "perfmodel/step.hpp"

namespace perfmodel {

// RMSNorm or LayerNorm as one kernel, with the preceding residual add folded in (n.after_residual).
Op fused_norm(const Model& m, const GraphNode& n, int64_t tokens, DType act);
// The MLP activation as one kernel (SiLU x up, GELU x up, or GELU).
Op fused_activation(const GraphNode& n, const Model& m, int64_t tokens, DType act);

}  // namespace perfmodel
