#include "inductor_pointwise_l2.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/l2_residency.hpp"

namespace perfmodel {

double harness_inputs_hit(double hit, double read_share) {
  if (hit >= 1) return 1.0;  // the whole rotated set within the capacity: its inputs too
  if (!(hit > 0) || !(read_share > 0)) return 0.0;  // a step's kernel (DRAM-fed), or nothing read
  // Invert h = exp(-x (1 - h)) for the set's x = rotated / capacity (h < 1 has one root x > 1).
  const double x = -std::log(hit) / (1 - hit);
  const double inputs = x * std::min(1.0, read_share);
  if (inputs <= 1) return 1.0;
  // Past the capacity the cyclic set falls out of L2 within a few MB, faster than random
  // replacement's tail (validation/results/h200-tinyl2: SiLU*mul 4 x 4096, inputs only rotating,
  // 1.19-1.20 us up to 36.0 MB of inputs, 1.61 at 42.6, 1.66 at 52.4, 1.72-1.74 from 65.5 MB on:
  // shares 1 / 0.23 / 0.13 / 0 of the 0.54 us L2-to-DRAM step). e-fold per 0.15 capacity past it.
  constexpr double kTail = 0.15;
  return std::exp(-(inputs - 1) / kTail);
}

}  // namespace perfmodel
