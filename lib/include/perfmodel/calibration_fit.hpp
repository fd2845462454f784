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

namespace perfmodel {

struct RawPoint {
  // copy_large | l2_copy | copy_ramp | add_ramp | gemm_peak | gemm_m_ramp | gemm_k_ramp |
  // attention_peak | decode_ramp | issue_softmax | thread_chain
  std::string what;
  std::string dtype;         // for gemm points: bf16, fp16, tf32, fp32, fp8
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 0, heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_dim = 0;  // attention points
  double bytes = 0;          // bytes moved (read + write)
  double flops = 0;          // for attention points
  double seconds = 0;
  std::optional<KernelCase> kernel;  // thread_chain points: the small kernel launched
  // sustained_gemm: the burst timing, SM clocks (MHz) and board power (W) around it
  double alone_s = 0;  // kernel_switch: the mixed kernels' times each repeated alone, summed
  int kernels = 0;
  double burst_seconds = 0, clock_mhz = 0, burst_clock_mhz = 0, power_w = 0, idle_power_w = 0, power_limit_w = 0;
};

struct RawCalibration {
  std::string device_name, driver;
  std::vector<RawPoint> points;
  double host_launch_s = 0;
  double kernel_floor_s = 0;
};

// Reads calibration-raw.json as written by the validation backend (throws ConfigError).
RawCalibration load_raw_calibration(const std::string& path);
// Several raw files (a full run and `--only` runs) as one: all points; the device, kernel floor
// and launch overhead of the first file that has them.
RawCalibration load_raw_calibration(const std::vector<std::string>& paths);

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
