#pragma once
// The board's power cap under a sustained load (docs/model.md, "power cap"). Steps of a serving
// loop run back to back for seconds: when their average power would pass the cap, the GPU lowers
// its clock until it does not, and every compute-bound op stretches with it. Isolated kernels
// (a short burst) run at the full clock.
//
// Power at clock scale phi (f / f_max): idle + the SMs' work x phi^3 x its busy share. The SMs'
// dynamic power goes as f V^2 and V rises with f across the DVFS range (so one operation's energy
// goes as phi^2 and the busy time as 1/phi). Each kind of work is calibrated from a load sustained
// for seconds: a GEMM and the flash prefill kernel (calibration_fit_parts.cpp, "sustained_*").
// DRAM's own power is left out: a sustained copy draws 478 W beyond idle on the H200, yet a
// read-dominated batch-128 decode graph ran at 1950 of 1980 MHz; one copy (half writes) cannot
// tell reads from writes, so it is recorded, not used.
namespace perfmodel {

struct PowerCap {
  double limit_w = 0;      // enforced board power cap
  double idle_w = 0;       // board draw with the GPU clocked but idle
  double tensor_w = 0;     // tensor cores busy at the effective GEMM peak, full clock, beyond idle
  double attention_w = 0;  // the flash prefill kernel busy, full clock, beyond idle (0: as tensor_w)
  // From rest, how long a load above the cap runs at full clock before the limiter lowers it
  // (0: unknown; harness_clock.hpp). validation/results/h200-heldgemm17.
  double burst_window_s = 0;
  bool known() const { return limit_w > 0 && tensor_w > 0; }
};

// What a step keeps busy, in seconds at the full clock.
struct StepLoad {
  double tensor_s = 0;     // GEMM FLOPs over the effective GEMM peak
  double attention_s = 0;  // flash prefill compute
};

// Average board power of a step with `load` at clock scale `phi`, taking `step_s`.
double step_power(const PowerCap& p, double phi, const StepLoad& load, double step_s);

// The clock scale (0, 1] at which the step's average power meets the cap (1: under the cap).
// `step_s(phi)` must not decrease as phi falls.
template <class StepTime>
double capped_clock_scale(const PowerCap& p, const StepLoad& load, StepTime step_s) {
  if (!p.known() || load.tensor_s + load.attention_s <= 0) return 1.0;
  if (step_power(p, 1.0, load, step_s(1.0)) <= p.limit_w) return 1.0;
  double lo = 0.2, hi = 1.0;  // power rises with phi: bisect
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (step_power(p, mid, load, step_s(mid)) > p.limit_w ? hi : lo) = mid;
  }
  return lo;
}

}  // namespace perfmodel
