#pragma once
// Two times that run concurrently but not perfectly (a wave's K / V stream and its CTAs' own
// latency-bound walks, a warp's chain under the card's stream): (a^n + b^n)^(1/n), the card's
// decode_overlap n (fitted on flash-decoding's waves, calibration_fit.cpp); n <= 0 (not measured):
// the larger of the two.
#include <algorithm>
#include <cmath>

namespace perfmodel {

inline double overlapped(double a, double b, double n) {
  return n > 0 ? std::pow(std::pow(a, n) + std::pow(b, n), 1.0 / n) : std::max(a, b);
}

}  // namespace perfmodel
