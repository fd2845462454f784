// Issue 11: validation/results/h200-moe5 (validation/scripts/moe/run_moe5.py) against perfmodel.
// (a) torch._grouped_mm at prefill T = 128-4096 (eager profile): GroupMM.cu's kernel rule, and
//     the two MMA shares fitted on Mixtral's T = 2048 cases (fit_grouped_mm.py), the rest held out;
// (b) the vLLM-style fused_moe GEMM at Mixtral decode (fused profile; fit_fused_moe.py fits
//     half_line_stream after its four parameters, on T = 32 and the fused2 layers; T = 16 and 64
//     held out);
// (c) the Triton MLA decode stand-in's split sweep (fused profile, nothing fitted).
// Bounds are the achieved figures (h200-moe5/README.md) with a little room.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <map>
#include <string>

#include "perfmodel/calibration.hpp"
#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "mla_stand_in.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const YAML::Node& moe5() {
  static const YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-moe5/hf.json");
  return root;
}

Roofs roofs(Impl impl) {
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return make_roofs(test::catalogue().card("h200"), &cal, impl);
}

// A case as an op. A random or skewed router's case is a step's op (T tokens, top-k, E experts:
// binomial rows per expert). A balanced case has exactly T k / E rows on every expert, set by
// hand as the routing sweep does (rows tokens, each picking all E experts). A forced-pingpong
// case's weight has extra experts without rows: GroupMM.cu's mean is the rows over all of them
// (128 here), so the op's routing fields say 128 tokens over `groups` experts each picking all
// of them (the mean the rule sees), while the E touched experts keep their exact rows.
Op grouped_op(const YAML::Node& c) {
  const std::string name = c["name"].as<std::string>();
  const int64_t T = c["tokens"].as<int64_t>(), k = c["top_k"].as<int64_t>(), E = c["experts"].as<int64_t>();
  const int64_t n = c["n"].as<int64_t>(), kd = c["k"].as<int64_t>();
  if (c["routing"].as<std::string>() != "balanced")
    return ops::grouped_gemm(name, T, k, E, n, kd, DType::bf16, DType::bf16, Precision::bf16);
  const int64_t rows = T * k / E;
  Op op = ops::grouped_gemm(name, rows, E, E, n, kd, DType::bf16, DType::bf16, Precision::bf16);
  if (c["forced_pingpong"].as<bool>()) {
    const int64_t groups = c["groups"].as<int64_t>();
    REQUIRE(rows * E == 128 * groups);
    op.moe = {128, groups, groups, op.moe.experts_touched};
  }
  return op;
}

struct Grouped {
  std::vector<double> share_fit, held, forced_held, uniform, skewed;
  int kernels = 0, kernels_matched = 0;
  Grouped() {
    const Roofs r = roofs(Impl::eager);
    for (const auto& c : moe5()["grouped_cases"]) {
      if (!c["ok"].as<bool>()) continue;
      const Op op = grouped_op(c);
      const OpCost cost = price(op, r, Impl::eager);
      // The kernel the model picks against the one torch.profiler named.
      ++kernels;
      const bool coop = c["kernel_family"].as<std::string>() == "cooperative";
      if (cost.tiling && cost.tiling->tile.name() == (coop ? "128x256" : "64x128")) ++kernels_matched;
      const double err = std::fabs(cost.device_time_s / c["median_s"].as<double>() - 1);
      const std::string routing = c["routing"].as<std::string>();
      if (routing != "balanced") {
        (routing == "uniform" ? uniform : skewed).push_back(err);
        continue;
      }
      const bool fit = c["model"].as<std::string>() == "mixtral-8x7b" && c["tokens"].as<int64_t>() == 2048;
      (fit ? share_fit : c["forced_pingpong"].as<bool>() ? forced_held : held).push_back(err);
    }
  }
};

}  // namespace

