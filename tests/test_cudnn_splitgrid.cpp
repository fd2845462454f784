// Branch splitgrid (issue 10): cuDNN's unmasked decode split as eager transformers calls it (PyTorch's SDPA with
// enable_gqa). validation/results/h200-splitgrid holds 34 traced grids over 1-16 (sequence, KV head) units and
// 640-131072 keys at head dims 64 / 128 / 256: the split count is the masked graph call's (decode_split.hpp), at
// most 64, and lean_reduction's time grows by a partial row a split. The eager pricing takes both
// (attention_decode_cudnn.cpp); tests/test_cudnn_split.cpp guards the graph calls.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "../lib/src/kernels/decode_split.hpp"
#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Grid {
  int64_t batch, heads, kv_heads, kv_len, head_dim, grid_x;
  double merge_us;  // lean_reduction's median traced time
};

std::vector<Grid> grids() {
  std::ifstream in(test::root() + "/validation/results/h200-splitgrid/splitgrid.jsonl");
  std::vector<Grid> out;
  for (std::string line; std::getline(in, line);) {
    const YAML::Node r = YAML::Load(line);
    if (r["kind"].as<std::string>() != "sdpa" || !r["trace"]) continue;
    Grid g{r["batch"].as<int64_t>(), r["heads"].as<int64_t>(), r["kv_heads"].as<int64_t>(), r["kv_len"].as<int64_t>(),
           r["head_dim"].as<int64_t>(), 0, 0};
    std::vector<double> merges;
    for (const YAML::Node& k : r["trace"]) {
      const std::string name = k[0].as<std::string>();
      if (name.find("sdpa") != std::string::npos) g.grid_x = k[2][0].as<int64_t>();
      if (name.find("lean_reduction") != std::string::npos) merges.push_back(k[1].as<double>());
    }
    g.merge_us = merges.empty() ? 0 : quantile(merges, 0.5);
    out.push_back(g);
  }
  return out;
}

}  // namespace

TEST_CASE("cuDNN's unmasked decode split count is the graph call's, at most 64 (h200-splitgrid's 34 grids)") {
  const std::vector<Grid> all = grids();
  REQUIRE(all.size() == 34);
  int capped = 0;
  for (const Grid& g : all) {
    CAPTURE(g.batch);
    CAPTURE(g.heads);
    CAPTURE(g.kv_heads);
    CAPTURE(g.kv_len);
    CAPTURE(g.head_dim);
    const int64_t units = g.batch * g.kv_heads;  // every group here fits one 16-row tile
    const int64_t splits = cudnn_graph_splits(g.kv_len, units, 132);
    CHECK(g.grid_x == splits * (g.head_dim >= 256 ? 2 : 1));  // head dim 256: two CTAs a split
    CHECK(g.merge_us > 0);
    if (splits == kMaxSplits && units * splits * 2 <= 2 * 132 && g.kv_len / 128 >= 2 * kMaxSplits) ++capped;
  }
  CHECK(capped == 3);  // the cap, not the slots or the tiles, sets these: 1-2 units over 25000-110000 keys
}

TEST_CASE("lean_reduction's time: 1.68 us and 33 ns a split (the traced kernels, head dims 64 and 128)") {
  std::vector<double> residual;
  for (const Grid& g : grids()) {
    if (g.head_dim > 128) continue;
    residual.push_back(std::fabs(g.merge_us - (1.68 + 0.033 * static_cast<double>(g.grid_x))));
  }
  REQUIRE(residual.size() == 28);
  CAPTURE(quantile(residual, 0.5));
  CHECK(quantile(residual, 0.5) <= 0.1);  // us
  CHECK(quantile(residual, 1.0) <= 0.45);
}

