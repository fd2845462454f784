// results.hpp: every committed result file reads through the schema with the numbers it holds,
// and a bad file is one ConfigError naming the file, line, column and field.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <yaml-cpp/yaml.h>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/results.hpp"
#include "test_support.hpp"

using namespace perfmodel;
namespace fs = std::filesystem;

namespace {

std::string results(const std::string& rel) { return test::root() + "/validation/results/" + rel; }

// profile_host.py's record: a catalogue model with its probe's depths (or one depth's fields at the top), no cases.
bool is_host_probe(const std::string& path) {
  try {
    const YAML::Node n = YAML::LoadFile(path);
    return n.IsMap() && n["model"] && (n["depths"] || n["host_call_s"]) && !n["cases"];
  } catch (const YAML::Exception&) {
    return false;
  }
}

// Writes `text` to a fresh file under the test's temporary folder and returns its path.
std::string write_tmp(const std::string& name, const std::string& text) {
  fs::create_directories(PERFMODEL_TEST_TMP "/results");
  const std::string path = PERFMODEL_TEST_TMP "/results/" + name;
  std::ofstream(path) << text;
  return path;
}

// The ConfigError message of `read`, or "" when it did not throw.
template <class F>
std::string error_of(F&& read) {
  try {
    read();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const char* kSuite = R"({"schema_version": 1,
"meta": {"device": {"name": "NVIDIA H200"}, "card": "h200"},
"cases": [
{"name": "add_1", "kernel": "add", "dtype": "bf16", "rows": 2, "cols": 4096,
 "ok": true, "correct": true, "measured_s": 1.5e-06, "rotated_bytes": null},
{"name": "gemm_1", "kernel": "gemm", "dtype": "bf16", "m": 16, "n": 4096, "k": 4096,
 "ok": false, "correct": false, "measured_s": null},
{"name": "future_1", "kernel": "warp_shuffle", "dtype": "bf16",
 "ok": true, "correct": true, "measured_s": 2e-06}
]}
)";

const char* kStep = R"({
  "meta": {"schema_version": 1, "command": "validate"},
  "inputs": {
    "card": {"key": "h200"},
    "model": {"key": "llama2-7b"},
    "workload": {"phase": "prefill", "batch": 2, "ctx": 4096, "weight_dtype": "bf16",
                 "act_dtype": "bf16", "kv_dtype": "fp8", "impl": "eager"}
  },
  "step": {"measured_graph_s": 0.25},
  "ops": []
}
)";

const char* kRaw = R"({"schema_version": 1, "device": {"name": "NVIDIA H200", "driver_version": "580"},
"host_launch_overhead_s": 4.5e-06, "min_kernel_time_s": 5e-07,
"points": [
{"what": "copy_large", "dtype": "bf16", "bytes": 2147483648, "seconds": 0.0005},
{"what": "gemm_peak", "dtype": "fp8", "m": 8192, "n": 8192, "k": 8192, "seconds": 0},
{"what": "thread_chain", "kernel": "rmsnorm", "dtype": "bf16", "rows": 1, "cols": 4096, "seconds": 3e-06}
]}
)";

// `text` with the first `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("kernel suite: typed cases; null is not measured; unknown kernels kept without a KernelCase") {
  const std::string path = write_tmp("suite.json", kSuite);
  const KernelSuite s = read_kernel_suite(path);
  CHECK(s.device == "NVIDIA H200");
  CHECK(s.card == "h200");
  REQUIRE(s.cases.size() == 3);
  REQUIRE(s.cases[0].kernel);
  CHECK(s.cases[0].kernel->kernel == KernelId::add);
  CHECK(s.cases[0].kernel->rows == 2);
  CHECK(s.cases[0].kernel->cols == 4096);
  CHECK(s.cases[0].kernel->rotated_bytes == 0);
  CHECK(*s.cases[0].measured_s == 1.5e-06);
  CHECK_FALSE(s.cases[1].ok);
  CHECK_FALSE(s.cases[1].measured_s);
  CHECK(s.cases[1].kernel->m == 16);
  CHECK(s.cases[2].kernel_name == "warp_shuffle");
  CHECK_FALSE(s.cases[2].kernel);
  // Accuracy takes only the case that ran, was correct, is known and was timed.
  Measurements m;
  load_measurements(path, m);
  REQUIRE(m.cases.size() == 1);
  CHECK(m.cases[0].kernel.name == "add_1");
  CHECK(m.card == "h200");
}