TEST_CASE("h200-moe5 torch._grouped_mm prefill: GroupMM.cu's kernel rule and the two kernels' MMA shares") {
  const Grouped g;
  REQUIRE(g.kernels == 66);
  // Every case ran the kernel the rule names (mean rows over ALL experts <= 128 or N <= 128:
  // pingpong 64 x 128, else cooperative 128 x 256), forced-pingpong cases included.
  CHECK(g.kernels_matched == g.kernels);
  REQUIRE(g.share_fit.size() == 4);
  REQUIRE(g.held.size() == 28);
  REQUIRE(g.forced_held.size() == 10);
  REQUIRE(g.uniform.size() == 12);
  REQUIRE(g.skewed.size() == 12);
  CAPTURE(quantile(g.share_fit, 0.5));
  CAPTURE(quantile(g.held, 0.5));
  CAPTURE(quantile(g.held, 0.9));
  CAPTURE(quantile(g.forced_held, 0.5));
  CAPTURE(quantile(g.forced_held, 0.9));
  CAPTURE(quantile(g.uniform, 0.5));
  CAPTURE(quantile(g.uniform, 0.9));
  CAPTURE(quantile(g.skewed, 0.5));
  // Achieved (fit_grouped_mm.py): fit 0.6 %; held out, balanced, 10.4 % median (14.4 % before:
  // one 64 x 128 kernel at the full peak), forced pingpong 2.1 % (15.9 % before, Mixtral -34 %).
  // Exactly 128 rows per expert were +25-35 % (Qwen3 T = 2048, Mixtral T = 512): since h200-moe6
  // a full cluster pair streams at grouped_mm_full_pair_stream, held out here 6.8 % median,
  // 14.5 % p90 interpolated (13.9 % nearest rank; 10.4 % / 26.1 % before).
  CHECK(quantile(g.share_fit, 0.5) <= 0.02);
  CHECK(quantile(g.held, 0.5) <= 0.075);
  CHECK(quantile(g.held, 0.9) <= 0.155);
  CHECK(quantile(g.forced_held, 0.5) <= 0.03);
  CHECK(quantile(g.forced_held, 0.9) <= 0.15);
  // A random router's routing priced as a step's op (binomial rows per expert): 8.1 % median,
  // 16.1 % p90 (11.6 % median with balanced rows); a skewed router's (more skew than binomial):
  // 13.6 % (16.4 %).
  CHECK(quantile(g.uniform, 0.5) <= 0.09);
  CHECK(quantile(g.uniform, 0.9) <= 0.18);
  CHECK(quantile(g.skewed, 0.5) <= 0.15);
}

TEST_CASE("h200-moe5 fused_moe at Mixtral decode: BLOCK_K 32 streams half lines") {
  const Roofs r = roofs(Impl::fused);
  REQUIRE(r.fused_moe.half_line_stream.has_value());
  CHECK(*r.fused_moe.half_line_stream < *r.fused_moe.stream);
  std::vector<double> fit, held;
  std::map<std::string, double> default_s, bk64_s;
  for (const auto& c : moe5()["fused_moe_cases"]) {
    if (!c["ok"].as<bool>()) continue;
    const std::string key = c["gemm"].as<std::string>() + std::to_string(c["tokens"].as<int64_t>());
    const std::string variant = c["variant"].as<std::string>();
    if (variant == "bk64") bk64_s[key] = c["median_s"].as<double>();
    if (variant != "default") continue;
    default_s[key] = c["median_s"].as<double>();
    const Op op = ops::grouped_gemm(c["name"].as<std::string>(), c["tokens"].as<int64_t>(), c["top_k"].as<int64_t>(),
                                    c["experts"].as<int64_t>(), c["n"].as<int64_t>(), c["k"].as<int64_t>(),
                                    DType::bf16, DType::bf16, Precision::bf16);
    const double err = std::fabs(price(op, r, Impl::fused).device_time_s / c["median_s"].as<double>() - 1);
    (c["tokens"].as<int64_t>() == 32 ? fit : held).push_back(err);
  }
  REQUIRE(fit.size() == 2);
  REQUIRE(held.size() == 4);
  // The mechanism in the data: the same kernel at BLOCK_K 64 is at least 1.35x faster everywhere.
  REQUIRE(bk64_s.size() == 6);
  for (const auto& [key, t] : default_s) CHECK(t / bk64_s.at(key) > 1.35);
  CAPTURE(quantile(fit, 0.5));
  CAPTURE(quantile(held, 0.5));
  // Achieved: fit 13.9 % (w13 -4.7 %, w2 +23.0 %), held out 14.9 % median, 22.8 % max; without
  // half_line_stream the four-parameter model gave w13 -28 .. -31 %, w2 -5 %. Since h200-moe6
  // (the per-CTA term by the SM slots in use, 8 an SM, half_line_stream refitted): fit 6.7 %
  // (w13 +0.8 %, w2 +12.6 %), held out 7.1 % median, 12.3 % max. Left: w2 (~4 CTAs an SM) +12 %.
  CHECK(quantile(fit, 0.5) <= 0.07);
  CHECK(quantile(held, 0.5) <= 0.075);
  CHECK(quantile(held, 1.0) <= 0.13);
}

