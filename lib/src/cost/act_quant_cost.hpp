#pragma once
// The cost of the activation-quantization kernels (act_amax, act_quant; act_quant_cost.cpp).
#include "kernel_costs.hpp"

namespace perfmodel {

// Under the compiled profile Inductor's kernels (act_quant_forms.cpp); otherwise the serving
// engine's CUDA kernels, streams (stream_cost).
KernelTimes act_quant_cost(const Op& op, const Roofs& r, const Tile* force_tile);

}  // namespace perfmodel
