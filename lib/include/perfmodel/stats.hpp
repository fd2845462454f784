#pragma once
// Order statistics shared by the accuracy report and the calibration fit (one of each, issue 9).
#include <vector>

namespace perfmodel {

// The q-quantile (0 <= q <= 1) with linear interpolation between the closest ranks (Hyndman
// and Fan's definition 7, numpy's default): 0 for an empty set.
double quantile(std::vector<double> v, double q);

// The middle element of the sorted set, the upper one of an even count (no interpolation: the
// value is one that was measured): 0 for an empty set.
double upper_median(std::vector<double> v);

}  // namespace perfmodel
