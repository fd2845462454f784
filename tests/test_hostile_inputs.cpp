// Hostile and extreme loader inputs (issue 14's review): every one is refused with a ConfigError
// that names the file, the line and the field, never a crash, a hang, an inf or a silent default.
// Each case edits one line of a valid fixture, so the rest of the file is known to load.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "perfmodel/calibration.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/errors.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace perfmodel;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `base` with the first line that starts with `prefix` replaced by `line`; written to a fresh
// file whose path is returned.
std::string variant(const std::string& base, const std::string& prefix, const std::string& line,
                    const std::string& ext = ".yaml") {
  static int counter = 0;
  std::istringstream in(read(base));
  std::string out, l;
  bool done = false;
  while (std::getline(in, l)) {
    if (!done && l.rfind(prefix, 0) == 0) {
      out += line + "\n";
      done = true;
    } else {
      out += l + "\n";
    }
  }
  REQUIRE_MESSAGE(done, "no line starts with '" << prefix << "' in " << base);
  const fs::path dir = fs::path(PERFMODEL_TEST_TMP) / ("hostile_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / ("v" + std::to_string(counter++) + ext)).string();
  std::ofstream(path) << out;
  return path;
}

// The 1-based line of the first line that starts with `prefix` in `file`.
int line_of(const std::string& file, const std::string& prefix) {
  std::istringstream in(read(file));
  std::string l;
  for (int n = 1; std::getline(in, l); ++n)
    if (l.rfind(prefix, 0) == 0) return n;
  return 0;
}

// The last line of a replacement (a case may add a line after the one it replaces).
std::string last_line(const std::string& text) { return text.substr(text.rfind('\n') + 1); }

template <typename Load>
std::string refused(const std::string& file, Load load) {
  try {
    (void)load(file);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("expected a ConfigError from " << file << ":\n" << read(file));
  return "";
}

const std::string kCard = test::data("card-base.yaml");
const std::string kModel = test::root() + "/models/qwen2.5-0.5b.yaml";
const std::string kCalibration = test::data("calibration/a100-test.calibration.yaml");

// One line of `base` replaced; `load` must refuse it with an error naming file:line and `field`.
template <typename Load>
void expect_refused(const std::string& base, Load load, const std::string& prefix, const std::string& line,
                    const std::string& field) {
  const std::string f = variant(base, prefix, line);
  const std::string what = refused(f, load);
  CAPTURE(line);
  CAPTURE(what);
  CHECK(test::contains(what, f + ":" + std::to_string(line_of(f, last_line(line))) + ":"));
  CHECK(test::contains(what, field));
}

void expect_card_refused(const std::string& prefix, const std::string& line, const std::string& field) {
  expect_refused(kCard, load_card_file, prefix, line, field);
}
void expect_model_refused(const std::string& prefix, const std::string& line, const std::string& field) {
  expect_refused(kModel, load_model_file, prefix, line, field);
}
void expect_calibration_refused(const std::string& prefix, const std::string& line, const std::string& field) {
  expect_refused(kCalibration, load_calibration, prefix, line, field);
}

}  // namespace

TEST_CASE("card counts that crashed or hung are refused at their line") {
  expect_card_refused("sm_count:", "sm_count: 4294967296", "sm_count");   // SIGFPE: int gave 0 SMs
  expect_card_refused("sm_count:", "sm_count: 2147483648", "sm_count");   // SIGSEGV
  expect_card_refused("sm_count:", "sm_count: 2000000000", "sm_count");   // 70 s, 17 GB
  expect_card_refused("sm_count:", "sm_count: 99999999999999999999", "sm_count");  // past int64
  expect_card_refused("  warp_size:", "  warp_size: 2147483647", "sm_limits.warp_size");  // signed overflow
  expect_card_refused("  registers_per_sm:", "  registers_per_sm: 4294967297", "registers_per_sm");
  expect_card_refused("  tensor_cores:", "  tensor_cores: 4294967300", "tensor_cores");
}

TEST_CASE("card quantities that overflow or are absurd once their unit is applied are refused") {
  expect_card_refused("  capacity:", "  capacity: 1e308 GiB", "memory.capacity");  // was: batch -9.2e18
  expect_card_refused("  capacity:", "  capacity: 1e300 GiB", "memory.capacity");
  expect_card_refused("  bf16: 312", "  bf16: 1e308 TFLOP/s", "peaks.bf16");
  expect_card_refused("  bf16: 312", "  bf16: inf TFLOP/s", "peaks.bf16");
  expect_card_refused("  bf16: 312", "  bf16: nan TFLOP/s", "peaks.bf16");
  expect_card_refused("  tensor:", "  tensor: 1e30 MHz", "clocks.tensor");
  expect_card_refused("  l2:", "  l2: 1e20 GiB", "memory.l2");
  expect_card_refused("launch_overhead:", "launch_overhead: 1e9 s", "launch_overhead");
  expect_card_refused("  bf16: 256", "  bf16: 1e300", "tensor_fma_per_clock.bf16");
  expect_card_refused("  bf16: 256", "  bf16: inf", "tensor_fma_per_clock.bf16");
}

TEST_CASE("keys that are sequences or maps, and duplicate keys, are refused at their line") {
  expect_card_refused("sm_count:", "[sm_count, x]: 108", "single name");
  expect_card_refused("sm_count:", "{a: 1}: 108", "single name");
  // Duplicates: yaml-cpp keeps the first, Python's json (and transformers) the last; refuse.
  expect_card_refused("vendor:", "name: Other", "duplicate key 'name'");
  expect_model_refused("head_dim:", "hidden_size: 1024", "duplicate key 'hidden_size'");
  {
    const std::string f = variant(test::data("hf/qwen2.json"), "  \"hidden_act\"", "  \"hidden_act\": \"silu\", \"hidden_act\": \"gelu\",", ".json");
    CHECK(test::contains(refused(f, load_model_file), "duplicate key 'hidden_act'"));
  }
}

TEST_CASE("model sizes and names out of range are refused at their line") {
  expect_model_refused("architecture:", "architecture: banana", "unknown architecture 'banana'");
  expect_model_refused("num_hidden_layers:", "num_hidden_layers: 2000000000000", "num_hidden_layers");
  expect_model_refused("hidden_size:", "hidden_size: 9223372036854775807", "hidden_size");
  expect_model_refused("vocab_size:", "vocab_size: 99999999999999999999", "vocab_size");
  // Stored as int: 2^32 + 2 used to wrap to 2 and pass the "2 or 4" check.
  expect_model_refused("norms_per_layer:", "norms_per_layer: 4294967298", "norms_per_layer");
  expect_model_refused("sliding_window:", "sliding_window: -1", "sliding_window");
}

TEST_CASE("an HF config whose hidden size does not split over its heads needs head_dim") {
  const std::string f = variant(test::data("hf/qwen2.json"), "  \"hidden_size\"", "  \"hidden_size\": 4097,", ".json");
  const std::string what = refused(f, load_model_file);
  CAPTURE(what);
  CHECK(test::contains(what, f + ":"));
  CHECK(test::contains(what, "hidden_size"));
  CHECK(test::contains(what, "head_dim"));
}

TEST_CASE("a sliding-window model with 1e6 layers prices its KV in closed form, as the loop did") {
  Model m = load_model_file(kModel);
  m.sliding_window = 100;
  for (WindowPattern p : {WindowPattern::all, WindowPattern::alternate}) {
    m.window_pattern = p;
    for (int64_t layers : {1, 2, 7, 24}) {
      m.layers = layers;
      for (int64_t ctx : {1, 99, 100, 101, 5000}) {
        double loop = 0;
        for (int64_t l = 0; l < layers; ++l) loop += static_cast<double>(m.kv_tokens(l, ctx));
        CHECK(m.kv_tokens_all_layers(ctx) == loop);
      }
    }
  }
  m.layers = 1000000;
  m.window_pattern = WindowPattern::alternate;
  // 500000 local layers at 100 tokens, 500000 global at 1e12.
  CHECK(m.kv_tokens_all_layers(1000000000000) == test::approx(5e5 * 100 + 5e5 * 1e12));
}

TEST_CASE("calibration values out of range, infinite or not numbers are refused at their line") {
  expect_calibration_refused("kernel_floor:", "kernel_floor: 3 us\ndecode_cpi: inf", "decode_cpi");
  expect_calibration_refused("kernel_floor:", "kernel_floor: 3 us\ndecode_cpi: .inf", "decode_cpi");
  expect_calibration_refused("kernel_floor:", "kernel_floor: 3 us\ndecode_cpi: nan", "decode_cpi");
  expect_calibration_refused("gemm_stream_efficiency:", "gemm_stream_efficiency: 50", "gemm_stream_efficiency");
  expect_calibration_refused("kernel_floor:", "kernel_floor: 3 us\nsustained_clock_scale: -0.5", "sustained_clock_scale");
  expect_calibration_refused("dram_bandwidth:", "dram_bandwidth: 1e308 TB/s", "dram_bandwidth");
  expect_calibration_refused("  bf16:", "  bf16: 1e300 TFLOP/s", "gemm_peak.bf16");
  expect_calibration_refused("kernel_floor:", "kernel_floor: 1e6 s", "kernel_floor");
}

TEST_CASE("a calibration's bands measured on a sibling card are checked as its own bands are") {
  const std::string head = "kernel_floor: 3 us\nsibling_error_bands:\n  h100-sxm:\n    fused:\n";
  expect_calibration_refused("kernel_floor:", head + "      gemm: {p10: 0.2, p90: 0.1}", "p10");
  expect_calibration_refused("kernel_floor:", head + "      gemm: {p10: -0.1, p90: inf}", "p90");
  expect_calibration_refused("kernel_floor:", head + "      fastest: {p10: -0.1, p90: 0.1}", "fastest");
  expect_calibration_refused("kernel_floor:", "kernel_floor: 3 us\nsibling_error_bands:\n  h100-sxm:\n    quick: {gemm: {p10: 0, p90: 0.1}}",
                             "quick");
}

TEST_CASE("a calibration without its required roofs is never written") {
  Calibration c = load_calibration(kCalibration);
  CHECK_NOTHROW((void)to_yaml(c));
  Calibration no_bw = c;
  no_bw.dram_bandwidth = 0;
  CHECK_THROWS_AS((void)to_yaml(no_bw), InputError);
  Calibration no_floor = c;
  no_floor.kernel_floor_s = 0;
  CHECK_THROWS_AS((void)to_yaml(no_floor), InputError);
}

TEST_CASE("a directory or an over-long path is one ConfigError naming it") {
  const std::string dir = test::data("hf");
  CHECK(test::contains(refused(dir, load_card_file), dir + ": is a directory"));
  CHECK(test::contains(refused(dir, load_calibration), "is a directory"));
  const std::string long_name = "/tmp/" + std::string(300, 'a') + ".yaml";
  CHECK(test::contains(refused(long_name, load_card_file), long_name));
  CHECK(test::contains(refused(long_name, load_model_file), long_name));
}
