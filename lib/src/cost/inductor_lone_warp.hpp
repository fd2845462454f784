#pragma once
// Inductor kernels whose block, fixed by the compile's autotuner at its first call, leaves a warp
// too few neighbours on its scheduler to hide its own chain of dependent instructions
// (inductor_lone_warp.cpp; issue 12, branch group17, validation/results/h200-group16).
#include <optional>

#include "perfmodel/op.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

// An Inductor pointwise kernel with counted instructions (op.instructions) and a known block
// (op.inductor_block, 4 warps): the time a warp alone on its scheduler takes to issue its thread's
// share; nullopt where the op carries no block or no count, or is not a copy.
std::optional<double> inductor_lone_warp_issue_s(const Op& op, const Roofs& r);

// torch.compile(dynamic=True)'s 1x128-group quantization kernel (a persistent reduction of
// op.inductor_block elements a CTA, 2 warps): what its thread's chain after the load adds; 0 for
// any other op.
double inductor_group_quant_chain_s(const Op& op, const Roofs& r);

}  // namespace perfmodel
