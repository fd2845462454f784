// Decode-layer GEMM chains in one CUDA graph (validation/results/h200-gemm-chain, gemm_chain.py):
// what a GEMM costs inside a step against the same GEMM alone, and the kernel-only `gemm:` block
// fit_gemm.py --kernel-only fits with these chains in its fit set (Llama-3-8B and Qwen2.5-7B;
// Llama-2-7B and TinyLlama held out), compared with the chains' profiled kernel durations. The
// block is not in hardware/h200.calibration.yaml: docs/accuracy-notes.md ("GEMMs inside a step", "Branch gemm8")
// says which whole-step guards it moves and why.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "quant_stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const std::string kChain = "/validation/results/h200-gemm-chain";

const Calibration& committed() {
  static const Calibration c = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return c;
}

// The committed calibration with one `gemm:` block in every profile (times in us, fp8 peak 1460
// TFLOP/s: fit_gemm.py holds it); latency_share < 0: the walk the same for every tile.
Calibration with_gemm_block(double fixed_us, double split_k_reduce_us, double cta_walk_us, double stream_efficiency,
                            double latency_share) {
  Calibration c = committed();
  for (ProfileCalibration& p : c.profiles) {
    p.gemm.fixed_s = fixed_us * 1e-6;
    p.gemm.split_k_reduce_s = split_k_reduce_us * 1e-6;
    p.gemm.cta_walk_per_1024_k_s = cta_walk_us * 1e-6;
    p.gemm.stream_efficiency = stream_efficiency;
    p.gemm.fp8_peak = 1460e12;
    if (latency_share >= 0) p.gemm.cta_walk_latency_share = latency_share;
    else p.gemm.cta_walk_latency_share.reset();  // one pace for every tile (the fused profile's own block has a share)
    p.gemm.split_k_min_slice.reset();  // gemm5's blocks: no split rule (the fused profile's own carries block11's)
  }
  return c;
}

bool held_out_model(const std::string& name) {
  return name.find("_llama2_7b_") != std::string::npos || name.find("_tinyllama_") != std::string::npos;
}

// |predicted / measured - 1| of the fused profile's GEMM cases of `folder`; chain: held-out models only.
quant_test::Stats gemm_errors(const std::string& folder, const Calibration& cal, bool chain) {
  Measurements m;
  load_measurements(test::root() + folder, m);
  std::vector<double> e;
  for (const ProfileCaseError& c : evaluate_profiles(m, test::catalogue().card("h200"), &cal))
    if (c.profile == Impl::fused && (!chain || held_out_model(c.error.name))) e.push_back(std::fabs(c.error.error));
  return quant_test::stats(e);
}

}  // namespace

TEST_CASE("a GEMM inside a decode-layer chain costs what it costs alone (h200-gemm-chain)") {
  for (const char* file : {"/kernels.json", "/hf/kernels.json"}) {
    CAPTURE(file);
    const YAML::Node d = YAML::LoadFile(test::root() + kChain + file);
    std::vector<double> in_graph, kernels, idle;
    for (const YAML::Node& c : d["cases"]) {
      const double t = c["measured_s"].as<double>(), iso = c["isolated_s"].as<double>();
      in_graph.push_back(std::fabs(t / iso - 1));
      kernels.push_back(std::fabs(c["kernel_s"].as<double>() / c["isolated_kernel_s"].as<double>() - 1));
      // The idle a GEMM adds inside the graph beyond its kernels: a few hundred ns a kernel.
      idle.push_back((t - c["kernel_s"].as<double>()) / c["kernels_per_launch"].as<double>());
    }
    REQUIRE(in_graph.size() == (std::string(file) == "/kernels.json" ? 64u : 168u));
    const quant_test::Stats g = quant_test::stats(in_graph), k = quant_test::stats(kernels), i = quant_test::stats(idle);
    CAPTURE(g.median);
    CAPTURE(g.p90);
    CAPTURE(k.median);
    CAPTURE(i.median);
    // Measured: |chain / isolated - 1| 1.4 % / 4.5 % (fused layout), 0.9 % / 4.4 % (hf).
    CHECK(g.median <= 0.02);
    CHECK(g.p90 <= 0.05);
    CHECK(k.median <= 0.02);
    CHECK(i.median > 0.2e-6);
    CHECK(i.median < 0.7e-6);
  }
}

