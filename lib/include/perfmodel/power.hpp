#pragma once
// The board's power cap under a sustained load (docs/model.md, "power cap"). Steps of a serving
// loop run back to back for seconds: when their average power would pass the cap, the GPU lowers
// its clock until it does not, and every compute-bound op stretches with it. Isolated kernels
// (a short burst) run at the full clock.
//
// Power at clock scale phi (f / f_max): idle + tensor x phi^3 x (tensor busy share), with
// dynamic power ~ f V^2 and V ~ f across the DVFS range (so the energy of one operation goes as
// phi^2 and the busy time as 1/phi). `tensor` is what a tensor-bound GEMM adds at the full clock,
// calibrated from a GEMM sustained at the cap (calibration_fit.cpp, "sustained_gemm").
namespace perfmodel {

struct PowerCap {
  double limit_w = 0;   // enforced board power cap
  double idle_w = 0;    // board draw with the GPU clocked but idle
  double tensor_w = 0;  // tensor cores busy at the effective GEMM peak, full clock, beyond idle
  bool known() const { return limit_w > 0 && tensor_w > 0; }
};

// Average board power of a step at clock scale `phi` whose tensor cores are busy `tensor_busy_s`
// at the full clock (FLOPs over the effective GEMM peak) and which takes `step_s(phi)`.
double step_power(const PowerCap& p, double phi, double tensor_busy_s, double step_s);

// The clock scale (0, 1] at which the step's average power meets the cap (1: under the cap).
// `step_s(phi)` must not decrease as phi falls.
template <class StepTime>
double capped_clock_scale(const PowerCap& p, double tensor_busy_s, StepTime step_s) {
  if (!p.known() || tensor_busy_s <= 0) return 1.0;
  if (step_power(p, 1.0, tensor_busy_s, step_s(1.0)) <= p.limit_w) return 1.0;
  double lo = 0.2, hi = 1.0;  // power rises with phi: bisect
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (step_power(p, mid, tensor_busy_s, step_s(mid)) > p.limit_w ? hi : lo) = mid;
  }
  return lo;
}

}  // namespace perfmodel