TEST_CASE("kernel suite: missing field, wrong type and wrong schema_version name file:line:col and field") {
  const std::string missing = write_tmp("suite-missing.json", with(kSuite, R"("kernel": "add", )", ""));
  CHECK(error_of([&] { read_kernel_suite(missing); }) ==
        missing + ":4:1: cases[0].kernel: missing required field 'kernel'");
  const std::string wrong = write_tmp("suite-type.json", with(kSuite, "1.5e-06", "\"fast\""));
  CHECK(error_of([&] { read_kernel_suite(wrong); }) ==
        wrong + ":5:45: cases[0].measured_s: expected a number, got a string");
  const std::string flag = write_tmp("suite-bool.json", with(kSuite, R"("ok": true)", R"("ok": 1)"));
  CHECK(error_of([&] { read_kernel_suite(flag); }) == flag + ":5:8: cases[0].ok: expected true or false, got '1'");
  const std::string version = write_tmp("suite-version.json", with(kSuite, R"("schema_version": 1)", R"("schema_version": 2)"));
  CHECK(error_of([&] { read_kernel_suite(version); }) ==
        version + ":1:20: schema_version: version 2 is not supported (this perfmodel reads version 1)");
  const std::string unversioned = write_tmp("suite-unversioned.json", with(kSuite, R"("schema_version": 1,)", ""));
  CHECK(error_of([&] { read_kernel_suite(unversioned); }) ==
        unversioned + ":1:1: schema_version: missing required field 'schema_version'");
  const std::string no_device = write_tmp("suite-device.json", with(kSuite, R"({"name": "NVIDIA H200"})", "{}"));
  CHECK(error_of([&] { read_kernel_suite(no_device); }) ==
        no_device + ":2:20: meta.device.name: missing required field 'name'");
}

TEST_CASE("kernel suite: a GEMM's kernels alone (kernel_s) and its kernel count; the kernel-only time compared") {
  const std::string base = with(kSuite, R"("ok": true, "correct": true, "measured_s": 1.5e-06, "rotated_bytes": null)",
                                R"("ok": true, "correct": true, "measured_s": 1.5e-06, "kernel_s": 1.1e-06, "kernels_per_launch": 1)");
  const KernelSuite s = read_kernel_suite(write_tmp("suite-kernel-s.json", base));
  REQUIRE(s.cases[0].kernel_s);
  CHECK(*s.cases[0].kernel_s == test::approx(1.1e-6));
  CHECK(s.cases[0].kernels_per_launch == 1);
  CHECK_FALSE(s.cases[1].kernel_s);
  CHECK(s.cases[1].kernels_per_launch == 0);
  // The profiled kernel durations where measured; else the harness's replay less the idle it holds
  // after one kernel (0.46 us) or two (1.06 us): validation/results/h200-gemm-chain.
  MeasuredCase c;
  c.measured_s = 10e-6;
  c.kernels_per_launch = 2;
  CHECK(gemm_kernel_time_s(c) == test::approx(10e-6 - 1.06e-6));
  c.kernels_per_launch = 1;
  CHECK(gemm_kernel_time_s(c) == test::approx(10e-6 - 0.46e-6));
  c.kernel_s = 9e-6;
  CHECK(gemm_kernel_time_s(c) == test::approx(9e-6));
  const std::string zero = write_tmp("suite-kernel-zero.json", with(base, "1.1e-06", "0"));
  CHECK(error_of([&] { read_kernel_suite(zero); }).find("cases[0].kernel_s: must be > 0 and at most 3600 seconds") !=
        std::string::npos);
  // A time past an hour is no launch's (1e300 s had been priced, every error -100 %).
  const std::string huge = write_tmp("suite-measured-huge.json", with(base, R"("measured_s": 1.5e-06, "kernel_s")", R"("measured_s": 1e300, "kernel_s")"));
  CHECK(error_of([&] { read_kernel_suite(huge); }).find("cases[0].measured_s: must be > 0 and at most 3600 seconds") !=
        std::string::npos);
  const std::string negative = write_tmp("suite-measured-neg.json", with(base, R"("measured_s": 1.5e-06, "kernel_s")", R"("measured_s": -1e-06, "kernel_s")"));
  CHECK(error_of([&] { read_kernel_suite(negative); }).find("cases[0].measured_s") != std::string::npos);
  const std::string count = write_tmp("suite-kernels-neg.json", with(base, R"("kernels_per_launch": 1)", R"("kernels_per_launch": -1)"));
  CHECK(error_of([&] { read_kernel_suite(count); }).find("cases[0].kernels_per_launch: must be 0..1000") != std::string::npos);
}