TEST_CASE("the kernel-only gemm block, held out: Llama-2-7B and TinyLlama chains, production odd cases, h200-gemm-small odd cases") {
  // fit_gemm.py --kernel-only: the walk scaled by the tile's operand rows and cuBLASLt's skinny
  // tiles priced (cta_walk_latency_share 0.35), against gemm4's kernel-only block (one pace for
  // every tile, fitted without h200-gemm-small), both compared with the kernels alone.
  const Calibration fitted = with_gemm_block(1.5, 3.5, 3.8, 0.86, 0.35);
  const Calibration gemm4 = with_gemm_block(0.75, 3.5, 5.0, 0.9, -1);
  const quant_test::Stats chain = gemm_errors(kChain, fitted, true);
  const quant_test::Stats chain_gemm4 = gemm_errors(kChain, gemm4, true);
  CAPTURE(chain.median);
  CAPTURE(chain.p90);
  CAPTURE(chain_gemm4.median);
  CAPTURE(chain_gemm4.p90);
  REQUIRE(chain.n == 116);
  // 3.8 % / 12.6 % held out (the target met), against 8.0 % / 22.2 % (TinyLlama's K = 2048
  // projections priced split-K on 128-wide tiles: +20 to +30 %).
  CHECK(chain.median <= 0.039);
  CHECK(chain.p90 <= 0.127);
  CHECK(chain.median < 0.6 * chain_gemm4.median);
  CHECK(chain.p90 < 0.7 * chain_gemm4.p90);
  // h200-production's odd GEMM cases (the even ones are in the fit).
  Measurements prod;
  load_measurements(test::root() + "/validation/results/h200-production/kernels.json", prod);
  for (const ProfileSetStats& s : summarize_profiles(evaluate_profiles(prod, test::catalogue().card("h200"), &fitted))) {
    if (s.profile != Impl::fused || s.kernel != "gemm") continue;
    CAPTURE(s.implementation);
    CAPTURE(s.held_out_median_abs);
    CAPTURE(s.held_out_p90_abs);
    CHECK(s.held_out_median_abs <= 0.042);
    CHECK(s.held_out_p90_abs <= 0.095);
  }
}

