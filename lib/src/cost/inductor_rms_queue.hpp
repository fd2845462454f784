#pragma once
// Inductor's looped rms_norm at many rows an SM: its resident rows run in groups, each group a chain
// of round trips, so the SM's time is its groups' chains, not its bytes (inductor_rms_queue.cpp).
#include "perfmodel/op.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

// The groups beyond the first (whose chain the kernel's fixed sweeps hold) times one group's chain;
// 0 for every op but a compiled single-launch rms_norm of more than 1024 columns, or without the
// calibration's rmsnorm_group keys.
double inductor_rms_queue_s(const Op& op, const Roofs& r);

}  // namespace perfmodel