// The merge priced by attention_decode_cudnn.cpp: the fixed parts of a split call that name it (its floor, a split's
// partial row, a query row's CTA), the floor as the kernel alone (less the idle a graph holds after it).
double priced_merge_us(const Roofs& r, int64_t batch, int64_t heads, int64_t kv_heads, int64_t keys, int64_t head_dim) {
  const Op op = ops::attention_decode_cudnn("a", batch, heads, kv_heads, keys, head_dim, DType::bf16, DType::bf16);
  double s = 0;
  for (const FixedPart& p : price(op, r, Impl::fused).fixed_parts)
    if (p.what.find("merge") != std::string::npos) s += p.seconds;
  return s * 1e6;
}

TEST_CASE("lean_reduction's CTAs: one a query row, about 1 ns each (the merges of two H100 leases)") {
  // kMergePerRow was fitted on h200-splitgrid's head-dim 64 / 128 merges (12-256 rows) alone. h100-widesplit traced
  // the merge of 20 wide-group split calls (32-960 rows, 4-64 splits, head dims 64-256) on an H100, the H200's die:
  // priced with 1.68 us and 33 ns a split alone they were 20.2 / 33.0 % short (median / p90), 4 splits over 480 ->
  // 960 rows 2.26 -> 2.78 us where that price stays 1.81.
  const Card card = test::catalogue().card("h100-sxm");
  static const Calibration cal = *sibling_calibration(test::catalogue(), card);
  const Roofs r = make_roofs(card, &cal, Impl::eager);
  std::vector<double> err;
  std::vector<double> wide;  // the merges after the x256 kernel (head dims past 128)
  // Two leases: h100-widesplit and h100-x256check, then the same scripts again on h100-rerun26.
  for (const char* set : {"h100-widesplit/widegroup", "h100-widesplit/widecheck", "h100-widesplit/wideprobe",
                          "h100-x256check/x256check", "h100-rerun26/widesplit/widegroup",
                          "h100-rerun26/widesplit/widecheck", "h100-rerun26/widesplit/wideprobe",
                          "h100-rerun26/x256check/x256check"}) {
    const std::string dir = test::root() + "/validation/results/" + set;
    Measurements m;
    load_measurements(dir + "/kernels.json", m);
    std::map<std::string, KernelCase> by_name;
    for (const MeasuredCase& c : m.cases) by_name[c.kernel.name] = c.kernel;
    std::ifstream f(dir + "/kernel_split.json");
    const nlohmann::json doc = nlohmann::json::parse(f);  // kept: a range-for does not extend parse()'s temporary
    for (const auto& p : doc.at("profiles")) {
      const auto& times = p.at("kernel_times_us");  // [split kernel, merge] when split
      if (times.size() != 2 || p.at("name").get<std::string>().find("cudnn") == std::string::npos) continue;
      const KernelCase& k = by_name.at(p.at("name").get<std::string>());
      CAPTURE(k.name);
      const double merge_us = times[1][1].get<double>();
      REQUIRE(times[1][0].get<std::string>().find("lean_reduction") != std::string::npos);
      const double e = std::fabs(priced_merge_us(r, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim) / merge_us - 1);
      (k.head_dim > 128 ? wide : err).push_back(e);
    }
  }
  REQUIRE(err.size() == 52);
  REQUIRE(wide.size() == 24);
  CAPTURE(quantile(err, 0.5));
  CAPTURE(quantile(err, 0.9));
  CAPTURE(quantile(wide, 0.5));
  CHECK(quantile(err, 0.5) <= 0.05);
  CHECK(quantile(err, 0.9) <= 0.12);
  CHECK(quantile(wide, 0.5) <= 0.12);  // 5.8 %: kWideMerge, fitted on h200-splitgrid's six (23.1 / 34.2 % without it)
  // The rows, not the splits: 4 splits over 960 rows cost more than over 480.
  CHECK(priced_merge_us(r, 60, 16, 1, 1500, 64) > priced_merge_us(r, 60, 8, 1, 1500, 64) + 0.4);
}