TEST_CASE("h200-moe5 MLA stand-in split sweep: the combine's walk and the best split per point") {
  const Roofs r = roofs(Impl::fused);
  std::vector<double> lite, v3;
  mla_test::mla_errors(moe5(), r, lite, v3);
  REQUIRE(lite.size() == 16);
  CHECK(v3.empty());
  CAPTURE(quantile(lite, 0.5));
  // Achieved 14.5 % median over the best of three split counts (h200-moe-fused: 14.2 % over two).
  CHECK(quantile(lite, 0.5) <= 0.15);
  // The stand-in's combine alone at batch 1 (16 programs, each walking its splits serially): the
  // time per split between 128 and 512 splits is the fused profile's combine_per_split within 10 %.
  std::map<int64_t, double> combine;
  for (const auto& c : moe5()["mla_cases"])
    if (c["ok"].as<bool>() && c["batch"].as<int64_t>() == 1 && c["kv_len"].as<int64_t>() == 32768)
      combine[c["splits"].as<int64_t>()] = c["combine_median_s"].as<double>();
  REQUIRE(combine.count(128) == 1);
  REQUIRE(combine.count(512) == 1);
  const double per_split = (combine[512] - combine[128]) / (512 - 128);
  CHECK(per_split == test::approx(r.production_decode.combine_per_split_s).epsilon(0.10));
}

// Since the twenty-eighth session the half-line stream's shortfall against the full-line stream is the die's time per
// byte (calibration_transfer.cpp): the full-line part scales with the DRAM, the rest carries.
TEST_CASE("h200-moe5 keys on a sibling card: the half-line stream's DRAM part scales, the MMA shares carry") {
  const auto& cat = test::catalogue();
  const Calibration own = load_calibration(cat.calibration_path("h200"));
  const std::optional<Calibration> c = sibling_calibration(cat, cat.card("h100-sxm"));
  REQUIRE(c);
  REQUIRE(c->profiles.size() == own.profiles.size());
  const double dram = *c->read_bandwidth / *own.read_bandwidth;  // a stream keeps its share of the read rate
  CHECK(dram < 1);  // HBM3 against the H200's HBM3e
  int fused = 0;
  for (size_t i = 0; i < c->profiles.size(); ++i) {
    const ProfileCalibration &p = c->profiles[i], &o = own.profiles[i];
    CHECK(p.aten.grouped_mm_pingpong_mma_share == o.aten.grouped_mm_pingpong_mma_share);
    CHECK(p.aten.grouped_mm_cooperative_mma_share == o.aten.grouped_mm_cooperative_mma_share);
    if (!o.fused_moe.half_line_stream) continue;
    ++fused;
    REQUIRE(p.fused_moe.half_line_stream);
    REQUIRE(o.fused_moe.stream);
    const double die_per_byte = 1 / *o.fused_moe.half_line_stream - 1 / *o.fused_moe.stream;
    CHECK(die_per_byte > 0);
    CHECK(*p.fused_moe.half_line_stream == test::approx(1 / (1 / (*o.fused_moe.stream * dram) + die_per_byte)));
    // Slower than the source's (the DRAM part is), faster than the whole stream scaled with the DRAM.
    CHECK(*p.fused_moe.half_line_stream < *o.fused_moe.half_line_stream);
    CHECK(*p.fused_moe.half_line_stream > *o.fused_moe.half_line_stream * dram);
  }
  CHECK(fused == 1);
}
