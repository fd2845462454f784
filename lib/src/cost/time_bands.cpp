// The p10-p90 band of every priced time (error_band.hpp; issue 14): an op's from its accuracy
// set (the kernel registry's), a step's from whole-step validations or its ops'.
#include "kernel_costs.hpp"
#include "perfmodel/kernel.hpp"

namespace perfmodel {

TimeBand op_time_band(const Op& op, double time_s, const Roofs& r) {
  const auto it = r.error_bands.sets.find(std::string(kernel_def(op.kernel).accuracy_set));
  if (it == r.error_bands.sets.end()) return {};  // no measurements of this kind: no band (reported "n/a")
  return time_band(time_s, it->second);
}

TimeBand step_time_band(const std::vector<const Op*>& ops, const StepCost& s, const Roofs& r) {
  if (auto it = r.error_bands.sets.find("step"); it != r.error_bands.sets.end()) return time_band(s.time_s, it->second);
  double sum = 0, low = 0, high = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const double n = static_cast<double>(ops[i]->count);
    const TimeBand& b = s.ops[i].time_band;
    const bool known = b.high_s > 0;  // an op without a band adds its time to both ends
    sum += n * s.ops[i].time_s;
    low += n * (known ? b.low_s : s.ops[i].time_s);
    high += n * (known ? b.high_s : s.ops[i].time_s);
  }
  if (!(sum > 0)) return {};
  // Scaled onto the step's time (an eager step's wall time is not the sum of its ops).
  return {s.time_s * low / sum, s.time_s * high / sum};
}

}  // namespace perfmodel