TEST_CASE("the eager split calls held out of every fit, priced with cuDNN's count, waves and merge") {
  // Every committed torch.sdpa.cudnn decode call that splits, odd index of the fit sets and every case of the
  // others (validation/scripts/production/decodeknee.py's halves). With the resident slots' count, all at once
  // and a constant merge: 3.6 / 11.4 % over these calls (decodeknee.py with branch decodeknee's constants); with
  // them 4.1 / 9.3 %: the tail closes (d 256 in two waves, short per-split walks), the median moves half a point.
  static const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  Roofs r = make_roofs(test::catalogue().card("h200"), &cal, Impl::eager);
  r.harness_idle_s = 0;  // single-call harness times, as the floors were fitted
  const char* fit_sets[] = {"h200-production", "h200-cudnn-decode", "h200-heldout16"};
  const char* sets[] = {"h200-production", "h200-production-repeat", "h200-cudnn-decode", "h200-heldout16",
                        "h200-heldout17", "h200-heldout18", "h200-heldout19", "h200-heldout20", "h200-heldout21",
                        "h200-heldout22", "h200-heldout23", "h200-heldout24", "h200-decodeknee", "h200-decodeocc"};
  std::vector<double> held;
  for (const char* set : sets) {
    Measurements m;
    load_measurements(test::root() + "/validation/results/" + set + "/kernels.json", m);
    const bool fit_set = std::find(std::begin(fit_sets), std::end(fit_sets), std::string(set)) != std::end(fit_sets);
    for (const MeasuredCase& c : m.cases) {
      if (c.implementation != "torch.sdpa.cudnn" || c.kernel.kernel != KernelId::attention_decode) continue;
      if (fit_set && c.index % 2 == 0) continue;
      const KernelCase& k = c.kernel;
      const int64_t units = k.batch * k.kv_heads * ((k.heads / k.kv_heads + 15) / 16);
      if (2 * units > 132 || (k.kv_len + 127) / 128 < 5) continue;  // not split
      const Op op = ops::attention_decode_cudnn(k.name, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim, k.dtype, k.dtype);
      held.push_back(std::fabs(price(op, r, Impl::fused).time_s / c.measured_s - 1));
    }
  }
  REQUIRE(held.size() == 66);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.045);
  CHECK(quantile(held, 0.9) <= 0.095);
}

TEST_CASE("splitgrid's check: 43 split calls prepared before their run (h200-splitcheck), nothing fitted") {
  static const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  Roofs r = make_roofs(test::catalogue().card("h200"), &cal, Impl::eager);
  r.harness_idle_s = 0;  // single-call harness times, as the floors were fitted
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-splitcheck/kernels.json", m);
  std::vector<double> all, d256;
  for (const MeasuredCase& c : m.cases) {
    const KernelCase& k = c.kernel;
    const Op op = ops::attention_decode_cudnn(k.name, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim, k.dtype, k.dtype);
    const double e = std::fabs(price(op, r, Impl::fused).time_s / c.measured_s - 1);
    all.push_back(e);
    if (k.head_dim == 256) d256.push_back(e);
  }
  REQUIRE(all.size() == 43);
  REQUIRE(d256.size() == 10);
  CAPTURE(quantile(all, 0.5));
  CAPTURE(quantile(all, 0.9));
  CAPTURE(quantile(d256, 0.5));
  // Achieved (decodeknee.py's replica): 3.7 / 9.7 %; with the resident slots' count and a constant merge 3.6 / 20.2 %
  // (head dim 256 -2 to -31 %, one unit over 20000-70000 keys -17 / -20 %). Left: two to four units of short walks at
  // head dim 128 (b2-b4 over 700-1500 keys) priced 8-12 % fast.
  CHECK(quantile(all, 0.5) <= 0.045);
  CHECK(quantile(all, 0.9) <= 0.11);
  CHECK(quantile(d256, 0.5) <= 0.10);
}
