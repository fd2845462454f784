// Issue 11: validation/results/h200-moe7 (validation/scripts/moe/run_moe7.py) against perfmodel.
// (a) torch._grouped_mm's pingpong kernel with the rows set per expert: mixtures of full and
//     partial cluster pairs, two-pair experts (160 rows) and a router's binomial rows at a mean of
//     128 (eager profile; nothing fitted on this set);
// (b) the vLLM-style fused_moe GEMM (w2 form, T = 32) over N at K = 4096 and 14336 (fused
//     profile): half_line_stream and fused_moe_cost.cpp's two ratios (the light stream, the loaded
//     CTA rate) fitted on the six K = 4096 kernels (fit_fused_moe.py); K = 14336 and h200-moe6's /
//     h200-moe5's kernels held out.
// Later sets on the same kernel: h200-moe9 / 11 / 12 (the one-pair penalty's hunt) and h200-moe14 (the
// expert cut, and branch moe14's opt-in wave-sharing law, validation/results/h200-moe14/moe14.calibration.yaml).
// Bounds are the achieved figures (h200-moe7/README.md) with a little room.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <map>
#include <string>

#include "perfmodel/calibration.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const YAML::Node& load(const std::string& set) {
  static std::map<std::string, YAML::Node> roots;
  auto it = roots.find(set);
  if (it == roots.end()) it = roots.emplace(set, YAML::LoadFile(test::root() + "/validation/results/" + set + "/hf.json")).first;
  return it->second;
}

Roofs roofs(Impl impl) {
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return make_roofs(test::catalogue().card("h200"), &cal, impl);
}

// moe9's law: the calibration with branch moe14's wave sharing and branch moe15's tile switch
// cleared (both in the default since branch moedef). The known misses below are that law's.
Roofs moe9_roofs() {
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  for (ProfileCalibration& p : cal.profiles) {
    p.aten.grouped_mm_wave_sharing = 0;
    p.aten.grouped_mm_tile_switch_s = 0;
  }
  return make_roofs(test::catalogue().card("h200"), &cal, Impl::eager);
}

// The experts of a moe7 shape (its weight's own; the case may list padded zero-row experts).
int64_t experts_of(const std::string& name) { return name.find("mixtral") != std::string::npos ? 8 : 128; }

// A moe7 pair case as an op: equal rows r set by hand (r tokens each picking every expert; past a
// mean of 128 the weight carried zero-row experts so GroupMM.cu kept the pingpong kernel, as
// h200-moe5's forced-pingpong cases), or the binomial rows as a step's op (E x 128 tokens, top-1).
Op pair7_op(const YAML::Node& c) {
  const std::string name = c["name"].as<std::string>();
  const int64_t E = experts_of(name), n = c["n"].as<int64_t>(), k = c["k"].as<int64_t>();
  if (name.find("binom") != std::string::npos)
    return ops::grouped_gemm(name, E * 128, 1, E, n, k, DType::bf16, DType::bf16, Precision::bf16);
  const int64_t r = c["rows_per_expert"][0].as<int64_t>();
  Op op = ops::grouped_gemm(name, r, E, E, n, k, DType::bf16, DType::bf16, Precision::bf16);
  if (r > 128) {
    const int64_t groups = E * r / 128;
    op.moe = {128, groups, groups, op.moe.experts_touched};
  }
  return op;
}

std::map<std::string, double> pair_times() {
  std::map<std::string, double> t;
  for (const auto& c : load("h200-moe7")["pair_cases"]) {
    REQUIRE(c["ok"].as<bool>());
    CHECK(c["kernel_family"].as<std::string>() == "pingpong");
    t[c["name"].as<std::string>()] = c["median_s"].as<double>();
  }
  return t;
}

double fused_error(const YAML::Node& c, const Roofs& r) {
  const Op op = ops::grouped_gemm(c["name"].as<std::string>(), c["tokens"].as<int64_t>(), c["top_k"].as<int64_t>(),
                                  c["experts"].as<int64_t>(), c["n"].as<int64_t>(), c["k"].as<int64_t>(), DType::bf16,
                                  DType::bf16, Precision::bf16);
  return price(op, r, Impl::fused).device_time_s / c["median_s"].as<double>() - 1;
}

}  // namespace

