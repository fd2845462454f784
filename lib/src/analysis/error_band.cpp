// Error bands (error_band.hpp; issue 14).
#include "perfmodel/error_band.hpp"

#include <algorithm>

#include "perfmodel/stats.hpp"

namespace perfmodel {

TimeBand time_band(double predicted_s, const ErrorQuantiles& q) {
  if (!(predicted_s > 0)) return {};
  // e > -1 always (a prediction is positive); guard the division anyway.
  auto measured = [&](double e) { return predicted_s / std::max(1 + e, 1e-3); };
  return {measured(q.p90), measured(q.p10)};
}

ErrorQuantiles error_quantiles(const std::vector<double>& signed_errors) {
  return {quantile(signed_errors, 0.1), quantile(signed_errors, 0.9), static_cast<int>(signed_errors.size())};
}

const ErrorBands& uncalibrated_error_bands() {
  // Measured with: perfmodel accuracy --measured validation/results/h200 --no-calibration --bands
  // (tests/test_error_bands.cpp recomputes them from the committed data).
  static const ErrorBands b{{
                                {"gemm", {-0.0758, 0.1379, 154}},
                                {"elementwise", {-0.0658, 0.2982, 96}},
                                {"attention", {-0.5414, 0.0463, 111}},
                                {"step", {-0.2047, 0.0953, 24}},
                            },
                            "datasheet roofs against validation/results/h200 (H200, this project's kernels)"};
  return b;
}

}  // namespace perfmodel
