#pragma once
// The SM clock of a kernel case as the production harness ran it (validation/scripts/production/
// harness.py): the board's power cap meets a call replayed back to back.
//
// From rest, a load whose draw passes the cap runs at the full clock for a short window, then the
// limiter holds the board at the cap (validation/results/h200-heldgemm17, dynamics.csv: eight
// compute-bound GEMMs, bf16 / fp16 / tf32 / fp8, each after 1.5 s of rest: full clock for 33-72 ms,
// median 47 ms, then 0.80-0.84 of the burst rate; a copy and a GEMV, under the cap, never slow).
// The harness replays a call for a few warm-up, probe and capture calls, then samples of L
// launches until the spread converges (>= 10 samples) or 0.4 s: a heavy call that is sampled past
// the window (a long call, or one whose spread ran it to the time limit) has its median sample at
// the cap's sustained clock. Cases that record no samples are priced at the full clock.
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/power.hpp"
#include "perfmodel/price.hpp"

#include <vector>

namespace perfmodel {

// Seconds of back-to-back load the harness had run before its median sample, one call taking
// call_s (0 when the case records no samples).
double harness_load_before_median_s(const KernelCase& c, double call_s);

// The clock scale (0, 1] of the harness's median sample for a call made of `kernels` (each priced
// at the full clock, `ops` beside them): 1 within the burst window or under the cap; past it, the
// scale at which the call replayed back to back meets the cap (capped_clock_scale). The draw
// counts the MMA pipeline's busy time (each tensor op's priced compute time, tile and wave losses
// included), not its FLOPs over the peak: h200-heldgemm17's GEMM at M 200 (0.55 of the peak at full
// clock) settles at 0.805 of its burst rate, as deep as the full-rate GEMMs (0.82-0.84).
double harness_clock_scale(const PowerCap& p, const KernelCase& c, const std::vector<Op>& ops,
                           const std::vector<OpCost>& kernels);

// The call's time at that scale: compute beyond what bounded each kernel stretches (price_step's at_clock).
double harness_call_time_s(const PowerCap& p, const KernelCase& c, const std::vector<Op>& ops,
                           const std::vector<OpCost>& kernels);

}  // namespace perfmodel