TEST_CASE("h200-moe7 torch._grouped_mm: a mixture of pairs runs at its experts' average") {
  const auto t = pair_times();
  REQUIRE(t.size() == 28);
  // Experts alternating 128 and 64 rows (full and partial pairs) and 128 and 160 (one pair and
  // two) run within 3.2 % of the mean of the two balanced times: each expert at its own rate, not
  // the partial rate throughout (what branch moe6 read off h200-moe5's routers).
  for (const char* shape : {"qwen3_gate_up", "mixtral_gate_up"}) {
    CAPTURE(shape);
    const std::string p = std::string("pair7_") + shape + "_";
    CHECK(std::fabs(t.at(p + "mix128_64") / (0.5 * (t.at(p + "r128") + t.at(p + "r64"))) - 1) < 0.04);
    CHECK(std::fabs(t.at(p + "mix128_160") / (0.5 * (t.at(p + "r128") + t.at(p + "r160"))) - 1) < 0.04);
    // 96-128 rows on every expert (all one pair, 3/4 full or more) run as 128 rows do.
    CHECK(std::fabs(t.at(p + "spread96_128") / t.at(p + "r128") - 1) < 0.025);
    // Two pairs of which the second holds 32 rows cost 1.8-2.3x one full pair: the partial pair
    // is as slow inside a two-pair expert as alone (h200-moe5's 256 rows, two full pairs on the
    // same kernel: 1.72x at Mixtral's gate_up).
    CHECK(t.at(p + "r160") / t.at(p + "r128") > 1.75);
  }
  CHECK(std::fabs(t.at("pair7_qwen3_down_mix128_64") / (0.5 * (t.at("pair7_qwen3_down_r128") + t.at("pair7_qwen3_down_r64"))) - 1) < 0.03);
}

TEST_CASE("h200-moe7 torch._grouped_mm against the model (held out)") {
  const Roofs r = roofs(Impl::eager);
  std::vector<double> exact, binom, two_pairs;
  for (const auto& c : load("h200-moe7")["pair_cases"]) {
    const std::string name = c["name"].as<std::string>();
    if (name.find("_mix128") != std::string::npos || name.find("spread") != std::string::npos) continue;  // not one op
    const double e = price(pair7_op(c), r, Impl::eager).device_time_s / c["median_s"].as<double>() - 1;
    CAPTURE(name);
    CAPTURE(e);
    if (name.find("binom") != std::string::npos) binom.push_back(e);
    else if (name.find("r160") != std::string::npos) two_pairs.push_back(e);
    else exact.push_back(std::fabs(e));
  }
  REQUIRE(exact.size() == 14);
  REQUIRE(binom.size() == 3);
  REQUIRE(two_pairs.size() == 2);
  CAPTURE(quantile(exact, 0.5));
  CAPTURE(quantile(exact, 1.0));
  // Equal rows 8-128 (h200-moe6's model: full pairs at grouped_mm_full_pair_stream): 7.8 % median,
  // 18.3 % max; Qwen3's partial pairs still +12-18 % (the decode-fitted two terms), the rest within
  // 9.1 % (Mixtral's 64 rows).
  CHECK(quantile(exact, 0.5) <= 0.085);
  CHECK(quantile(exact, 1.0) <= 0.19);
  // A router's binomial rows at a mean of 128 as a step's op. Before branch moe9 they were -6 to
  // -10 % by two opposite misses that cancelled (the one-pair experts priced at the partial rate,
  // the two-pair ones too fast: equal rows of 160 were -12 % Qwen3, -22 % Mixtral). Since moe9 each
  // expert's first pair takes its full-pair share over the binomial and a partial pair past the
  // first re-reads the weight (grouped_mm_cost.cpp): binomial -3.6 / -0.2 / -8.2 % (Qwen3 gate_up,
  // Mixtral gate_up, Qwen3 down), and 160 rows
  // +5.6 % (Qwen3) / -12.3 % (Mixtral) (validation/scripts/moe/fit_grouped_mm9.py).
  for (double e : binom) CHECK(std::fabs(e) <= 0.09);
  for (double e : two_pairs) CHECK(std::fabs(e) <= 0.13);
}