namespace {

// Signed predicted / measured - 1 of the GEMM category of transformers' eager steps (the profiler's
// cuBLASLt kernels, i.e. kernels alone; validation/scripts/production/compare_gemm_category.py) under
// the eager profile of `cal`: hf.json (h200-production), h200-hf-grid, h200-moe-sync. None of these
// steps is in the block's fit set (h200-production's single calls, h200-gemm-chain, h200-gemm-small).
std::vector<double> eager_step_gemm_errors(const Calibration& cal) {
  const Card card = test::catalogue().card("h200");
  std::vector<double> e;
  for (const char* set : {"h200-production", "h200-hf-grid", "h200-moe-sync"}) {
    const YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/" + set + "/hf.json");
    for (const YAML::Node& s : root["steps"]) {
      if (!s["ok"].as<bool>() || !s["kernel_by_category_s"] || !s["kernel_by_category_s"]["gemm"]) continue;
      Workload w;
      w.phase = s["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
      w.batch = s["batch"].as<int64_t>();
      w.ctx = s["ctx"].as<int64_t>();
      w.impl = Impl::eager;
      w.eager_cache_cropped = !(s["cache_layout"] && s["cache_layout"].as<std::string>() == "contiguous");
      Evaluation ev;
      try {
        ev = evaluate(test::catalogue().model(s["model"].as<std::string>()), w, card, &cal);
      } catch (const InputError&) {
        continue;  // refused (Llama-2-7B at ctx 8192: beyond its positions)
      }
      double gemm = 0;
      for (size_t i = 0; i < ev.step.ops.size(); ++i)
        if (ev.step.ops[i].kernel == KernelId::gemm)
          gemm += static_cast<double>(ev.step.ops[i].count) * ev.cost.ops[i].device_time_s;
      e.push_back(gemm / s["kernel_by_category_s"]["gemm"].as<double>() - 1);
    }
  }
  return e;
}

quant_test::Stats abs_stats(const std::vector<double>& e) {
  std::vector<double> a;
  for (double x : e) a.push_back(std::fabs(x));
  return quant_test::stats(a);
}

double mean(const std::vector<double>& e) {
  double s = 0;
  for (double x : e) s += x;
  return e.empty() ? 0 : s / static_cast<double>(e.size());
}

}  // namespace

TEST_CASE("the kernel-only gemm block on transformers' eager steps: the GEMM category, held out (branch gemm8)") {
  // An eager step's kernel time is the profiler's sum, kernels alone: like with like for the block.
  // Measured (branch gemm8), 65 steps: the card-level keys 7.2 % / 15.3 % (mean -7.4 %; every MoE
  // decode step 7-17 % under), gemm5's block 4.2 % / 11.4 % (mean -1.5 %). The block is still not
  // in the eager profile: docs/accuracy-notes.md ("Branch gemm8") says which guards it moves and why.
  Calibration card_keys = committed();  // the card-level GEMM keys: no profile's block
  for (ProfileCalibration& p : card_keys.profiles) p.gemm = ProductionGemm{};
  const std::vector<double> card = eager_step_gemm_errors(card_keys);
  const std::vector<double> block = eager_step_gemm_errors(with_gemm_block(1.5, 3.5, 3.8, 0.86, 0.35));
  const quant_test::Stats c = abs_stats(card), b = abs_stats(block);
  MESSAGE("eager steps' GEMM category, " << b.n << " steps: card-level keys " << 100 * c.median << " / " << 100 * c.p90
          << " % (mean " << 100 * mean(card) << " %), block " << 100 * b.median << " / " << 100 * b.p90 << " % (mean "
          << 100 * mean(block) << " %)");
  CHECK(b.n == c.n);
  CHECK(b.n == 65);
  CHECK(b.median <= 0.045);
  CHECK(b.p90 <= 0.12);
  CHECK(b.median < c.median);
  CHECK(b.p90 < c.p90);
  CHECK(std::fabs(mean(block)) < std::fabs(mean(card)));
}

TEST_CASE("the fused block with cuBLASLt's split rule and its narrow tiles, held out (opt-in, validation/results/h200-gemm14)") {
  // gemm5's four keys, block11's rule and measured reduce, and nvjet's narrow tiles as candidates
  // (gemm_tiling.cpp), in the fused profile only; nothing refitted. Before the narrow tiles (block11's
  // file on main): chains 3.3 / 13.5 %, h200-gemm-small 8.4 / 20.6 %, production 4.2 / 10.5 %
  // (gemm11_sets.py); block11's file now gets the narrow tiles too (it carries the rule).
  const Calibration opt = load_calibration(test::root() + "/validation/results/h200-gemm14/gemm14.calibration.yaml");
  const quant_test::Stats chain = gemm_errors(kChain, opt, true);
  CAPTURE(chain.median);
  CAPTURE(chain.p90);
  REQUIRE(chain.n == 116);
  CHECK(chain.median <= 0.033);  // 3.2 % / 12.0 %
  CHECK(chain.p90 <= 0.125);
  auto held = [](const std::string& folder, const Calibration& cal) {
    Measurements m;
    load_measurements(test::root() + folder, m);
    for (const ProfileSetStats& s : summarize_profiles(evaluate_profiles(m, test::catalogue().card("h200"), &cal)))
      if (s.profile == Impl::fused && s.kernel == "gemm" && s.implementation == "torch.linear") return s;
    FAIL("no fused torch.linear row in " << folder);
    return ProfileSetStats{};
  };
  const ProfileSetStats small = held("/validation/results/h200-gemm-small", opt);
  CAPTURE(small.held_out_median_abs);
  CAPTURE(small.held_out_p90_abs);
  CHECK(small.held_out_cases == 70);
  CHECK(small.held_out_median_abs <= 0.065);  // 6.4 % / 17.2 %; with gemm15's knee 6.1 / 17.2 % (target 5 / 15 %: not met)
  CHECK(small.held_out_p90_abs <= 0.173);
  const ProfileSetStats prod = held("/validation/results/h200-production/kernels.json", opt);
  CAPTURE(prod.held_out_median_abs);
  CAPTURE(prod.held_out_p90_abs);
  CHECK(prod.held_out_cases == 30);
  CHECK(prod.held_out_median_abs <= 0.043);  // 4.2 % / 10.5 % (the card-level model: 5.5 / 20.2 %)
  CHECK(prod.held_out_p90_abs <= 0.106);
}

TEST_CASE("cuBLASLt's split-K GEMMs are not priced under, held out (branch splitk, issue 10)") {
  // The committed fused block: the signed mean of predicted / measured - 1 over the calls that launched a
  // pair (nvjet + splitKreduce), held-out cases only: h200-gemm-chain's Llama-2-7B and TinyLlama chains
  // (profiled kernel sums: no harness idle in them) and h200-gemm-small's odd cases. Before the 4-CTA cluster
  // grid's tail (kClusterSplitTailS) they were -4.8 % and -7.7 %; the unsplit calls of the same sets -0.1 %
  // and -1.2 % (validation/scripts/production/splitk_tail.py).
  auto split_mean = [](const std::string& folder, bool chain) {
    Measurements m;
    load_measurements(test::root() + folder, m);
    std::vector<std::string> pairs;
    for (const MeasuredCase& c : m.cases)
      if (c.kernels_per_launch >= 2) pairs.push_back(c.kernel.name);
    double sum = 0;
    int n = 0;
    for (const ProfileCaseError& c : evaluate_profiles(m, test::catalogue().card("h200"), &committed())) {
      if (c.profile != Impl::fused || c.error.set != "gemm") continue;
      if (chain ? !held_out_model(c.error.name) : !c.held_out) continue;
      if (std::find(pairs.begin(), pairs.end(), c.error.name) == pairs.end()) continue;
      sum += c.error.error;
      ++n;
    }
    REQUIRE(n >= 10);
    return sum / n;
  };
  const double chain = split_mean(kChain + "/kernels.json", true);
  const double small = split_mean("/validation/results/h200-gemm-small/kernels.json", false);
  MESSAGE("split-K mean error: h200-gemm-chain held-out models " << 100 * chain << " %, h200-gemm-small odd "
                                                                << 100 * small << " %");
  CHECK(std::fabs(chain) < 0.035);
  CHECK(std::fabs(small) < 0.04);
}
