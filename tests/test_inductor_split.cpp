// Branch splitred (issue 10): Inductor's split row reductions, kernel by kernel
// (lib/src/cost/inductor_split.cpp; validation/results/h200-splitred).
// - split_probe.jsonl (first device call): 60 calls, rms_norm / softmax / layer_norm at 4-250 rows x
//   9216-45056 columns; split_probe2.jsonl (second call, another lease): 126 calls at 2-263 rows x
//   8320-65536 columns; split_probe_repeat.jsonl: the first grid again on that lease.
// - h200-splitodd/split_probe3.jsonl (branch splitodd): 30 calls whose chunks do or do not divide the
//   row, of lengths a multiple of 16, of 8 only, even and odd.
// Branch splitodd's fit_split.py fitted its one number (split_ipc_cta) on the EVEN calls (by kernel,
// rows, cols) of the three grids; their odd calls and the repeat are held out here.
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

TEST_CASE("softmax's split partials: aligned chunks priced near their traces (h200-splitred)") {
  // The old split priced each partial at the whole softmax kernel's rate: +89 % at 250 x 28672 and
  // +39 % over the first grid's aligned softmax calls on average.
  CHECK(errors("kernels.json", {"compile_softmax_fused_bf16_250x28672"}).at(0) < 0.10);
  CHECK(errors("kernels.json", {"compile_softmax_fused_bf16_128x28672"}).at(0) < 0.10);
  std::vector<std::string> aligned;
  for (const char* shape : {"4x9216", "16x16384", "48x28672", "128x9216", "250x16384", "16x28672", "48x16384"})
    aligned.push_back(std::string("compile_softmax_fused_bf16_") + shape);
  CHECK(quantile(errors("kernels.json", aligned), 0.5) < 0.06);
}

TEST_CASE("a chunk that does not divide the row, or an odd chunk, issues more (h200-splitodd, Nsight Compute)") {
  // Same rows, same bytes within 0.1 %, one CTA an SM: 100360 / 13 (chunks of 7720 that divide the
  // row) against 100352 / 13 (ragged: the last chunk short, every load masked twice). Traced sums of
  // exps: 1.79 against 3.33 us; priced apart by the ragged class's instructions.
  const Roofs r = compiled();
  const double whole = price(row_op("softmax_fused", 8, 100360), r, Impl::compiled).time_s;
  const double ragged = price(row_op("softmax_fused", 8, 100352), r, Impl::compiled).time_s;
  CHECK(ragged > whole * 1.05);
  // 58408 / 8: odd chunks of 7301 that divide the row load 2 bytes at a time (0.033 load instructions
  // an element against 0.008 at 7720): priced over 100360's chunks at the same row count's bytes.
  const double odd = price(row_op("rmsnorm", 100, 58408), r, Impl::compiled).time_s / (100.0 * 58408);
  const double aligned = price(row_op("rmsnorm", 64, 100360), r, Impl::compiled).time_s / (64.0 * 100360);
  CHECK(odd > aligned);
  // probe3's calls: every one held out or fitted, median and worst.
  const std::vector<double> all = errors("../h200-splitodd/kernels3.json");
  REQUIRE(all.size() == 30);
  MESSAGE("split_probe3: median ", quantile(all, 0.5), ", max ", quantile(all, 1.0));
  CHECK(quantile(all, 0.5) <= 0.07);
  CHECK(quantile(all, 1.0) <= 0.19);
}

TEST_CASE("split calls held out of the fit: the odd calls of the three grids, the second lease's repeat") {
  auto odd_calls = [](const char* file) {  // fit_split.py's halves: the odd-indexed calls of each kernel
    std::vector<std::string> odd;
    for (const char* k : {"layernorm", "rmsnorm", "softmax_fused"}) {
      std::vector<std::pair<int64_t, int64_t>> shapes;
      for (const YAML::Node& c : probe(file))
        if (c["kernel"].as<std::string>() == k) shapes.emplace_back(c["rows"].as<int64_t>(), c["cols"].as<int64_t>());
      std::sort(shapes.begin(), shapes.end());
      for (size_t i = 1; i < shapes.size(); i += 2)
        odd.push_back(std::string("compile_") + k + "_bf16_" + std::to_string(shapes[i].first) + "x" +
                      std::to_string(shapes[i].second));
    }
    return odd;
  };
  const std::vector<double> first = errors("kernels.json", odd_calls("split_probe.jsonl"));
  REQUIRE(first.size() == 30);
  MESSAGE("first grid, odd calls: median ", quantile(first, 0.5), ", p90 ", quantile(first, 0.9));
  // splitodd: 5.9 / 17.5 % (splitred's two shares: 5.4 / 21.9 %; main before splitred: 8.9 / 34.7 %):
  // the median a half point over splitred's, the tail four points under it (the ragged odd chunks).
  CHECK(quantile(first, 0.5) <= 0.06);
  CHECK(quantile(first, 0.9) <= 0.18);
  // The second lease ran ~10 % slower at the same kernels (split_probe_repeat: kernel sums within 1 %,
  // calls +0..+20 %; README): priced under, as main was, nearer.
  const std::vector<double> grid2 = errors("kernels_grid2.json", odd_calls("split_probe2.jsonl"));
  const std::vector<double> repeat = errors("kernels_repeat.json");
  REQUIRE(grid2.size() == 63);
  MESSAGE("second lease: grid2 odd calls median ", quantile(grid2, 0.5), ", p90 ", quantile(grid2, 0.9),
          "; repeat median ", quantile(repeat, 0.5), ", p90 ", quantile(repeat, 0.9));
  CHECK(quantile(grid2, 0.5) <= 0.12);   // 11.1 % (splitred: 15.4 % over all 126)
  CHECK(quantile(grid2, 0.9) <= 0.20);   // 19.6 %
  CHECK(quantile(repeat, 0.5) <= 0.115);  // 10.9 % (splitred: 11.9 %)
  CHECK(quantile(repeat, 0.9) <= 0.22);   // 21.6 % (splitred: 25.2 %)
}

TEST_CASE("measured after the law landed: h200-afterfit28's split row ops at eight new shapes") {
  const std::vector<double> e = errors("../h200-afterfit28/kernels.json");
  REQUIRE(e.size() == 24);
  MESSAGE("afterfit28 compiled splits: median ", quantile(e, 0.5), ", p90 ", quantile(e, 0.9), ", max ", quantile(e, 1.0));
  CHECK(quantile(e, 0.5) <= 0.075);  // 7.0 %
  CHECK(quantile(e, 1.0) <= 0.17);   // 16.6 % (rms_norm 90 x 47000)
}