TEST_CASE("h200-moe7 fused_moe over N: the half-line stream by the CTAs an SM") {
  const Roofs r = roofs(Impl::fused);
  REQUIRE(r.fused_moe.half_line_stream.has_value());
  std::vector<double> fit, held7, held6, held5;
  for (const auto& c : load("h200-moe7")["fmoe_cases"]) {
    REQUIRE(c["ok"].as<bool>());
    (c["k"].as<int64_t>() == 4096 ? fit : held7).push_back(std::fabs(fused_error(c, r)));
  }
  for (const auto& c : load("h200-moe6")["fmoe_cases"])
    if (c["variant"].as<std::string>() == "default") held6.push_back(std::fabs(fused_error(c, r)));
  for (const auto& c : load("h200-moe5")["fused_moe_cases"])
    if (c["ok"].as<bool>() && c["variant"] && c["variant"].as<std::string>() == "default")
      held5.push_back(std::fabs(fused_error(c, r)));
  REQUIRE(fit.size() == 6);
  REQUIRE(held7.size() == 2);
  REQUIRE(held6.size() == 6);
  REQUIRE(held5.size() == 6);
  CAPTURE(quantile(fit, 1.0));
  CAPTURE(quantile(held7, 1.0));
  CAPTURE(quantile(held6, 1.0));
  CAPTURE(quantile(held5, 1.0));
  // Achieved (fit_fused_moe.py): fit 1.5 % median, 8.3 % max (256 CTAs, ~2 an SM, on the K-loop
  // floor); held out: K = 14336 5.7 % / 11.1 % max (256 CTAs again); h200-moe6's six 2.6 % / 3.5 %
  // (16.6 % max before: Mixtral's w2 at ~4 CTAs an SM); h200-moe5's default tile 2.0 % / 6.3 %
  // (12.6 % max before).
  CHECK(quantile(fit, 1.0) <= 0.09);
  CHECK(quantile(held7, 1.0) <= 0.12);
  // h200-moe6's largest 3.5 -> 5.5 % since fused_moe's 3-norm of the stream and the real tile loads
  // (l2_stream_norm, adopted by h100-moeh100e's rule set before its run): its decode kernels' tile loads join the
  // stream at a third of its time.
  CHECK(quantile(held6, 1.0) <= 0.06);
  CHECK(quantile(held5, 1.0) <= 0.07);
}

TEST_CASE("h200-moe9 torch._grouped_mm K sweep: the partial-pair penalty follows the shape, not K") {
  // validation/results/h200-moe9 (run_moe9.py, branch moe9): equal rows 8 / 64 / 128 on Mixtral's
  // gate_up shape (8 experts x N 28672) at K = 1024, 2048, 4096 and Qwen3's (128 x N 1536) at
  // K = 2048, 4096, 8192. The hypothesis that K sets the one-pair experts' penalty is rejected:
  // r = 8 costs 1.11 / 1.33 / 1.28x r = 128 at Mixtral's shape, 0.97 / 1.01 / 1.13x at Qwen3's.
  std::map<std::string, double> t;
  for (const auto& c : load("h200-moe9")["pair_cases"]) {
    REQUIRE(c["ok"].as<bool>());
    CHECK(c["kernel_family"].as<std::string>() == "pingpong");
    t[c["name"].as<std::string>()] = c["median_s"].as<double>();
  }
  REQUIRE(t.size() == 16);
  auto ratio = [&t](const std::string& shape) { return t.at("pair9_" + shape + "_r8") / t.at("pair9_" + shape + "_r128"); };
  for (const char* s : {"mixtral_gate_up_k1024", "mixtral_gate_up_k2048", "mixtral_gate_up"}) {
    CAPTURE(s);
    CHECK(ratio(s) > 1.10);
  }
  for (const char* s : {"qwen3_gate_up", "qwen3_gate_up_k4096"}) {
    CAPTURE(s);
    CHECK(std::fabs(ratio(s) - 1) < 0.05);
  }
  // The model (nothing fitted on this set): 6.9 % median, 21.7 % max, its misses the one-pair
  // experts of Qwen3's shape (+8 to +22 %) and 64 rows at Mixtral's (+13 to +15 %).
  const Roofs r = roofs(Impl::eager);
  std::vector<double> err;
  for (const auto& c : load("h200-moe9")["pair_cases"])
    err.push_back(std::fabs(price(pair7_op(c), r, Impl::eager).device_time_s / c["median_s"].as<double>() - 1));
  CAPTURE(quantile(err, 0.5));
  CAPTURE(quantile(err, 1.0));
  CHECK(quantile(err, 0.5) <= 0.075);
  CHECK(quantile(err, 1.0) <= 0.23);
}

