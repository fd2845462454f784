#pragma once
// The result schema: what the validation backend and `perfmodel validate` write and the library
// reads back, as typed structs with one reader per file kind. Every reader checks
// `schema_version` and throws ConfigError naming the file, line, column and field
// ("kernels.json:42:15: cases[3].measured_s: expected a number, got a string").
//
//   kernel suite      validate --suite (validation/results/*/kernels.json): {"schema_version": 1,
//                     "meta": {"device": {"name"}, "card"?}, "cases": [one KernelCase + its timing]}
//   step validation   validate --output (validation/results/*/steps/*.json): {"meta":
//                     {"schema_version": 1}, "inputs": {"card", "model", "workload"}, "step":
//                     {"measured_graph_s"}, "ops": [...]}
//   raw calibration   calibrate --raw (calibration-raw.json): {"schema_version": 1, "device"?,
//                     "host_launch_overhead_s"?, "min_kernel_time_s"?, "points": [RawPoint]}
//
// Fields the library does not use (quartiles, clocks, argv, ...) are allowed and ignored; a
// field it uses must be there with its JSON type. null means "not measured", never zero.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/kernel_case.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

// The one version of the result schema this library reads (kernel suites, step validations
// and raw calibrations share it; report.hpp's kSchemaVersion is the CLI's output).
inline constexpr int64_t kResultSchemaVersion = 1;

// ---- kernel suite -------------------------------------------------------------------------
struct SuiteCase {
  std::string name;                 // "name" (default: the kernel's name)
  std::string kernel_name;          // "kernel" as written
  std::string dtype_name;           // "dtype" as written
  // The case, when this build knows its kernel and dtype (a newer backend may run others).
  std::optional<KernelCase> kernel;
  bool ok = false;                  // the launch succeeded
  bool correct = false;             // its output matched the reference
  std::optional<double> measured_s; // hot median per launch; nullopt: not measured
  // Production kernels (issue 10): which implementation ran (torch.sdpa.cudnn, torch.eager, ...;
  // empty: this backend's), and the case's place in its file (the profile fit takes the even ones).
  std::string implementation;
  int index = -1;
  // Production GEMMs: the case's kernels alone (profiler durations, h200-gemm-chain), where
  // measured, and how many kernels one call launched (0: not recorded).
  std::optional<double> kernel_s;
  int kernels_per_launch = 0;
};

struct KernelSuite {
  std::string file;
  std::string device;  // meta.device.name
  std::string card;    // meta.card: catalogue key ("" in files written before it was recorded)
  std::vector<SuiteCase> cases;
};

KernelSuite read_kernel_suite(const std::string& path);

// ---- step validation ----------------------------------------------------------------------
struct StepValidation {
  std::string file;
  std::string card;   // inputs.card.key
  std::string model;  // inputs.model.key
  Workload workload;  // phase, batch, ctx, dtypes, impl
  std::optional<double> measured_graph_s;  // the whole step replayed as one graph; nullopt: failed
};

StepValidation read_step_validation(const std::string& path);

// ---- raw calibration ----------------------------------------------------------------------
struct RawPoint {
  // copy_large | l2_copy | copy_ramp | add_ramp | gemm_peak | gemm_m_ramp | gemm_k_ramp |
  // attention_peak | decode_ramp | issue_softmax | thread_chain | l2_residency | kernel_switch |
  // sustained_* | eager_dispatch | eager_view
  std::string what;
  std::string dtype;         // for gemm points: bf16, fp16, tf32, fp32, fp8
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 0, heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_dim = 0;  // attention points
  double bytes = 0;          // bytes moved (read + write)
  double flops = 0;          // for attention points
  double seconds = 0;
  std::optional<KernelCase> kernel;  // thread_chain / l2_residency points: the small kernel launched
  double alone_s = 0;  // kernel_switch: the mixed kernels' times each repeated alone, summed
  int kernels = 0;
  // sustained_*: the burst timing, SM clocks (MHz) and board power (W) around it
  double burst_seconds = 0, clock_mhz = 0, burst_clock_mhz = 0, power_w = 0, idle_power_w = 0, power_limit_w = 0;
};

struct RawCalibration {
  std::string device_name, driver;
  std::vector<RawPoint> points;  // measured ones only: a point with seconds <= 0 failed and is dropped
  double host_launch_s = 0;
  double kernel_floor_s = 0;
};

// Reads calibration-raw.json as written by the validation backend.
RawCalibration load_raw_calibration(const std::string& path);
// The same from JSON text in memory (the calibration's points without a temporary file);
// `source` names the text in errors.
RawCalibration parse_raw_calibration(const std::string& json, const std::string& source);
// The raw calibration as JSON, the shape load_raw_calibration reads (schema_version 1; fields
// at their defaults left out), so measured points can be kept or handed on without splicing text.
std::string raw_calibration_json(const RawCalibration& raw);
// Several raw files (a full run and `--only` runs) as one: all points; the device, kernel floor
// and launch overhead of the first file that has them.
RawCalibration load_raw_calibration(const std::vector<std::string>& paths);

// ---- any result file ----------------------------------------------------------------------
// The kinds a folder of results holds. torch_eager is validation/scripts/torch_eager.py's
// eager.json (PyTorch timings without a schema_version); the library reads none of it.
enum class ResultKind { kernel_suite, step_validation, raw_calibration, torch_eager };
// Which kind `path` is, from its top-level keys; ConfigError when it is none of them.
ResultKind result_kind(const std::string& path);

}  // namespace perfmodel
