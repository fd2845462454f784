#pragma once
// Error bands (issue 14): every predicted time carries the range the measured time fell in for
// predictions of its kind — the 10th and 90th percentiles of predicted / measured - 1 over a
// card's validation data, per profile and per accuracy set (gemm, elementwise, attention, step).
// A calibrated card carries its own (`error_bands:` in its calibration file, written by
// `perfmodel accuracy --bands`); other cards use the distribution of datasheet-roof predictions
// against the H200 measurements (uncalibrated_error_bands()).
#include <map>
#include <vector>
#include <string>

namespace perfmodel {

// Signed error e = predicted / measured - 1 of the cases of one set.
struct ErrorQuantiles {
  double p10 = 0, p90 = 0;
  int cases = 0;
};

// set name ("gemm", "elementwise", "attention", "step") -> quantiles.
using ErrorBandSet = std::map<std::string, ErrorQuantiles>;

struct ErrorBands {
  ErrorBandSet sets;
  std::string source;  // where the distribution was measured, for --explain and the JSON
};

// The measured time's band for a prediction: measured = predicted / (1 + e), so the p90 error
// (over-prediction) gives the low end and the p10 error the high end. {0, 0} for a zero time.
struct TimeBand {
  double low_s = 0, high_s = 0;
};
TimeBand time_band(double predicted_s, const ErrorQuantiles& q);

// p10 and p90 of the signed errors (quantile of stats.hpp).
ErrorQuantiles error_quantiles(const std::vector<double>& signed_errors);

// Datasheet roofs (no calibration) against validation/results/h200, the backend's kernels:
// `perfmodel accuracy --measured validation/results/h200 --no-calibration --bands`.
// tests/test_error_bands.cpp recomputes them from the committed data.
const ErrorBands& uncalibrated_error_bands();

}  // namespace perfmodel