TEST_CASE("h200-moe11 torch._grouped_mm N / expert sweep: no partial-pair penalty at K 2048 up to 32 tiles an expert") {
  // validation/results/h200-moe11 (run_moe11.py, branch moe11): equal rows 8 / 128 at K 2048 on
  // 128 experts x N 1536 / 2560 / 3072 / 4096 (12-32 column tiles an expert, so 2-6 experts among
  // the 66 clusters at once) and 32 experts x N 1536. Two hypotheses are rejected: the clusters on
  // one expert at once (predicted >= 1.2 at 32 tiles, as Mixtral's down; measured 1.04) and the
  // expert count (32 experts predicted penalised; measured 1.01). r = 8 / r = 128: 0.97-1.04.
  std::map<std::string, const YAML::Node> cases;
  for (const auto& c : load("h200-moe11")["pair_cases"]) {
    REQUIRE(c["ok"].as<bool>());
    CHECK(c["kernel_family"].as<std::string>() == "pingpong");
    cases.emplace(c["name"].as<std::string>(), c);
  }
  REQUIRE(cases.size() == 10);
  const Roofs r = moe9_roofs(), law = roofs(Impl::eager);
  std::vector<double> full, partial, law_full, law_partial;
  for (const char* s : {"e128_n1536", "e32_n1536", "e128_n2560", "e128_n3072", "e128_n4096"}) {
    CAPTURE(s);
    const YAML::Node& r8 = cases.at(std::string("pair11_") + s + "_r8");
    const YAML::Node& r128 = cases.at(std::string("pair11_") + s + "_r128");
    CHECK(std::fabs(r8["median_s"].as<double>() / r128["median_s"].as<double>() - 1) < 0.05);
    for (const YAML::Node* c : {&r8, &r128}) {
      const int64_t rows = (*c)["rows_per_expert"][0].as<int64_t>(), E = (*c)["experts"].as<int64_t>();
      const Op op = ops::grouped_gemm((*c)["name"].as<std::string>(), rows, E, E, (*c)["n"].as<int64_t>(),
                                      (*c)["k"].as<int64_t>(), DType::bf16, DType::bf16, Precision::bf16);
      (rows == 128 ? full : partial).push_back(price(op, r, Impl::eager).device_time_s / (*c)["median_s"].as<double>() - 1);
      (rows == 128 ? law_full : law_partial)
          .push_back(price(op, law, Impl::eager).device_time_s / (*c)["median_s"].as<double>() - 1);
    }
  }
  // moe9's law (nothing fitted on this set; fit_grouped_mm9.py): full pairs -2.6 to +2.4 %, the
  // one-pair experts +15 to +17 % (the two terms' 0.37 us a K step against a measured 0.325-0.330):
  // the miss issue 11 carried, guarded here so a change that moves it is seen.
  for (double e : full) CHECK(std::fabs(e) < 0.04);
  for (double e : partial) {
    CHECK(e > 0.10);
    CHECK(e < 0.20);
  }
  // The default since branch moedef (moe14's wave sharing, moe15's tile switch, nothing fitted on
  // this set): the one-pair experts +3.8 to +7.2 %.
  for (double e : law_full) CHECK(std::fabs(e) < 0.05);
  for (double e : law_partial) CHECK(std::fabs(e) < 0.08);
}

