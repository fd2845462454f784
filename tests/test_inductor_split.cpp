// Branch splitred (issue 10): Inductor's split row reductions, kernel by kernel
// (lib/src/cost/inductor_split.cpp; validation/results/h200-splitred).
// - split_probe.jsonl (first device call): 60 calls, rms_norm / softmax / layer_norm at 4-250 rows x
//   9216-45056 columns; fit_split.py fitted the two issue shares on its EVEN calls (by kernel, rows,
//   cols); the odd ones are held out here.
// - split_probe2.jsonl (second call, another lease, after the fit): 126 calls at 2-263 rows x
//   8320-65536 columns; split_probe_repeat.jsonl: the first grid again on that lease. Held out.
// The counts come from each partial kernel's grid (rows x splits CTAs, XBLOCK 1).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "../lib/src/cost/inductor_split.hpp"
#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

std::vector<YAML::Node> probe(const std::string& file) {
  std::vector<YAML::Node> out;
  std::ifstream in(test::root() + "/validation/results/h200-splitred/" + file);
  for (std::string line; std::getline(in, line);) {
    const YAML::Node r = YAML::Load(line);
    if (r["kernels"]) out.push_back(r);
  }
  return out;
}

const Calibration& cal() {
  static const Calibration c = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return c;
}

Roofs compiled() { return make_roofs(test::catalogue().card("h200"), &cal(), Impl::compiled); }

Op row_op(const std::string& kernel, int64_t rows, int64_t cols) {
  if (kernel == "softmax_fused") return ops::softmax("s", rows, cols, DType::bf16, true);
  if (kernel == "layernorm") return ops::layernorm("l", rows, cols, DType::bf16, false);
  return ops::rmsnorm("r", rows, cols, DType::bf16, false);
}

// |predicted / measured - 1| of the compiled profile's torch.compile calls of a suite, optionally
// only the calls whose name is in `names`.
std::vector<double> errors(const std::string& suite, const std::vector<std::string>& names = {}) {
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-splitred/" + suite, m);
  std::vector<double> out;
  for (const ProfileCaseError& c : evaluate_profiles(m, test::catalogue().card("h200"), &cal()))
    if (c.profile == Impl::compiled &&
        (names.empty() || std::find(names.begin(), names.end(), c.error.name) != names.end()))
      out.push_back(std::fabs(c.error.error));
  return out;
}

}  // namespace

TEST_CASE("Inductor's split count is read off every probe call's partial grid") {
  const Roofs r = compiled();
  int calls = 0;
  for (const char* file : {"split_probe.jsonl", "split_probe2.jsonl", "split_probe_repeat.jsonl"})
    for (const YAML::Node& c : probe(file)) {
      const int64_t rows = c["rows"].as<int64_t>(), cols = c["cols"].as<int64_t>();
      const std::string kernel = c["kernel"].as<std::string>();
      CAPTURE(kernel);
      CAPTURE(rows);
      CAPTURE(cols);
      const int64_t grid = c["kernels"][0]["grid"][0].as<int64_t>();
      CHECK(inductor_splits(row_op(kernel, rows, cols), r) == grid / rows);
      // three kernels (partial, combine, normalize); softmax two partial + combine pairs
      CHECK(c["kernels_per_call"].as<int>() == (kernel == "softmax_fused" ? 5 : 3));
      ++calls;
    }
  CHECK(calls == 246);
  // 264 rows fill two SMs' worth: not split; 8192 columns: not split.
  CHECK(inductor_splits(row_op("rmsnorm", 264, 65536), r) == 1);
  CHECK(inductor_splits(row_op("softmax_fused", 100, 8192), r) == 1);
}

TEST_CASE("the split's combine is one floor and one round trip (0.90-1.18 us traced, median 1.06)") {
  std::vector<double> combine;
  for (const YAML::Node& c : probe("split_probe.jsonl")) combine.push_back(c["kernels"][1]["us"].as<double>());
  const Roofs r = compiled();
  const double priced = (std::max(0.0, r.kernel_floor_s - r.harness_idle_s) + r.pass_latency_s) * 1e6;
  CHECK(priced == test::approx(quantile(combine, 0.5)).epsilon(0.10));  // 0.96 us priced
}

TEST_CASE("softmax's split partials issue a share of the whole kernel (h200-splitred)") {
  // The old split priced each partial at the whole softmax kernel's rate: +89 % at 250 x 28672 and
  // +39 % over the first grid's aligned softmax calls on average. 250 x 28672 is an even (fit) call;
  // 128 x 28672 is held out.
  CHECK(errors("kernels.json", {"compile_softmax_fused_bf16_250x28672"}).at(0) < 0.10);
  CHECK(errors("kernels.json", {"compile_softmax_fused_bf16_128x28672"}).at(0) < 0.10);
  std::vector<std::string> aligned;
  for (const char* shape : {"4x9216", "16x16384", "48x28672", "128x9216", "250x16384", "16x28672", "48x16384"})
    aligned.push_back(std::string("compile_softmax_fused_bf16_") + shape);
  CHECK(quantile(errors("kernels.json", aligned), 0.5) < 0.06);
}

TEST_CASE("split calls held out of the fit: the first grid's odd calls, the second lease's grids") {
  // fit_split.py: the odd calls of the first grid (by kernel, rows, cols).
  std::vector<std::string> odd;
  for (const char* k : {"layernorm", "rmsnorm", "softmax_fused"}) {
    std::vector<std::pair<int64_t, int64_t>> shapes;
    for (const YAML::Node& c : probe("split_probe.jsonl"))
      if (c["kernel"].as<std::string>() == k) shapes.emplace_back(c["rows"].as<int64_t>(), c["cols"].as<int64_t>());
    std::sort(shapes.begin(), shapes.end());
    for (size_t i = 1; i < shapes.size(); i += 2)
      odd.push_back(std::string("compile_") + k + "_bf16_" + std::to_string(shapes[i].first) + "x" +
                    std::to_string(shapes[i].second));
  }
  REQUIRE(odd.size() == 30);
  const std::vector<double> first = errors("kernels.json", odd);
  REQUIRE(first.size() == 30);
  MESSAGE("first grid, odd calls: median ", quantile(first, 0.5), ", p90 ", quantile(first, 0.9));
  CHECK(quantile(first, 0.5) <= 0.055);  // 5.4 % (main before: 8.9 %)
  CHECK(quantile(first, 0.9) <= 0.22);  // 21.9 % (34.7 %): the chunks that do not divide the row
  // The second lease ran ~10 % slower at the same kernels (split_probe_repeat: kernel sums within 1 %,
  // calls +0..+20 %; README): priced under, as main was, nearer.
  const std::vector<double> grid2 = errors("kernels_grid2.json"), repeat = errors("kernels_repeat.json");
  REQUIRE(grid2.size() == 126);
  MESSAGE("second lease: grid2 median ", quantile(grid2, 0.5), ", repeat median ", quantile(repeat, 0.5));
  CHECK(quantile(grid2, 0.5) <= 0.155);   // 15.4 % (main before: 19.6 %)
  CHECK(quantile(repeat, 0.5) <= 0.12);   // 11.9 % (17.5 %)
}
