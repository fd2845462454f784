// perfmodel CUDA + cuBLAS validation backend: public API (plain C++, no CUDA headers).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfmodel/dtype.hpp"
#include "perfmodel/kernel_case.hpp"

namespace perfmodel::validation {

// One kernel vocabulary with the cost model (issue 9): kernel kinds are perfmodel::KernelId,
// dtypes perfmodel::DType (fp8 = e4m3 inputs, bf16 output, fp32 accumulate, cuBLASLt, only where
// CC >= 8.9), a case is a perfmodel::KernelCase (fields and layouts in kernel_case.hpp):
//   gemm, nn.Linear layout: y[m,n] = x[m,k] . W[n,k]^T (row-major x, W, y)
//   copy/add/gelu*/silu_mul (cols = output cols; input is rows x 2*cols [gate | up])/rmsnorm/layernorm/softmax*: rows x cols
//   embedding: gather `rows` tokens of width `cols` from a vocab x cols table
//   attention q/o [batch, heads, q_len, head_dim], K/V cache [batch, kv_heads, kv_len, head_dim];
//   rotary q [batch*q_len, heads, head_dim], k [batch*q_len, kv_heads, head_dim] (positions kv_len-q_len+i);
//   kv_append new K/V [batch, q_len, kv_heads, head_dim] into [batch, kv_heads, kv_len, head_dim] at kv_len-q_len.
//   residual (rmsnorm): fused residual add (h = x + r written, y = norm(h)), as serving engines run it
//   l2_resident: hot timing WITHOUT rotating buffers (case meant to sit in L2)
// The kinds the backend runs are listed in src/kernels/kernels.def; others fail with an error.
struct Case : KernelCase {
  // The harness's own self-test kernel, which no model prices: a busy-wait of this many seconds
  // (0 < s <= 1), run when kernel == KernelId::other.
  double spin_seconds = 0;
};
inline bool is_spin(const Case& c) { return c.kernel == KernelId::other && c.spin_seconds != 0; }
// The kernel's name in result files: to_string(KernelId), "spin" for the self-test kernel.
std::string kernel_name(const Case& c);

struct Options {
  int min_samples = 10;
  double target_rel_spread = 0.005;   // (q3 - q1) / median
  double max_seconds_per_case = 1.5;  // wall-clock budget of the hot sampling loop
  bool cold = true;
  bool check = true;
  int warmup = 3;
};

struct Result {
  bool ok = false;
  std::string error;  // launch/alloc failure or wrong result; then no times are trusted
  bool correct = false;
  double max_rel_error = 0;  // largest ||out-ref||/||ref|| over the checks made (small instance, sampled timed shape)
  double median_s = 0, q1_s = 0, q3_s = 0;  // hot per-launch device time
  int samples = 0;
  bool converged = false;
  std::string stop_reason;
  double cold_median_s = 0;  // single launch after L2 flush
  double sm_clock_mhz_min = 0, sm_clock_mhz_max = 0;  // 0 = unknown (no NVML)
  double sm_clock_mhz_median = 0;  // over the samples (read after each)
  double power_w_median = 0;       // board power after each sample (NVML's running average), W
  int throttled_samples = 0;
  int64_t launches_per_sample = 0;
  // additions (not in the original brief)
  int buffer_sets = 0;           // rotating buffer sets cycled through in the hot graph
  double rotated_bytes = 0;      // bytes touched per launch x sets (>= 2 x L2 unless l2_resident / tiny case)
  int kernels_per_launch = 0;    // device kernels (incl. cuBLAS) one launch of the case enqueues
  double flops = 0;              // useful floating-point operations of one launch
  double bytes = 0;              // minimal DRAM traffic of one launch (each input read once, each output written once)
};

struct DeviceInfo {
  std::string name;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_clock_max_mhz = 0;
  int mem_clock_mhz = 0;
  int mem_bus_width_bits = 0;
  std::string driver_version, runtime_version, cublas_version;
};

bool device_available(std::string* why);  // false + "no CUDA device found" (or the CUDA error text)
DeviceInfo device_info();
Result run_case(const Case&, const Options&);
// All cases in order, captured into ONE CUDA graph; time per replay of the whole sequence (a model step).
Result run_sequence(const std::vector<Case>&, const Options&);
// The board's power draw now and its enforced cap, W (0 = unknown: no NVML).
struct PowerInfo {
  double draw_w = 0, limit_w = 0;
};
PowerInfo power_info();

struct CalibrationPoint {
  std::string what;
  DType dtype = DType::bf16;
  int64_t m = 0, n = 0, k = 0, bytes = 0;
  double seconds = 0;
};
struct CalibrationData {
  DeviceInfo device;
  std::vector<CalibrationPoint> points;
  double host_launch_overhead_s = 0;
  double min_kernel_time_s = 0;
};
CalibrationData collect_calibration(const Options&, const std::function<void(const std::string&)>& progress);

std::vector<Case> kernel_suite();
std::string device_info_json(const DeviceInfo&);
std::string result_json(const Case&, const Result&);
std::string calibration_json(const CalibrationData&);  // addition: {"device":{...},"host_launch_overhead_s":..,"points":[..]}

}  // namespace perfmodel::validation
