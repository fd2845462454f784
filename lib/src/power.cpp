#include "perfmodel/power.hpp"

namespace perfmodel {

double step_power(const PowerCap& p, double phi, double tensor_busy_s, double step_s) {
  if (step_s <= 0) return p.idle_w;
  // Busy time tensor_busy_s / phi at power tensor_w x phi^3, averaged over the step.
  return p.idle_w + p.tensor_w * phi * phi * tensor_busy_s / step_s;
}

}  // namespace perfmodel
