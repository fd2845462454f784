// The clock of the production harness's median sample under the power cap (harness_clock.hpp).
#include "perfmodel/harness_clock.hpp"

#include <algorithm>

#include "../cost/kernel_costs.hpp"

namespace perfmodel {

namespace {

// An op's time when its compute runs at clock scale phi (price_step.cpp's at_clock): memory
// streams and fixed costs do not follow the SM clock.
double at_clock(const OpCost& c, double phi) {
  const double busy = std::max(c.compute_time_s, c.memory_time_s);
  return c.time_s + std::max(0.0, c.compute_time_s / phi - busy);
}

double call_time(const std::vector<OpCost>& kernels, double phi) {
  double t = 0;
  for (const OpCost& k : kernels) t += at_clock(k, phi);
  return t;
}

}  // namespace

double harness_load_before_median_s(const KernelCase& c, double call_s) {
  if (c.samples <= 0 || c.launches_per_sample <= 0 || !(call_s > 0)) return 0;
  // harness.py's time_case: warm-up calls (min(3, sets); 3 with one set), the probe (min(sets, 20);
  // 3 with one set), the capture's warm-up call and one replay of L, then the samples up to the
  // median one. The correctness check and the profiler's run come before, behind host gaps.
  const int64_t sets = std::max<int64_t>(1, c.buffer_sets);
  const double warm = sets > 1 ? static_cast<double>(std::min<int64_t>(3, sets)) : 3.0;
  const double probe = sets > 1 ? static_cast<double>(std::min<int64_t>(sets, 20)) : 3.0;
  const double L = static_cast<double>(c.launches_per_sample);
  const double calls = warm + probe + 1 + L + 0.5 * static_cast<double>(c.samples) * L;
  return calls * call_s;
}

double harness_clock_scale(const PowerCap& p, const KernelCase& c, const std::vector<Op>& ops,
                           const std::vector<OpCost>& kernels) {
  if (!p.known() || !(p.burst_window_s > 0) || kernels.size() != ops.size()) return 1.0;
  if (harness_load_before_median_s(c, call_time(kernels, 1.0)) <= p.burst_window_s) return 1.0;
  StepLoad load;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!is_tensor(ops[i].precision) || !(ops[i].flops > 0)) continue;
    // The draw follows the MMA pipe's busy time. cuBLAS's align1 fallback for unaligned rows
    // (gemm_unaligned_cost.cpp) is priced by its scalar loads' issue; its MMAs are busy only
    // flops / peak of that: GPT-2 XL's LM head (n 50257) at 3300 rows ran 5.5 ms at 1980 MHz
    // (96 TFLOP/s), no sample throttled (h200-heldout21).
    const bool scalar_loads = unaligned_gemm_rows(ops[i]) && kernels[i].nominal_peak > 0;
    load.tensor_s += scalar_loads ? std::min(kernels[i].compute_time_s, ops[i].flops / kernels[i].nominal_peak)
                                  : kernels[i].compute_time_s;
  }
  return capped_clock_scale(p, load, [&](double phi) { return call_time(kernels, phi); });
}

double harness_call_time_s(const PowerCap& p, const KernelCase& c, const std::vector<Op>& ops,
                           const std::vector<OpCost>& kernels) {
  return call_time(kernels, harness_clock_scale(p, c, ops, kernels));
}

}  // namespace perfmodel