TEST_CASE("h200-moe12 torch._grouped_mm: the one-pair penalty is not in the weight's addresses nor the partner's empty tile") {
  // validation/results/h200-moe12 (run_moe12.py, branch moe12): equal rows on Mixtral's gate_up
  // (8 x N 28672 x K 4096) and Qwen3's (128 x N 1536 x K 2048), the weight's rows K x 2 bytes apart
  // or padded (Mixtral K + 64: not a power of two; Qwen3 K + 64, and 8192 elements: 4x the span a
  // wave of 66 clusters reads). Three hypotheses rejected: the stride (padded Mixtral r8 / r128
  // 1.26, as unpadded 1.27), the span (Qwen3 at 16 KB rows 0.96, as 0.94-0.97), the partner's empty
  // M tile (Mixtral r72, the partner holding 8 rows, still 1.18x r128). Nsight Compute (ncu.txt):
  // the same DRAM bytes and instructions at r8 and r128; the consumers wait longer on the loads.
  std::map<std::string, const YAML::Node> cases;
  for (const auto& c : load("h200-moe12")["pair_cases"]) {
    REQUIRE(c["ok"].as<bool>());
    CHECK(c["kernel_family"].as<std::string>() == "pingpong");
    cases.emplace(c["name"].as<std::string>(), c);
  }
  REQUIRE(cases.size() == 11);
  auto t = [&cases](const std::string& n) { return cases.at("pair12_" + n)["median_s"].as<double>(); };
  for (const char* s : {"mixtral_gate_up", "mixtral_gate_up_pad64"}) {
    CAPTURE(s);
    CHECK(t(std::string(s) + "_r8") / t(std::string(s) + "_r128") > 1.2);
  }
  CHECK(t("mixtral_gate_up_r72") / t("mixtral_gate_up_r128") > 1.1);
  for (const char* s : {"qwen3_gate_up", "qwen3_gate_up_pad64", "qwen3_gate_up_s8192"}) {
    CAPTURE(s);
    CHECK(std::fabs(t(std::string(s) + "_r8") / t(std::string(s) + "_r128") - 1) < 0.07);
  }
  // moe9's law (nothing fitted on this set; it does not see the stride): full pairs and Mixtral's
  // partial pairs within 4 %; Qwen3's one-pair experts +15.7 to +18.6 %, issue 11's known miss.
  // The default since branch moedef (moe14's law, moe15's switch): those +2.9 to +5.5 %.
  const Roofs r = moe9_roofs(), law = roofs(Impl::eager);
  for (const auto& [name, c] : cases) {
    CAPTURE(name);
    const int64_t rows = c["rows_per_expert"][0].as<int64_t>(), E = c["experts"].as<int64_t>();
    const Op op = ops::grouped_gemm(name, rows, E, E, c["n"].as<int64_t>(), c["k"].as<int64_t>(), DType::bf16,
                                    DType::bf16, Precision::bf16);
    const double e = price(op, r, Impl::eager).device_time_s / c["median_s"].as<double>() - 1;
    const double e_law = price(op, law, Impl::eager).device_time_s / c["median_s"].as<double>() - 1;
    CAPTURE(e_law);
    if (rows == 8 && E == 128) {
      CHECK(e > 0.10);
      CHECK(e < 0.21);
      CHECK(std::fabs(e_law) < 0.06);
    } else {
      CHECK(std::fabs(e) < 0.05);
      CHECK(std::fabs(e_law) < 0.08);
    }
  }
}

TEST_CASE("h200-moe14 torch._grouped_mm: the expert cut sets the one-pair penalty; the opt-in wave-sharing law") {
  // validation/results/h200-moe14 (run_moe14.py, branch moe14): B's address set held (1.88 GB at K
  // 4096, 0.94 GB at K 2048) and cut into 8 x 28672, 28 x 8192, 64 x 3584, 128 x 1792 experts (66, 64,
  // 28, 14 clusters an expert of the 66 a wave), and 8 x 4096 (32), at 8 and 128 rows. r8 / r128 falls
  // with the cut, at both K: 1.28 / 1.13 / 1.06 / 1.02 (K 4096), 1.33 / 1.11 / 1.04 / 0.96 (K 2048).
  std::map<std::string, const YAML::Node> cases;
  for (const auto& c : load("h200-moe14")["pair_cases"]) {
    REQUIRE(c["ok"].as<bool>());
    CHECK(c["kernel_family"].as<std::string>() == "pingpong");
    cases.emplace(c["name"].as<std::string>(), c);
  }
  REQUIRE(cases.size() == 22);
  auto ratio = [&cases](const std::string& s) {
    return cases.at("pair14_" + s + "_r8")["median_s"].as<double>() / cases.at("pair14_" + s + "_r128")["median_s"].as<double>();
  };
  for (const std::string k : {"k4096", "k2048"}) {
    CAPTURE(k);
    CHECK(ratio("e8_n28672_" + k) > 1.25);
    CHECK(ratio("e28_n8192_" + k) > 1.08);
    CHECK(ratio("e28_n8192_" + k) < 1.16);
    CHECK(ratio("e64_n3584_" + k) < 1.08);
    CHECK(ratio("e128_n1792_" + k) < 1.04);
  }
  // The model: moe9's law (the default calibration's grouped_mm keys cleared), the opt-in
  // (h200-moe14/moe14.calibration.yaml, grouped_mm_wave_sharing 1) and the default since branch
  // moedef (the law and moe15's tile switch). Nothing fitted on this set.
  const Calibration opt = load_calibration(test::root() + "/validation/results/h200-moe14/moe14.calibration.yaml");
  const Roofs base = moe9_roofs(), shared = make_roofs(test::catalogue().card("h200"), &opt, Impl::eager);
  const Roofs now = roofs(Impl::eager);
  std::vector<double> before, after, by_default;
  for (const auto& [name, c] : cases) {
    const int64_t rows = c["rows_per_expert"][0].as<int64_t>(), E = c["experts"].as<int64_t>();
    const Op op = ops::grouped_gemm(name, rows, E, E, c["n"].as<int64_t>(), c["k"].as<int64_t>(), DType::bf16,
                                    DType::bf16, Precision::bf16);
    const double t = c["median_s"].as<double>();
    before.push_back(std::fabs(price(op, base, Impl::eager).device_time_s / t - 1));
    after.push_back(std::fabs(price(op, shared, Impl::eager).device_time_s / t - 1));
    by_default.push_back(std::fabs(price(op, now, Impl::eager).device_time_s / t - 1));
  }
  CAPTURE(quantile(by_default, 0.5));
  CAPTURE(quantile(by_default, 1.0));
  CHECK(quantile(by_default, 0.5) <= 0.04);  // 2.7 % median, 7.8 % max
  CHECK(quantile(by_default, 1.0) <= 0.10);
  CAPTURE(quantile(before, 0.5));
  CAPTURE(quantile(before, 1.0));
  CAPTURE(quantile(after, 0.5));
  CAPTURE(quantile(after, 1.0));
  CHECK(quantile(before, 1.0) > 0.15);  // moe9's law: the 128-expert cuts' r8 +17 to +18 %
  CHECK(quantile(after, 0.5) <= 0.04);
  CHECK(quantile(after, 1.0) <= 0.10);
  // The opt-in on the Qwen3 one-pair experts the committed law misses (h200-moe11, h200-moe12).
  std::vector<double> qwen;
  for (const char* set : {"h200-moe11", "h200-moe12"})
    for (const auto& c : load(set)["pair_cases"]) {
      const int64_t rows = c["rows_per_expert"][0].as<int64_t>(), E = c["experts"].as<int64_t>();
      if (rows != 8 || E != 128) continue;
      const Op op = ops::grouped_gemm(c["name"].as<std::string>(), rows, E, E, c["n"].as<int64_t>(),
                                      c["k"].as<int64_t>(), DType::bf16, DType::bf16, Precision::bf16);
      qwen.push_back(price(op, shared, Impl::eager).device_time_s / c["median_s"].as<double>() - 1);
    }
  REQUIRE(qwen.size() == 7);
  for (double e : qwen) {
    CAPTURE(e);
    CHECK(std::fabs(e) < 0.06);
  }
}

