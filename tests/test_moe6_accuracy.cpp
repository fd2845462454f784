// Issue 11: validation/results/h200-moe6 (validation/scripts/moe/run_moe6.py) against perfmodel.
// (a) torch._grouped_mm's pingpong kernel at r rows on every expert (eager profile): full cluster
//     pairs stream at grouped_mm_full_pair_stream, fitted on Mixtral's and Qwen3's gate_up at 128
//     rows (fit_grouped_mm.py); the other 20 cases held out;
// (b) the vLLM-style fused_moe GEMM over (N, K) at Mixtral decode T = 32 (fused profile; the per-CTA
//     term by the SM slots in use, half_line_stream refitted on h200-moe5's and h200-moe-fused2's
//     data by fit_fused_moe.py): all six held out.
// Bounds are the achieved figures (h200-moe6/README.md) with a little room.
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
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const YAML::Node& moe6() {
  static const YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-moe6/hf.json");
  return root;
}

Roofs roofs(Impl impl) {
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return make_roofs(test::catalogue().card("h200"), &cal, impl);
}

// r rows on each of E experts set by hand (the routing sweep's construction: r tokens each picking
// all E experts), so every expert's rows are exact.
Op pair_op(const YAML::Node& c) {
  const int64_t E = c["experts"].as<int64_t>(), r = c["rows_per_expert"].as<int64_t>();
  return ops::grouped_gemm(c["name"].as<std::string>(), r, E, E, c["n"].as<int64_t>(), c["k"].as<int64_t>(),
                           DType::bf16, DType::bf16, Precision::bf16);
}

}  // namespace

TEST_CASE("h200-moe6 torch._grouped_mm rows sweep: full cluster pairs stream faster") {
  const Roofs r = roofs(Impl::eager);
  REQUIRE(r.aten.grouped_mm_full_pair_stream > r.aten.grouped_mm_stream);
  std::vector<double> fit, held;
  std::map<std::string, std::map<int64_t, double>> measured, predicted;
  for (const auto& c : moe6()["pair_cases"]) {
    REQUIRE(c["ok"].as<bool>());
    CHECK(c["kernel_family"].as<std::string>() == "pingpong");
    const std::string name = c["name"].as<std::string>(), shape = c["shape"].as<std::string>();
    const int64_t rows = c["rows_per_expert"].as<int64_t>();
    const double t = price(pair_op(c), r, Impl::eager).device_time_s;
    measured[shape][rows] = c["median_s"].as<double>();
    predicted[shape][rows] = t;
    const bool in_fit = name == "pair6_mixtral_gate_up_r128" || name == "pair6_qwen3_gate_up_r128";
    (in_fit ? fit : held).push_back(std::fabs(t / c["median_s"].as<double>() - 1));
  }
  REQUIRE(fit.size() == 2);
  REQUIRE(held.size() == 20);
  // The mechanism in the data: at Mixtral's shapes (and both controls: the weight N-contiguous,
  // split into 64 experts) 128 rows run 1.10-1.29x faster than 64, the same CTA pairs with the
  // partner's rows out of bounds; the model says so too (1.28x).
  for (const char* shape : {"mixtral_gate_up", "mixtral_down", "mixtral_gate_up_nmajor", "mixtral_gate_up_split64"}) {
    CAPTURE(shape);
    CHECK(measured[shape][64] / measured[shape][128] > 1.08);
    CHECK(predicted[shape][64] / predicted[shape][128] > 1.08);
  }
  // Qwen3's gate_up (K = 2048) does not show it (within 3 % at 64 and 128 rows); the model prices
  // its 128 rows faster than 64 all the same (its partial pairs +19 %: what is left).
  CHECK(std::fabs(measured["qwen3_gate_up"][64] / measured["qwen3_gate_up"][128] - 1) < 0.03);
  CAPTURE(quantile(fit, 1.0));
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  // Achieved (fit_grouped_mm.py): fit 1.9 % max; held out 5.2 % median, 17.7 % p90 nearest rank
  // (13.2 % / 29.3 % without the full-pair stream). Left: Qwen3's partial pairs (8-65 rows) are
  // +12-20 %, priced by the decode-fitted two terms.
  CHECK(quantile(fit, 1.0) <= 0.025);
  CHECK(quantile(held, 0.5) <= 0.06);
  CHECK(quantile(held, 0.9) <= 0.19);
}

TEST_CASE("h200-moe6 fused_moe over (N, K): the per-CTA term by the SM slots in use") {
  const Roofs r = roofs(Impl::fused);
  REQUIRE(r.fused_moe.half_line_stream.has_value());
  std::vector<double> held;
  for (const auto& c : moe6()["fmoe_cases"]) {
    REQUIRE(c["ok"].as<bool>());
    if (c["variant"].as<std::string>() != "default") continue;
    const Op op = ops::grouped_gemm(c["name"].as<std::string>(), c["tokens"].as<int64_t>(), c["top_k"].as<int64_t>(),
                                    c["experts"].as<int64_t>(), c["n"].as<int64_t>(), c["k"].as<int64_t>(),
                                    DType::bf16, DType::bf16, Precision::bf16);
    held.push_back(std::fabs(price(op, r, Impl::fused).device_time_s / c["median_s"].as<double>() - 1));
  }
  REQUIRE(held.size() == 6);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 1.0));
  // Achieved (fit_fused_moe.py): 5.9 % median, 16.6 % max (Mixtral's w2 shape, ~4 CTAs an SM);
  // before, 3.0 % median and 27.4 % max (the per-CTA term in full at every occupancy).
  CHECK(quantile(held, 0.5) <= 0.065);
  CHECK(quantile(held, 1.0) <= 0.175);
}

TEST_CASE("h200-moe6 keys on a sibling card: the full-pair stream scales with DRAM") {
  const auto& cat = test::catalogue();
  const Calibration own = load_calibration(cat.calibration_path("h200"));
  const std::optional<Calibration> c = sibling_calibration(cat, cat.card("h100-sxm"));
  REQUIRE(c);
  const double dram = *c->read_bandwidth / *own.read_bandwidth;  // a stream keeps its share of the read rate
  int measured = 0;
  for (size_t i = 0; i < c->profiles.size(); ++i) {
    const ProfileCalibration &p = c->profiles[i], &o = own.profiles[i];
    if (o.aten.grouped_mm_full_pair_stream == 0) continue;
    ++measured;
    CHECK(p.aten.grouped_mm_full_pair_stream == test::approx(o.aten.grouped_mm_full_pair_stream * dram));
  }
  CHECK(measured >= 1);
}
