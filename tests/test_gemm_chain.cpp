// Decode-layer GEMM chains in one CUDA graph (validation/results/h200-gemm-chain, gemm_chain.py):
// what a GEMM costs inside a step against the same GEMM alone, and the kernel-only `gemm:` block
// fit_gemm.py --kernel-only fits with these chains in its fit set (Llama-3-8B and Qwen2.5-7B;
// Llama-2-7B and TinyLlama held out), compared with the chains' profiled kernel durations. The
// block is not in hardware/h200.calibration.yaml: docs/accuracy-notes.md ("GEMMs inside a step")
// says which whole-step guards it moves and why.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
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
