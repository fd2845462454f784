#include "perfmodel/power.hpp"

namespace perfmodel {

double step_power(const PowerCap& p, double phi, const StepLoad& load, double step_s) {
  if (step_s <= 0) return p.idle_w;
  // SM work busy for t / phi at power w x phi^3.
  const double attention_w = p.attention_w > 0 ? p.attention_w : p.tensor_w;
  return p.idle_w + phi * phi * (p.tensor_w * load.tensor_s + attention_w * load.attention_s) / step_s;
}

}  // namespace perfmodel
