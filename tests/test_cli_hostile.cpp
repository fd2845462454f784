// Hostile command lines and files through the CLI (issue 14's review): each is refused with exit
// 2 and one line on stderr naming the flag or the file, and never writes a result.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cli_support.hpp"

using namespace cli_test;

namespace {
std::string long_component() { return std::string(300, 'a'); }
}  // namespace

TEST_CASE("a tile that overflows or carries junk is refused (was SIGFPE)") {
  expect_input_error(cli("gemm --m 8 --n 8 --k 8 --tile 4294967296x4294967296"), {"--tile", "4294967296x4294967296"});
  expect_input_error(cli("gemm --m 8 --n 8 --k 8 --tile 256x128junk"), {"--tile", "256x128junk"});
  expect_input_error(cli("gemm --m 8 --n 8 --k 8 --tile 0x128"), {"--tile"});
  // A well-formed tile still prices.
  const Run ok = cli("gemm --m 8 --n 8 --k 8 --tile 64x64");
  SHOW(ok);
  CHECK(ok.rc == 0);
}

TEST_CASE("a positional argument is refused, not dropped") {
  // `decode llama3-8b` used to price the default model, Llama-2-7B.
  const Run r = cli("decode llama3-8b --card h100");
  expect_input_error(r, {"unexpected argument 'llama3-8b'"});
  CHECK(!test::contains(r.out, "Llama-2-7B"));
  expect_input_error(cli("gemm 8 --m 8 --n 8 --k 8"), {"unexpected argument '8'"});
}

TEST_CASE("negative and overflowing counts on the command line are refused") {
  expect_input_error(cli("sweep-batch --max-batch -5"), {"--max-batch"});
  expect_input_error(cli("occupancy --grid 9223372036854775807"), {"overflows"});
  expect_input_error(cli("gemm --m 9223372036854775807 --n 9223372036854775807 --k 8"), {"overflows"});
}

TEST_CASE("a value holding Boost's own placeholder is refused, not looped on (fuzz_cli timeout)") {
  // Boost 1.74 replaced '%value%' by a value containing '%value%' forever.
  expect_input_error(cli("sweep-batch --max-batch %value%x"), {"--max-batch", "%value%x"});
  expect_input_error(cli("decode --ctx %canonical_option%"), {"--ctx"});
}

TEST_CASE("a calibration measured on another card is refused, one of the same die carried") {
  expect_input_error(cli("decode --card t4 --calibration " + test::root() + "/hardware/h200.calibration.yaml"),
                     {"h200", "t4", "--calibration"});
  // Its own card takes it.
  const Run ok = cli("decode --card h200 --calibration " + test::root() + "/hardware/h200.calibration.yaml");
  SHOW(ok);
  CHECK(ok.rc == 0);
  // The H100 SXM is the H200's die: a lease's H200 file is carried as the committed one is, and priced alike.
  const std::string args = "decode --card h100-sxm --impl eager --format json --batch 4 --ctx 1000";
  const Run carried = cli(args + " --calibration " + test::root() + "/hardware/h200.calibration.yaml");
  const Run beside = cli(args);
  REQUIRE(carried.rc == 0);
  REQUIRE(beside.rc == 0);
  CHECK(carried.out.find(R"("calibration_card": "h200")") != std::string::npos);
  const auto step_time = [](const std::string& json) { return json.substr(json.find(R"("step")")).substr(0, 400); };
  CHECK(step_time(carried.out) == step_time(beside.out));
}

TEST_CASE("directories and over-long path components are named in one line") {
  const std::string dir = test::data("hf");
  expect_input_error(cli("decode --card " + dir + "/"), {"is a directory"});
  expect_input_error(cli("decode --model " + dir + "/x/" + long_component() + ".yaml"), {long_component()});
  expect_input_error(cli("decode --card /tmp/" + long_component() + ".yaml"), {long_component()});
  expect_input_error(cli("decode --card h200 --calibration " + dir), {"is a directory"});
}