TEST_CASE("step validation: the workload and the graph's time; bad values named") {
  const StepValidation s = read_step_validation(write_tmp("step.json", kStep));
  CHECK(s.card == "h200");
  CHECK(s.model == "llama2-7b");
  CHECK(s.workload.phase == Phase::prefill);
  CHECK(s.workload.batch == 2);
  CHECK(s.workload.ctx == 4096);
  CHECK(s.workload.kv_dtype == DType::fp8);
  CHECK(s.workload.impl == Impl::eager);
  CHECK(*s.measured_graph_s == 0.25);
  const std::string failed = write_tmp("step-null.json", with(kStep, "0.25", "null"));
  CHECK_FALSE(read_step_validation(failed).measured_graph_s);
  Measurements m;
  load_measurements(failed, m);
  CHECK(m.steps.empty());

  const std::string phase = write_tmp("step-phase.json", with(kStep, R"("prefill")", R"("sideways")"));
  CHECK(error_of([&] { read_step_validation(phase); }) ==
        phase + ":6:27: inputs.workload.phase: unknown value 'sideways' (expected decode, prefill)");
  const std::string batch = write_tmp("step-batch.json", with(kStep, R"("batch": 2)", R"("batch": "2")"));
  CHECK(error_of([&] { read_step_validation(batch); }) ==
        batch + ":6:47: inputs.workload.batch: expected an integer, got a string");
  const std::string zero = write_tmp("step-zero.json", with(kStep, R"("ctx": 4096)", R"("ctx": 0)"));
  CHECK(error_of([&] { read_step_validation(zero); }) == zero + ":6:57: inputs.workload.ctx: must be at least 1, got 0");
  const std::string model = write_tmp("step-model.json", with(kStep, R"({"key": "llama2-7b"})", "{}"));
  CHECK(error_of([&] { read_step_validation(model); }) == model + ":5:14: inputs.model.key: missing required field 'key'");
  const std::string version = write_tmp("step-version.json", with(kStep, R"("schema_version": 1)", R"("schema_version": 0)"));
  CHECK(error_of([&] { read_step_validation(version); }) ==
        version + ":2:30: meta.schema_version: version 0 is not supported (this perfmodel reads version 1)");
  const std::string no_time = write_tmp("step-no-time.json", with(kStep, R"("measured_graph_s": 0.25)", R"("other": 1)"));
  CHECK(error_of([&] { read_step_validation(no_time); }) ==
        no_time + ":9:11: step.measured_graph_s: missing required field 'measured_graph_s' (null when not measured)");
}

