#pragma once
// Measured roofs of one card (written by `perfmodel calibrate --on-gpu`, read by the cost
// model). Every field is optional: 0 means "not measured", and the model then falls back to
// the datasheet value times a documented default efficiency (docs/model.md).
#include <array>
#include <string>

#include "perfmodel/dtype.hpp"

namespace perfmodel {

struct Calibration {
  std::string card_key;       // the catalogue card it belongs to
  std::string device_name;    // as the driver names it
  std::string measured_on;    // date
  std::string source_file;
  double dram_bandwidth = 0;  // B/s, large device-to-device copy, read + write counted
  double l2_bandwidth = 0;    // B/s, L2-resident copy
  std::array<double, kPrecisionCount> gemm_peak{};  // FLOP/s on large squares
  double attention_peak = 0;  // FLOP/s of the fused prefill attention kernel at large sizes
  double kernel_floor_s = 0;  // device time of the smallest kernel in a graph replay
  double host_launch_s = 0;   // wall time per eager launch (host launch overhead)
  // Memory-bound ramp t = t0 + bytes / BW fitted on elementwise kernels of growing size.
  double ramp_t0_s = 0;
  double ramp_bandwidth = 0;
};

// Loads a calibration file (YAML, docs/calibration.md). Throws ConfigError.
Calibration load_calibration(const std::string& path);
// Serializes to the same YAML.
std::string to_yaml(const Calibration& c);

}  // namespace perfmodel