TEST_CASE("h200-moe15 opt-in: the unhidden tile switch lifts the short-K down projections the wave-sharing law under-prices") {
  // Branch moe15 (validation/scripts/moe/fit_grouped_mm15.py): with moe14's law alone Qwen3's down
  // projection (K 768) runs under at every row count, full pairs included; each CTA tile's switch
  // (epilogue + scheduler step), hidden by the K loop in proportion to its length, adds
  // grouped_mm_tile_switch x 768 / K a tile (0.38 us, fitted on the even half of the kernel cases;
  // of these six h200-moe7 cases binom128 / r64 / r96 / r128 were in the fit half, r8 / r32 held out).
  const Calibration law = load_calibration(test::root() + "/validation/results/h200-moe14/moe14.calibration.yaml");
  const Calibration opt = load_calibration(test::root() + "/validation/results/h200-moe15/moe15.calibration.yaml");
  const Roofs shared = make_roofs(test::catalogue().card("h200"), &law, Impl::eager),
              switched = make_roofs(test::catalogue().card("h200"), &opt, Impl::eager);
  std::vector<double> before, after;
  for (const auto& c : load("h200-moe7")["pair_cases"]) {
    const std::string name = c["name"].as<std::string>();
    if (name.find("qwen3_down") == std::string::npos || name.find("mix") != std::string::npos) continue;
    const Op op = pair7_op(c);
    const double t = c["median_s"].as<double>();
    before.push_back(price(op, shared, Impl::eager).device_time_s / t - 1);
    after.push_back(price(op, switched, Impl::eager).device_time_s / t - 1);
  }
  REQUIRE(before.size() == 6);
  std::vector<double> abs_after;
  for (double e : after) abs_after.push_back(std::fabs(e));
  CAPTURE(quantile(before, 0.5));
  CAPTURE(quantile(after, 0.5));
  CAPTURE(quantile(abs_after, 0.5));
  CAPTURE(quantile(abs_after, 1.0));
  CHECK(quantile(before, 0.5) < -0.04);  // the law alone: under at every row count
  CHECK(quantile(abs_after, 0.5) <= 0.03);
  CHECK(quantile(abs_after, 1.0) <= 0.10);
}