TEST_CASE("raw calibration: points typed, failed points dropped, chain kernels are cases; in memory too") {
  const RawCalibration r = parse_raw_calibration(kRaw, "<raw>");
  CHECK(r.device_name == "NVIDIA H200");
  CHECK(r.driver == "580");
  CHECK(r.host_launch_s == 4.5e-06);
  CHECK(r.kernel_floor_s == 5e-07);
  REQUIRE(r.points.size() == 2);  // the gemm_peak of 0 s failed
  CHECK(r.points[0].bytes == 2147483648.0);
  REQUIRE(r.points[1].kernel);
  CHECK(r.points[1].kernel->kernel == KernelId::rmsnorm);
  CHECK(r.points[1].kernel->cols == 4096);
  CHECK(r.points[1].kernel->name == "thread_chain_rmsnorm");
  const RawCalibration from_file = load_raw_calibration(write_tmp("raw.json", kRaw));
  CHECK(from_file.points.size() == 2);

  CHECK(error_of([&] { parse_raw_calibration(with(kRaw, "0.0005", "\"0.0005\""), "<raw>"); }) ==
        "<raw>:4:73: points[0].seconds: expected a number, got a string");
  CHECK(error_of([&] { parse_raw_calibration(with(kRaw, R"("kernel": "rmsnorm")", R"("kernel": "rmsnrom")"), "<raw>"); }) ==
        "<raw>:6:36: points[2].kernel: unknown kernel 'rmsnrom'");
  CHECK(error_of([&] { parse_raw_calibration(with(kRaw, R"("what": "copy_large", )", ""), "<raw>"); }) ==
        "<raw>:4:1: points[0].what: missing required field 'what'");
  CHECK(error_of([&] { parse_raw_calibration(with(kRaw, R"("schema_version": 1)", R"("schema_version": "1")"), "<raw>"); }) ==
        "<raw>:1:20: schema_version: expected an integer, got a string");
  CHECK(error_of([&] { parse_raw_calibration("[1, 2]", "<raw>"); }) == "<raw>:1:1: expected a JSON object");
}