TEST_CASE("calibrate --from-raw with no points writes nothing") {
  const fs::path raw = tmp_dir() / "empty-raw.json";
  const fs::path out = tmp_dir() / "empty.calibration.yaml";
  std::ofstream(raw) << "{\"schema_version\": 1, \"points\": []}\n";
  fs::remove(out);
  const Run r = cli("calibrate --card h200 --from-raw " + raw.string() + " --output " + out.string());
  SHOW(r);
  CHECK(r.rc == 2);
  CHECK(r.err_lines() == 1);
  CHECK(!fs::exists(out));
}

TEST_CASE("a huge model file is refused before any per-layer work") {
  const fs::path f = tmp_dir() / "huge.yaml";
  std::ifstream in(test::root() + "/models/gemma2-9b.yaml");
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  const size_t at = text.find("num_hidden_layers:");
  REQUIRE(at != std::string::npos);
  text.replace(at, text.find('\n', at) - at, "num_hidden_layers: 2000000000000");
  std::ofstream(f) << text;
  expect_input_error(cli("decode --model " + f.string()), {"num_hidden_layers", f.string() + ":"});
}

namespace {
// The three-case kernel file of the fuzz corpus with its first measured_s replaced by `value`.
fs::path kernels_with_measured(const std::string& value) {
  std::ifstream in(test::root() + "/fuzz/corpus/measurements/kernels-3.json");
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  const size_t at = text.find("\"measured_s\": ");
  REQUIRE(at != std::string::npos);
  const size_t start = at + 14, end = text.find(',', start);
  text.replace(start, end - start, value);
  const fs::path dir = tmp_dir() / ("measured-" + std::to_string(value.size()));
  fs::create_directories(dir);
  std::ofstream(dir / "kernels.json") << text;
  return dir;
}
}  // namespace

TEST_CASE("result files: a mistyped or infinite time and a point missing seconds name the file") {
  expect_input_error(cli("accuracy --card h200 --measured " + kernels_with_measured("\"abc\"").string()), {"kernels.json:"});
  expect_input_error(cli("accuracy --card h200 --measured " + kernels_with_measured(".inf").string()), {"kernels.json:", "measured_s"});
  const fs::path raw = tmp_dir() / "no-seconds-raw.json";
  std::ofstream(raw) << "{\"schema_version\": 1, \"points\": [{\"what\": \"copy\", \"bytes\": 1000}]}\n";
  expect_input_error(cli("calibrate --card h200 --from-raw " + raw.string() + " --output " + (tmp_dir() / "ns.yaml").string()),
                     {raw.string(), "seconds"});
}

TEST_CASE("a profile calibration's aten: and split_kv values are checked, file:line and key named") {
  std::ifstream in(test::root() + "/hardware/h200.calibration.yaml");
  std::ostringstream s;
  s << in.rdbuf();
  const std::string base = s.str();
  const std::pair<std::string, std::string> bad[] = {
      {"norm_ctas_per_sm: 16", "norm_ctas_per_sm: 0"},
      {"norm_overlap: 2.6", "norm_overlap: 0.5"},
      {"norm_issue_ipc: 3.5", "norm_issue_ipc: 5"},
      {"strided_elements_per_s: 3.5e11", "strided_elements_per_s: -3"},
      {"generic_operand_elements_per_s: 6.47e11", "generic_operand_elements_per_s: -1"},
      {"int8_cast_elements_per_s: 3.899e11", "int8_cast_elements_per_s: nan"},
      {"combine_per_split: 0.227 us", "split_kv: maybe\n      combine_per_split: 0.227 us"},
      {"softmax_reg_chain: 0.42 us", "softmax_reg_chain: 0.42 GB"},
      {"lone_pace: 1.537", "lone_pace: 3"},
      {"uneven_dim: 1.091", "uneven_dim: 0.9"}};
  int i = 0;
  for (const auto& [from, to] : bad) {
    std::string text = base;
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    const fs::path f = tmp_dir() / ("bad-profile-" + std::to_string(i++) + ".calibration.yaml");
    std::ofstream(f) << text;
    expect_input_error(cli("decode --card h200 --impl eager --calibration " + f.string()),
                       {f.string() + ":", to.substr(0, to.find(':'))});
  }
}
