#pragma once
// Turning raw calibration measurements into a Calibration: the roofs are read off directly
// (large copy, L2-resident copy, large-square GEMMs) and the memory-bound ramp t = t0 + bytes/BW
// is fitted by least squares (Eigen) over elementwise kernels of growing size.
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/results.hpp"  // RawCalibration, load_raw_calibration

namespace perfmodel {

struct RampFit {
  double t0_s = 0, bandwidth = 0;
  double rms_relative_error = 0;
  int points = 0;
};
// Least squares of t = t0 + bytes / BW, each point weighted by 1/t so small and large sizes
// count alike (relative error).
RampFit fit_ramp(const std::vector<std::pair<double, double>>& bytes_seconds);

// The causal prefill attention case whose time sets attention_peak (calibrate runs it).
struct CalibrationAttentionCase {
  static constexpr int64_t batch = 4, heads = 32, kv_heads = 8, seq = 4096, head_dim = 128;
};

// Fits the calibration of `card` (its SM count de-quantizes the GEMM and attention peaks).
Calibration fit_calibration(const RawCalibration& raw, const Card& card);

}  // namespace perfmodel