TEST_CASE("every committed result file reads as its kind") {
  int suites = 0, steps = 0, raws = 0, eager = 0, probes = 0;
  for (const auto& e : fs::recursive_directory_iterator(results(""))) {
    if (e.path().extension() != ".json" || e.path().filename().string().rfind("selftest", 0) == 0) continue;
    const std::string path = e.path().string();
    CAPTURE(path);
    // Data files read by their own scripts, not result files: a run's versions (meta.json), the
    // Hugging Face steps compare_hf.py compares, the baselines fit_profiles.py writes, the
    // per-kernel profiler splits of h200-eltwise3, Inductor's generated code of h200-eltwise4 and h200-actq15 and
    // h200-eltwise5 and h200-eltwise6, the autotune candidates timed alone of h200-eltwise5 and h200-eltwise6.
    const std::string name = e.path().filename().string();
    if (name == "trace.json" && path.find("h200-quant9") != std::string::npos) continue;  // h200-quant9's block-trace summary (int8pack_trace.py): its "cases" are not kernel cases
    if (name.rfind("hostgrow", 0) == 0) continue;  // h200-hostgrow's per-step host probes (hostgrow.py): not result files
    // Host probes (profile_host.py's records, what `calibrate --profile eager --from-probe` reads), told by their
    // content: a model and its depths (or one depth's host_call_s), no cases.
    if (is_host_probe(path)) {
      ++probes;
      continue;
    }
    if (name == "census.json") continue;  // h200-hfgemma's kernel and aten-op counts of a step (hf_kernel_census.py): a list, not a result file
    if (name == "split_code.json") continue;  // h200-splitred's generated Triton sources (split_code.py): not a result file
    if (name == "meta.json" || name == "hf.json" || name == "baseline.json" || name == "kernel_split.json" ||
        name == "inductor_code.json" || name == "configs.json") {
      CHECK_THROWS_AS(result_kind(path), ConfigError);
      continue;
    }
    // Cases that run2.sh gathered from three suite runs without their meta: refused as a suite.
    if (name == "kernels2.json") {
      CHECK_THROWS_AS(read_kernel_suite(path), ConfigError);
      continue;
    }
    switch (result_kind(path)) {
      case ResultKind::kernel_suite: {
        const KernelSuite s = read_kernel_suite(path);
        // Each measured on the card its folder names: h100-* on the H100 lease of 2026-12-05, the rest on H200s.
        CHECK(s.device == (path.find("/h100-") != std::string::npos ? "NVIDIA H100 80GB HBM3" : "NVIDIA H200"));
        CHECK_FALSE(s.cases.empty());
        ++suites;
        break;
      }
      case ResultKind::step_validation:
        CHECK(read_step_validation(path).workload.batch > 0);
        ++steps;
        break;
      case ResultKind::raw_calibration:
        CHECK_FALSE(load_raw_calibration(path).points.empty());
        ++raws;
        break;
      case ResultKind::torch_eager: ++eager; break;
    }
  }
  // h200*/ before the backend split, plus h200-backend-split (a suite, two steps, a raw
  // calibration), h200-production{,-repeat} and h200-eager-heldout (a suite each) and h200-quant
  // (quant-0/1.json, one suite per GPU of the run), h200-quant2 (quant2.json),
  // h200-decode-monotone (kernels.json, kernels-qwen.json), h200-gemm-small (kernels.json),
  // h200-cudnn-decode (kernels.json), h200-quant3 (quant3.json), h200-gemm-chain (kernels.json,
  // hf/kernels.json), h200-eltwise3, h200-eltwise4, h200-eltwise5 and h200-eltwise6 (kernels.json),
  // h200-quant5 (quant5.json), h200-quant6 (quant6.json), h200-quant8 (quant8.json), h200-eltwise9
  // (kernels.json), h200-fp8cap10 (fp8cap10.json), h200-fp8row11 (fp8row11.json), h200-eltwise11,
  // h200-eltwise12 and h200-eltwise13 (kernels.json), h200-fp8row12 (fp8row12.json), h200-eltwise14
  // (kernels.json), h200-fp8mm14 (fp8mm14.json), h200-actq15 (act_quant_static.json), h200-heldout16
  // (kernels.json), h200-group16 (group16.json), h200-unaligned16 (kernels.json), h200-rowops17,
  // h200-heldgemm17, h200-heldout17, h200-tf3217, h200-inductorrow, h200-inductorsmall, h200-rms2049,
  // h200-heldout18 (kernels.json), h200-heldout19 (kernels.json), h200-walkdefault (kernels.json), h200-heldout20 (kernels.json),
  // h200-tf32split (kernels.json), h200-shortk (kernels.json), h200-heldout21 (kernels.json), h200-heldout22 (kernels.json),
  // h200-decodeocc (kernels.json), h200-gemmtile/sweep (kernels.json), h200-heldout23 (kernels.json),
  // h200-wholetiles (kernels.json), h200-decodeknee (kernels.json), h200-heldout24 (kernels.json),
  // h200-splitcheck (kernels.json), h200-heldout25 (kernels.json), h200-heldout26 (kernels.json),
  // h200-splitred (kernels.json, kernels_grid2.json, kernels_repeat.json: split_probe_suite.py's),
  // h200-normwaves (kernels.json, second/kernels.json, second/kernels_rows.json), h200-heldout27 (kernels.json), h200-splitodd (kernels3.json), h200-afterfit28 (kernels.json),
  // h200-normissue (kernels.json), h200-heldout29 (kernels.json), h200-flash30, h200-lonecta and h200-headdims (kernels.json),
  // h200-heldout30, h200-oddsplit, h200-x256, h200-tailpace and h200-tailprobe (kernels.json), h200-heldout31, h200-widegroup, h200-wideprobe, h200-widecheck and h200-flash2wide (kernels.json);
  // on the H100: h100-first (prod, ho16), h100-second (ho25, tailpace, widegroup, widecheck; third/ flash30, headdims,
  // heldout31, tailprobe, x256), h100-widencu/tailpace, h100-heldout33, h100-heldout34, h100-heldout35 and h100-lonesplit, h100-rerun25 (lonesplit, heldout35, heldout34), h100-splitgap, h100-combinel2, h100-gapstate (cold, hot, idle), h100-combinewave, h100-combinedim, h100-widesplit (widegroup, widecheck, wideprobe), h100-x256check, h100-heldout36, h100-rerun26 (x256check, widesplit's three, heldout36), h100-quanth100 (quant-0, quant3, quant6), h100-quanth100b (quant-1), h100-quanth100c (quant5, fp8mm14, quant2); h200-heldout33, h200-heldout36, h200-heldout35 and h200-x256check (checks37).
  CHECK(suites == 134);
  CHECK(steps == 42);
  CHECK(raws == 9);  // h100power/power-raw.json: the H100's power section (calibrate --on-gpu --only power)
  CHECK(eager == 2);
  CHECK(probes == 16);  // h200-hostlease start / end and walls-first start, h200-heldout32 start / end / gpt2,
                        // h100-probe5's ten (start.1-5, end.1-5)
  // The backend's self-test output is not a versioned result file.
  const std::string selftest = results("h200/selftest.json");
  CHECK(error_of([&] { read_kernel_suite(selftest); }) ==
        selftest + ":1:1: schema_version: missing required field 'schema_version'");
}

