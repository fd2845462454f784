#include "perfmodel/l2_residency.hpp"

#include <cmath>

namespace perfmodel {

double cyclic_l2_hit(double working_set_bytes, double capacity_bytes) {
  if (!(working_set_bytes > 0) || !(capacity_bytes > 0)) return 0;
  const double x = working_set_bytes / capacity_bytes;
  if (x <= 1) return 1;
  // h = exp(-x (1 - h)) has h = 1 as a root; the other one, below 1, is the steady state. The
  // function exp(-x (1 - h)) - h is positive below it and negative between it and 1: bisect.
  double lo = 0, hi = 1 - 1e-12;
  for (int i = 0; i < 80; ++i) {
    const double mid = 0.5 * (lo + hi);
    (std::exp(-x * (1 - mid)) > mid ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace perfmodel