// Opt-in calibrations kept beside their data (validation/results/*/*.calibration*.yaml) are whole
// files that a reader can pass to --calibration: when a key becomes required beside another
// (fp8_row_l2_tile_rate with the cap, 2026-12-02), each must still load.
TEST_CASE("every committed calibration file loads") {
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(results(""))) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".yaml" || name.find("calibration") == std::string::npos) continue;
    CAPTURE(e.path().string());
    CHECK_NOTHROW((void)load_calibration(e.path().string()));
    ++files;
  }
  CHECK(files >= 19);
}

TEST_CASE("the committed H200 suite keeps its numbers") {
  const KernelSuite s = read_kernel_suite(results("h200/kernels.json"));
  REQUIRE(s.cases.size() == 361);
  CHECK(s.cases[0].name == "add_bf16_1x4096_8KiB");
  CHECK(*s.cases[0].measured_s == 1.03004801e-06);
  CHECK(s.cases[0].kernel->rotated_bytes == 24576000);
  CHECK(s.card.empty());  // written before meta.card was recorded
}

TEST_CASE("raw_calibration_json writes what load_raw_calibration reads: every committed raw file round-trips") {
  for (const char* name : {"calibration-raw.json", "calibration-chains-raw.json", "calibration-power-raw.json",
                           "calibration-attention-raw.json", "calibration-l2-raw.json", "calibration-eager-raw.json",
                           "calibration-switch-raw.json"}) {
    CAPTURE(name);
    const RawCalibration a = load_raw_calibration(results(std::string("h200/") + name));
    const RawCalibration b = parse_raw_calibration(raw_calibration_json(a), name);
    CHECK(b.device_name == a.device_name);
    CHECK(b.driver == a.driver);
    CHECK(b.host_launch_s == a.host_launch_s);
    CHECK(b.kernel_floor_s == a.kernel_floor_s);
    REQUIRE(b.points.size() == a.points.size());
    for (size_t i = 0; i < a.points.size(); ++i) {
      const RawPoint &x = a.points[i], &y = b.points[i];
      CHECK(y.what == x.what);
      CHECK(y.dtype == x.dtype);
      CHECK((y.m == x.m && y.n == x.n && y.k == x.k && y.batch == x.batch && y.heads == x.heads));
      CHECK((y.kv_heads == x.kv_heads && y.q_len == x.q_len && y.kv_len == x.kv_len && y.head_dim == x.head_dim));
      CHECK((y.bytes == x.bytes && y.flops == x.flops && y.seconds == x.seconds && y.alone_s == x.alone_s));
      CHECK((y.kernels == x.kernels && y.burst_seconds == x.burst_seconds && y.clock_mhz == x.clock_mhz));
      CHECK((y.burst_clock_mhz == x.burst_clock_mhz && y.power_w == x.power_w && y.idle_power_w == x.idle_power_w));
      CHECK(y.power_limit_w == x.power_limit_w);
      REQUIRE(y.kernel.has_value() == x.kernel.has_value());
      if (x.kernel) {
        CHECK(y.kernel->kernel == x.kernel->kernel);
        CHECK((y.kernel->rows == x.kernel->rows && y.kernel->cols == x.kernel->cols));
        CHECK(y.kernel->l2_resident == x.kernel->l2_resident);
        CHECK(y.kernel->rotated_bytes == x.kernel->rotated_bytes);
      }
    }
  }
}
