// Issue 11, fused profile: validation/results/h200-moe-fused2 (a vLLM-style fused MoE layer in
// Triton, and absorbed MLA decode with 64-head tiles) against `--impl fused`, what
// validation/scripts/moe/compare_fused2.py prints. The fused_moe parameters
// (hardware/h200.calibration.yaml, profiles.fused.fused_moe) were fitted on 10 of the 24 MoE
// layers (validation/scripts/moe/fit_fused_moe.py's FIT rule, repeated here); the other 14 are held
// out. Bounds are the achieved figures (README there) with a little room.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <map>
#include <tuple>

#include "perfmodel/calibration.hpp"
#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "mla_stand_in.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

// fit_fused_moe.py's is_fit_point: decode T = 1, 8, 64 for every model, and Mixtral's prefill.
bool fit_point(const std::string& model, const std::string& phase, int64_t tokens) {
  if (phase == "decode") return tokens == 1 || tokens == 8 || tokens == 64;
  return model == "mixtral-8x7b";
}

struct Fused2 {
  std::vector<double> gemm_fit, gemm_held, layer_decode, layer_all, layer_held;
  std::vector<double> mla_lite, mla_v3_signed;
  std::map<std::string, double> prefill_gemm_signed;  // "model T" -> the grouped GEMMs' predicted / measured - 1
  // `card_key` the card the set ran on: the H200's file as committed, another card of the die with it carried.
  explicit Fused2(const std::string& card_key = "h200", const std::string& set = "h200-moe-fused2") {
    const Card card = test::catalogue().card(card_key);
    const Calibration cal = card_key == "h200" ? load_calibration(test::root() + "/hardware/h200.calibration.yaml")
                                              : *sibling_calibration(test::catalogue(), card);
    const Roofs r = make_roofs(card, &cal, Impl::fused);
    YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/" + set + "/hf.json");
    for (const auto& c : root["moe_cases"]) {
      if (!c["ok"].as<bool>()) continue;
      const std::string model = c["model"].as<std::string>(), phase = c["phase"].as<std::string>();
      const int64_t T = c["tokens"].as<int64_t>();
      Workload w;
      w.phase = phase == "decode" ? Phase::decode : Phase::prefill;
      w.batch = phase == "decode" ? T : 1;
      w.ctx = phase == "decode" ? 512 : T;
      w.impl = Impl::fused;
      const Evaluation e = evaluate(test::catalogue().model(model), w, card, &cal);
      double layer = 0, grouped = 0;
      for (size_t i = 0; i < e.step.ops.size(); ++i) {
        const Op& op = e.step.ops[i];
        const bool moe = op.name.rfind("router.", 0) == 0 || op.name.rfind("experts.", 0) == 0 ||
                         op.name.rfind("shared_", 0) == 0;
        if (!moe) continue;
        // Per instance: one layer's. The graph replay is priced by time_s (the kernels and the
        // GPU's idle between them, graph_kernel_gap per launch) plus the host's launch of the
        // layer's nodes (graph_launch_per_node per launch), which the harness's replay on an idle
        // GPU waits for as fused_step.py's does (both fitted on the dense fused steps of
        // h200-fused-step-alone, none of these layers; branch graphhost11: the launch was in
        // graph_kernel_gap, 0.891 us, before); the grouped GEMM's kernels by device time.
        layer += e.cost.ops[i].time_s + r.graph_launch_per_node_s * static_cast<double>(op.launches);
        if (op.kernel == KernelId::grouped_gemm) grouped += e.cost.ops[i].device_time_s;
      }
      double measured_grouped = 0;
      for (const auto& k : c["kernel_device_s"])
        if (k["name"].as<std::string>().rfind("_fused_moe_gemm_kernel", 0) == 0)
          measured_grouped += k["device_s"].as<double>();
      const double eg = std::fabs(grouped / measured_grouped - 1);
      const double el = std::fabs(layer / c["median_s"].as<double>() - 1);
      if (phase == "prefill") prefill_gemm_signed[model + " " + std::to_string(T)] = grouped / measured_grouped - 1;
      const bool fit = fit_point(model, phase, T);
      (fit ? gemm_fit : gemm_held).push_back(eg);
      if (!fit) layer_held.push_back(el);
      if (phase == "decode") layer_decode.push_back(el);
      layer_all.push_back(el);
    }
    // MLA decode: the faster of the two wave policies at each (model, batch, ctx).
    mla_test::mla_errors(root, r, mla_lite, mla_v3_signed);
  }
};

const Fused2& fused2() {
  static const Fused2 f;
  return f;
}

}  // namespace

TEST_CASE("fused_moe grouped GEMM (h200-moe-fused2): 10 fitted layers, 14 held out") {
  const Fused2& f = fused2();
  REQUIRE(f.gemm_fit.size() == 10);
  REQUIRE(f.gemm_held.size() == 14);
  CAPTURE(quantile(f.gemm_fit, 0.5));
  CAPTURE(quantile(f.gemm_held, 0.5));
  CAPTURE(quantile(f.gemm_held, 1.0));
  // Achieved (compare_fused2.py): fit 5.4 %, held out 5.9 % median, 21.4 % largest (Mixtral's
  // 64 x 64 x 32 decode tiles, under-predicted: README). Since h200-moe5 (BLOCK_K 32 streams half
  // lines: half_line_stream, fitted after the four on the fit layers and two h200-moe5 kernels):
  // fit 3.9 %, held out 4.4 %, 19.3 % largest (DeepSeek T = 4; Mixtral T = 16-64 -21 % -> +4 %).
  CHECK(quantile(f.gemm_fit, 0.5) <= 0.045);
  CHECK(quantile(f.gemm_held, 0.5) <= 0.05);
  CHECK(quantile(f.gemm_held, 1.0) <= 0.20);
}

TEST_CASE("fused MoE layers (h200-moe-fused2): the fused profile's router + experts ops against the graph replay") {
  const Fused2& f = fused2();
  REQUIRE(f.layer_all.size() == 24);
  CAPTURE(quantile(f.layer_decode, 0.5));
  CAPTURE(quantile(f.layer_held, 0.5));
  CAPTURE(quantile(f.layer_all, 0.5));
  // Achieved on kernel time alone: 13.4 % decode, 13.9 % held out, 13.1 % all (every layer but
  // Mixtral's prefill under-predicted: the graph's gaps between kernels and the stand-in's
  // one-CTA align kernel). With the fused profile's in-graph gap (branch graph), nothing refitted:
  // 6.7 % all, 7.9 % held out (compare_fused2.py); with half_line_stream (h200-moe5) 5.8 % all
  // and decode, 6.7 % held out. Since branch idle8 (the small kernels priced alone, harness_idle;
  // the top-k and the one-CTA align plan priced as serial work, fit_moe_routing.py on the 9 fit
  // decode layers): 4.5 % decode, 4.8 % held out, 4.6 % all.
  CHECK(quantile(f.layer_decode, 0.5) <= 0.065);
  CHECK(quantile(f.layer_held, 0.5) <= 0.075);
  CHECK(quantile(f.layer_all, 0.5) <= 0.065);
}

TEST_CASE("fused MoE layers on an H100 (h100-moeh100), the H200's calibration carried: every layer held out") {
  // validation/results/h100-moeh100 (twenty-seventh session, planned before the run): run_fused2.py's same 24 layers
  // on an H100 80GB HBM3. Nothing was fitted on an H100 (the fit split above is the H200's). Priced as above (the
  // replay's kernels and gaps plus the host's launch of the layer's nodes): layers 6.1 % median (decode 5.3 %),
  // largest 15.3 % (DeepSeek-V2-Lite's prefill: the prefills are priced 12-16 % fast on this card), grouped GEMMs
  // 6.6 %. compare_fused2.py (PERFMODEL_CARD=h100-sxm, no host launch): layers 5.3 %, decode 4.9 %.
  static const Fused2 h100("h100-sxm", "h100-moeh100");
  REQUIRE(h100.layer_all.size() == 24);
  std::vector<double> gemm = h100.gemm_fit;
  gemm.insert(gemm.end(), h100.gemm_held.begin(), h100.gemm_held.end());
  CAPTURE(quantile(h100.layer_all, 0.5));
  CAPTURE(quantile(h100.layer_decode, 0.5));
  CAPTURE(quantile(h100.layer_all, 1.0));
  CAPTURE(quantile(gemm, 0.5));
  CAPTURE(quantile(h100.layer_decode, 1.0));
  // Twenty-eighth session: fused_moe's half-line stream carried with its shortfall as the die's time per byte
  // (calibration_transfer.cpp; read off this set, held out by h100-moeh100b): layers 6.1 -> 5.1 % median, decode
  // 5.3 -> 4.4 %, grouped GEMMs 6.6 -> 3.9 % (Mixtral's 64 x 64 x 32 decode GEMMs +11-13 -> 0-2 %). Qwen3-30B's prefill
  // layer went the other way, -14 -> -21 %: the carry prices its compute and its stream within 1 % of each other, and
  // fused_moe_cost.cpp takes the larger where the kernel takes more (the H200 prices it -11.5 % for the same reason).
  CHECK(quantile(h100.layer_all, 0.5) <= 0.055);
  CHECK(quantile(h100.layer_decode, 0.5) <= 0.05);
  CHECK(quantile(h100.layer_decode, 1.0) <= 0.08);
  // Twenty-ninth session, the L2 tile walk (fit on one H200 prefill, see the prefill case): the three prefill layers
  // -21 / -12 / -18 -> +0 / +3 / +3 %, largest 21 -> 7.3 %, layers 5.1 -> 4.3 % median, grouped GEMMs 3.9 -> 3.4 %.
  CHECK(quantile(h100.layer_all, 1.0) <= 0.09);
  CHECK(quantile(gemm, 0.5) <= 0.04);
}

TEST_CASE("fused MoE layers on an H100 at new points (h100-moeh100b), priced before the run: every layer held out") {
  // validation/results/h100-moeh100b (twenty-eighth session): run_fused2.py --plan moeh100b, 26 layers no set had (two
  // models new to the sets), priced in moeh100b/prices_*.txt before the run under both half-line carries. The rule set
  // before the run (the lower grouped-GEMM median stays) kept the die's time per byte: 7.1 % against 10.4 % with the
  // half-line stream scaled whole (decode 4.1 against 10.3 %). The prefills stay 3-35 % fast (README there).
  static const Fused2 b("h100-sxm", "h100-moeh100b");
  REQUIRE(b.layer_all.size() == 26);
  std::vector<double> gemm = b.gemm_fit;  // fit_point's split is the H200's: here every layer is held out
  gemm.insert(gemm.end(), b.gemm_held.begin(), b.gemm_held.end());
  CAPTURE(quantile(b.layer_all, 0.5));
  CAPTURE(quantile(b.layer_decode, 0.5));
  CAPTURE(quantile(b.layer_all, 1.0));
  CAPTURE(quantile(gemm, 0.5));
  // Twenty-ninth session, the L2 tile walk: grouped GEMMs 7.1 -> 5.5 % median, layers 5.2 -> 4.5 %, the largest layer
  // 34.7 -> 22.1 % (Qwen3-235B's prefill, where the DRAM stream binds: the L2 term does not reach it).
  // Since the 3-norm (h100-moeh100e's rule): grouped GEMMs 4.2 %, layers 2.5 %, the largest layer 13.1 %.
  CHECK(quantile(b.layer_all, 0.5) <= 0.035);
  CHECK(quantile(b.layer_decode, 0.5) <= 0.045);
  CHECK(quantile(gemm, 0.5) <= 0.045);
  CHECK(quantile(b.layer_all, 1.0) <= 0.14);
}

TEST_CASE("fused_moe prefill GEMMs: the L2 tile walk fitted on one H200 prefill, the rest held out") {
  // Twenty-ninth session (fused_moe_cost.cpp's L2 term, fit_fused_moe_l2.py): l2_tile_rate fitted on the H200's
  // Mixtral-8x7B prefill alone. Before it the prefills were priced by the MMA at 0.31 of peak, fitted on that same
  // point: the H200's other two -11.5 / -5.5 %, the H100's 13 prefills all fast (-3 to -32 %).
  const Fused2& h200 = fused2();
  REQUIRE(h200.prefill_gemm_signed.size() == 3);
  for (const auto& [point, e] : h200.prefill_gemm_signed) {
    CAPTURE(point);
    // Fitted; held out +0.1 / +1.0 % with the larger of stream and tile loads, +3.5 / +1.0 % since the 3-norm of the
    // stream and the real tile loads (l2_stream_norm, h100-moeh100e's rule: Qwen3's 2.5 row blocks an expert).
    CHECK(std::fabs(e) <= (point == "mixtral-8x7b 2048" ? 0.005 : 0.04));
  }
  // The H100, the rate carried by the L2's size (50 / 60 MB): nothing fitted there.
  static const Fused2 a("h100-sxm", "h100-moeh100"), b("h100-sxm", "h100-moeh100b");
  std::vector<double> all, signed_all;
  for (const Fused2* f : {&a, &b})
    for (const auto& [point, e] : f->prefill_gemm_signed) {
      all.push_back(std::fabs(e));
      signed_all.push_back(e);
    }
  REQUIRE(all.size() == 13);
  CAPTURE(quantile(all, 0.5));
  CAPTURE(quantile(all, 1.0));
  CAPTURE(quantile(signed_all, 0.5));
  // Achieved: 7.1 % median (13.4 before), largest 21.8 % (Qwen3-235B at 1024 tokens, 1.5 row blocks an expert: the
  // DRAM stream binds there, unchanged), median signed -3.2 % (-13.4 before): no longer all fast. Since the 3-norm
  // (l2_stream_norm, adopted by h100-moeh100e's rule): 5.5 % median, largest 12.4 %, signed +2.1 %.
  CHECK(quantile(all, 0.5) <= 0.06);
  CHECK(quantile(all, 1.0) <= 0.13);
  CHECK(std::fabs(quantile(signed_all, 0.5)) <= 0.05);
  // The 2048-token prefills the H200's were measured at, card against card: within 4 % (-12 / -19 / -24 % before);
  // within 6 % since the 3-norm (Qwen3-30B +0.4 -> +5.7 %, as on the H200 +0.1 -> +3.5 %).
  for (const auto& [point, e] : a.prefill_gemm_signed) {
    CAPTURE(point);
    CHECK(std::fabs(e) <= 0.06);
  }
}

TEST_CASE("fused MoE prefills on an H100 at new token counts (h100-moeh100c), priced before the run: held out") {
  // validation/results/h100-moeh100c (twenty-ninth session): 18 prefills of five models at 256-8192 tokens, planned
  // and priced (moeh100c/prices_h100-sxm.txt) after the L2 tile walk landed and before the run. The rule set then:
  // grouped GEMMs median <= 8 %, p90 <= 20 %. Achieved 6.3 % / 11.8 % (score_moe_prices.py), largest 32 % (Mixtral-8x7B
  // at 256 tokens, 1.5 row blocks an expert: the regime where the stream and the tile loads are both near their limits).
  static const Fused2 c("h100-sxm", "h100-moeh100c");
  REQUIRE(c.prefill_gemm_signed.size() == 18);
  std::vector<double> gemm, many_blocks;
  for (const auto& [point, e] : c.prefill_gemm_signed) gemm.push_back(std::fabs(e));
  // From 3.5 padded row blocks an expert up (768+ tokens for Mixtral-8x7B, 3072+ for Qwen3-30B and DeepSeek-V2-Lite,
  // 2048+ for Mixtral-8x22B, 4096+ for Qwen3-235B): within 11 %.
  for (const char* point : {"mixtral-8x7b 768", "mixtral-8x7b 1536", "mixtral-8x7b 3072", "mixtral-8x7b 8192",
                            "mixtral-8x22b 2048", "mixtral-8x22b 4096", "qwen3-30b-a3b 3072", "qwen3-30b-a3b 8192",
                            "qwen3-235b-a22b 4096", "qwen3-235b-a22b 8192", "deepseek-v2-lite 3072",
                            "deepseek-v2-lite 8192"}) {
    REQUIRE(c.prefill_gemm_signed.count(point));
    many_blocks.push_back(std::fabs(c.prefill_gemm_signed.at(point)));
  }
  CAPTURE(quantile(gemm, 0.5));
  CAPTURE(quantile(gemm, 0.9));
  CAPTURE(quantile(many_blocks, 1.0));
  CAPTURE(quantile(c.layer_all, 0.5));
  // Since the 3-norm (chosen after this set, adopted by h100-moeh100e's rule): grouped GEMMs 4.9 % median, p90
  // 10.9 % (interpolated), layers 4.8 %.
  CHECK(quantile(gemm, 0.5) <= 0.055);
  CHECK(quantile(gemm, 0.9) <= 0.12);
  CHECK(quantile(many_blocks, 1.0) <= 0.115);
  CHECK(quantile(c.layer_all, 0.5) <= 0.055);
}

TEST_CASE("fused MoE layers at one or two row blocks an expert (h100-moeh100d), priced before the run: held out") {
  // validation/results/h100-moeh100d (twenty-ninth session): 21 layers, 16 prefills at 1.0-4.1 padded row blocks an
  // expert and 5 decodes past the experts, priced before the run (moeh100d/prices_max_h100-sxm.txt for the committed
  // model). Achieved: grouped GEMMs 5.9 % median, layers 5.7 %. The known gap: Mixtral-8x7B and -8x22B at 1.4-2 row
  // blocks an expert (large experts, few rows) run 20-29 % slower than priced, by the stream, the tile loads or their
  // 3-norm alike (README there).
  static const Fused2 d("h100-sxm", "h100-moeh100d");
  REQUIRE(d.layer_all.size() == 21);
  std::vector<double> gemm = d.gemm_fit;
  gemm.insert(gemm.end(), d.gemm_held.begin(), d.gemm_held.end());
  CAPTURE(quantile(gemm, 0.5));
  CAPTURE(quantile(d.layer_all, 0.5));
  // Since the 3-norm (chosen after this set, adopted by h100-moeh100e's rule): 4.1 % and 3.4 %; the three Mixtral
  // prefills -15 / -19 / -22 %. Since the partner lag (thirtieth session, fitted on h200-twoblock alone; this set
  // held out): 3.6 % and 3.4 %, the three -7.5 / -0.4 / -11.1 %: the last block's few rows let its CTA walk ahead of
  // its partner, which re-reads the weights from DRAM.
  CHECK(quantile(gemm, 0.5) <= 0.04);
  CHECK(quantile(d.layer_all, 0.5) <= 0.04);
  for (const char* point : {"mixtral-8x7b 384", "mixtral-8x22b 256", "mixtral-8x22b 384"}) {
    CAPTURE(point);
    CHECK(std::abs(d.prefill_gemm_signed.at(point)) < 0.12);
  }
}

TEST_CASE("fused MoE layers (h100-moeh100e): the 3-norm of stream and tile loads decided before the run") {
  // validation/results/h100-moeh100e (twenty-ninth session): 22 layers no set had (one or two row blocks an expert,
  // many, and decode past the experts), two price sets written before the run. The rule set then (the 3-norm is
  // adopted if its grouped-GEMM median is lower and its p90 not higher): 4.4 / 14.7 % against 7.2 / 18.5 %, adopted.
  static const Fused2 e("h100-sxm", "h100-moeh100e");
  REQUIRE(e.layer_all.size() == 22);
  std::vector<double> gemm = e.gemm_fit;
  gemm.insert(gemm.end(), e.gemm_held.begin(), e.gemm_held.end());
  CAPTURE(quantile(gemm, 0.5));
  CAPTURE(quantile(e.layer_all, 0.5));
  CAPTURE(quantile(e.layer_decode, 0.5));
  CHECK(quantile(gemm, 0.5) <= 0.05);
  CHECK(quantile(e.layer_all, 0.5) <= 0.045);
  CHECK(quantile(e.layer_decode, 0.5) <= 0.04);
  // Since the partner lag (thirtieth session, fitted on h200-twoblock alone): the largest grouped-GEMM miss 26.6 ->
  // 12.9 % (Mixtral-8x22B at 320 tokens -26.6 -> -7.1 %, Mixtral-8x7B at 320 -24.2 -> -12.3 %).
  CAPTURE(quantile(gemm, 1.0));
  CHECK(quantile(gemm, 1.0) <= 0.14);
}

TEST_CASE("MLA decode with 64-head tiles (h200-moe-fused2) against attention_mla_decode (fused)") {
  const Fused2& f = fused2();
  REQUIRE(f.mla_lite.size() == 16);
  REQUIRE(f.mla_v3_signed.size() == 16);
  CAPTURE(quantile(f.mla_lite, 0.5));
  CAPTURE(quantile(f.mla_v3_signed, 0.5));
  // DeepSeek-V2-Lite (16 heads, memory-bound): 28.1 % median against this kernel (its 8-warp
  // configs lose to h200-moe-fused's 4-warp 16-head kernel at batch 64).
  CHECK(quantile(f.mla_lite, 0.5) <= 0.29);
  // DeepSeek-V3 (128 heads, compute-bound): Triton's 64-head tiles reach 198 TFLOP/s at most
  // (136 with 16-head tiles); the profile prices FlashMLA's class (~600): -61.5 % median. A known
  // gap of the stand-in, not a measurement of FlashMLA (README).
  CHECK(quantile(f.mla_v3_signed, 0.5) < -0.5);
}

// Branch moe8 (validation/results/h200-moe8): the stand-in's routing kernels alone over a token
// sweep, T = 1-32768, 8 / 64 / 128 / 256 experts. The fused profile prices the top-k's programs at
// prefill as a throughput (kTopkCtaCycles) and the align as the plan's count and owner loops
// (4.7 instructions a compare, counted in the PTX) plus the scatter's atomics (kScatterSecondsPerPick);
// the two fitted terms on Mixtral's and Qwen3's T = 256, 1024, 4096, 16384 (fit_moe8_routing.py).
TEST_CASE("vLLM-style routing kernels over tokens (h200-moe8): top-k and align at prefill, held out") {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs r = make_roofs(card, &cal, Impl::fused);
  YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-moe8/hf.json");
  std::vector<double> topk_fit, topk_held, align_fit, align_held, topk_held_128;
  for (const auto& c : root["routing_cases"]) {
    if (!c["ok"].as<bool>()) continue;
    const std::string model = c["model"].as<std::string>();
    const int64_t T = c["tokens"].as<int64_t>(), E = c["experts"].as<int64_t>(), k = c["top_k"].as<int64_t>();
    if (T < 256) continue;  // prefill; decode is fitted and guarded on h200-moe-fused2's layers
    const double m_topk = c["topk_softmax_s"]["median"].as<double>();
    const double m_align = c["align_plan_s"]["median"].as<double>() + c["align_scatter_s"]["median"].as<double>();
    const double p_topk = price(ops::moe_topk("router.topk", T, E, k, DType::bf16), r, Impl::fused).device_time_s;
    const double p_align =
        price(ops::moe_permute("experts.align", T, k, E, 0, DType::bf16, false), r, Impl::fused).device_time_s;
    const bool fit = (model == "mixtral-8x7b" || model == "qwen3-30b-a3b") && (T == 256 || T == 1024 || T == 4096 || T == 16384);
    (fit ? topk_fit : topk_held).push_back(std::fabs(p_topk / m_topk - 1));
    (fit ? align_fit : align_held).push_back(std::fabs(p_align / m_align - 1));
    if (!fit && E <= 128) topk_held_128.push_back(std::fabs(p_topk / m_topk - 1));
  }
  REQUIRE(topk_fit.size() == 8);
  REQUIRE(topk_held.size() == 24);
  CAPTURE(quantile(topk_fit, 0.5));
  CAPTURE(quantile(topk_held, 0.5));
  CAPTURE(quantile(topk_held_128, 1.0));
  CAPTURE(quantile(align_fit, 0.5));
  CAPTURE(quantile(align_held, 0.5));
  CAPTURE(quantile(align_held, 1.0));
  // Achieved (fit_moe8_routing.py): top-k fit 3.6 %, held out 3.7 % median (52.5 % before), at most
  // 6.6 % up to 128 experts (the 256-expert top-k was -12 to -39 %: its programs' instructions,
  // branch moe10, guarded below);
  // align fit 3.4 %, held out 4.2 % median, 11.3 % max (17.2 / 27.9 % before).
  CHECK(quantile(topk_fit, 0.5) <= 0.05);
  CHECK(quantile(topk_held, 0.5) <= 0.05);
  CHECK(quantile(topk_held_128, 1.0) <= 0.10);
  CHECK(quantile(align_fit, 0.5) <= 0.05);
  CHECK(quantile(align_held, 0.5) <= 0.06);
  CHECK(quantile(align_held, 1.0) <= 0.13);
}

// Branch moe10 (validation/results/h200-moe10): past the SMs' fixed rate of one-warp programs a
// top-k program costs its PTX instructions (33 + 13.5 k + max(1, EP / 32) x (6 k + 8), counted from
// the kernel's structure) at kTopkCyclesPerInstruction, fitted on h200-moe8's 256 x 8 at T = 1024,
// 4096, 16384 (fit_moe10_topk.py). Held out: the rest of that sweep's prefill and h200-moe10's five
// shapes (160 x 6, 256 x 4, 384 x 8, 512 x 10 and 256 x 8 again), predicted before they were measured.
TEST_CASE("top-k past 128 experts at prefill (h200-moe8, h200-moe10): a program's instructions, held out") {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs r = make_roofs(card, &cal, Impl::fused);
  std::vector<double> fit, held, held_signed;
  for (const char* set : {"h200-moe8", "h200-moe10"}) {
    YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/" + set + "/hf.json");
    for (const auto& c : root["routing_cases"]) {
      const int64_t T = c["tokens"].as<int64_t>(), E = c["experts"].as<int64_t>(), k = c["top_k"].as<int64_t>();
      if (!c["ok"].as<bool>() || E <= 128 || T < 256) continue;
      const double m = c["topk_softmax_s"]["median"].as<double>();
      const double e = price(ops::moe_topk("router.topk", T, E, k, DType::bf16), r, Impl::fused).device_time_s / m - 1;
      const bool is_fit = std::string(set) == "h200-moe8" && (T == 1024 || T == 4096 || T == 16384);
      (is_fit ? fit : held).push_back(std::fabs(e));
      if (!is_fit) held_signed.push_back(e);
    }
  }
  REQUIRE(fit.size() == 3);
  REQUIRE(held.size() == 20);
  CAPTURE(quantile(fit, 0.5));
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 1.0));
  CAPTURE(quantile(held_signed, 0.0));
  // Achieved, the op priced here (bf16 logits): fit 3.4 % median; held out 5.8 % median, 13.5 % max
  // (fit_moe10_topk.py through the model lowering: 6.1 / 12.1 %, 24.8 / 70.5 % before, when every
  // program cost the fixed rate); the largest miss is 256 x 4, priced at the fixed rate: -10 to -14 %.
  // Since branch moe11 (the rounds' chain less the local work, 0.50 a PTX instruction): fit 4.1 %,
  // held out 4.9 % median, 12.4 % max, 256 x 4 -4 to -9 %.
  CHECK(quantile(fit, 0.5) <= 0.05);
  CHECK(quantile(held, 0.5) <= 0.08);
  CHECK(quantile(held, 1.0) <= 0.15);
  CHECK(quantile(held_signed, 0.0) >= -0.15);
}

// Branch moe11 (validation/results/h200-moe11): at decode (T <= 64, one program an SM at most) a
// wide router's top-k is one warp's chain, the rounds' shuffles (213 cycles a round, fitted on
// h200-moe-fused2's 9 fit decode layers) and the lone warp's local work, its per-element PTX
// n (6 k + 8) at 2 cycles each (4 schedulers x moe10's 0.50; a free fit on h200-moe8's 256 x 8
// decode gives 1.84). None of these decode cases is fitted on; h200-moe11's were predicted before
// the run (fit_moe11_topk.py).
TEST_CASE("top-k at decode on wide routers (h200-moe8, h200-moe10, h200-moe11): a lone warp's local work, held out") {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs r = make_roofs(card, &cal, Impl::fused);
  std::vector<double> wide, narrow;
  double smallest = 0;
  for (const char* set : {"h200-moe8", "h200-moe10", "h200-moe11"}) {
    YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/" + set + "/hf.json");
    for (const auto& c : root["routing_cases"]) {
      const int64_t T = c["tokens"].as<int64_t>(), E = c["experts"].as<int64_t>(), k = c["top_k"].as<int64_t>();
      if (!c["ok"].as<bool>() || T > 64) continue;
      const double m = c["topk_softmax_s"]["median"].as<double>();
      const double e = price(ops::moe_topk("router.topk", T, E, k, DType::bf16), r, Impl::fused).device_time_s / m - 1;
      (E > 128 ? wide : narrow).push_back(std::fabs(e));
      if (E > 128) smallest = std::min(smallest, e);
    }
  }
  REQUIRE(wide.size() == 12);
  REQUIRE(narrow.size() == 8);
  CAPTURE(quantile(wide, 0.5));
  CAPTURE(quantile(wide, 1.0));
  CAPTURE(smallest);
  CAPTURE(quantile(narrow, 0.5));
  CAPTURE(quantile(narrow, 1.0));
  // Achieved, the op priced here (bf16 logits): more than 128 experts 2.5 % median, 13.0 % max, 8-128
  // experts 0.6 / 6.9 % (fit_moe11_topk.py through the model lowering, h200-moe8's two 256 x 8 apart:
  // 2.3 / 12.0 %, 26.3 / 48.8 % before, 256-1024 experts -9 to -49 %; 2.4 / 10.9 %, 3.0 / 11.8 %
  // before). The largest miss is 1024 x 8 at T = 64 (-13 %), slower than its T = 1 by 0.34 us.
  CHECK(quantile(wide, 0.5) <= 0.035);
  CHECK(quantile(wide, 1.0) <= 0.15);
  CHECK(smallest >= -0.15);
  CHECK(quantile(narrow, 0.5) <= 0.03);
  CHECK(quantile(narrow, 1.0) <= 0.09);
}

TEST_CASE("fused MoE prefills at 1.1-3 row blocks an expert (h100-lagcheck, h100-straddle), priced before each run") {
  // validation/results/h100-lagcheck (thirtieth session's plan, run in the thirty-fourth): 20 layers, the partner lag
  // kept by its rule (grouped GEMMs 6.6 / 9.7 % against 7.7 / 19.9 % without). validation/results/h100-straddle
  // (thirty-fourth session): 14 layers, GROUP_SIZE_M's straddle adopted by its rule (4.9 / 9.6 % against 6.0 / 11.7 %
  // without). The straddle was written after h100-lagcheck's misses, so that set is seen for it (6.6 -> 4.0 %).
  // Achieved (grouped GEMMs median / p90 by this file's interpolation, layers median with the host's launch):
  // h100-lagcheck 4.0 / 8.3 %, layers 4.0 %; h100-straddle 4.9 / 8.7 %, layers 4.4 %.
  struct Bound {
    std::string set;
    size_t layers;
    double gemm_median, gemm_p90, layer_median;
  };
  for (const Bound& b : {Bound{"h100-lagcheck", 20, 0.045, 0.09, 0.045}, Bound{"h100-straddle", 14, 0.055, 0.095, 0.05}}) {
    const Fused2 f("h100-sxm", b.set);
    std::vector<double> gemm;
    for (const auto& [point, e] : f.prefill_gemm_signed) gemm.push_back(std::fabs(e));
    CAPTURE(b.set);
    CAPTURE(quantile(gemm, 0.5));
    CAPTURE(quantile(gemm, 0.9));
    CAPTURE(quantile(f.layer_all, 0.5));
    REQUIRE(gemm.size() == b.layers);
    CHECK(quantile(gemm, 0.5) <= b.gemm_median);
    CHECK(quantile(gemm, 0.9) <= b.gemm_p90);
    CHECK(quantile(f.layer_all, 0.5) <= b.layer_median);
  }
}

TEST_CASE("fused MoE decode past 12 small tiles an SM (h100-smalltile), priced before the run") {
  // validation/results/h100-smalltile (thirty-fourth session): 17 decode layers at vLLM's small default tile, priced at
  // 16 and at 12 CTAs an SM before the run; its rule kept 16 (grouped GEMMs 3.5 / 10.6 % median / p90 against 4.8 /
  // 13.2 % at 12; by this file's interpolation 3.5 / 8.1 %). Layers: the routing draw at 3-6 Mixtral tokens.
  const Fused2 f("h100-sxm", "h100-smalltile");
  REQUIRE(f.gemm_held.size() == 17);
  CAPTURE(quantile(f.gemm_held, 0.5));
  CAPTURE(quantile(f.gemm_held, 0.9));
  CHECK(quantile(f.gemm_held, 0.5) <= 0.04);
  CHECK(quantile(f.gemm_held, 0.9) <= 0.09);
}

TEST_CASE("fused MoE layers at new points after the thirty-fourth session (h100-moecheck34), priced before the run") {
  // validation/results/h100-moecheck34: 20 layers, two decodes and two prefills of five models, priced as main stood
  // after the straddle and the small tile's rule; nothing fitted, nothing chosen. Achieved (score_moe_prices.py):
  // grouped GEMMs 5.0 / 8.8 % median / p90, layers 3.7 % median; by this file's reading 5.0 / 9.0 %, layers 3.7 %.
  const Fused2 f("h100-sxm", "h100-moecheck34");
  std::vector<double> gemm = f.gemm_held;
  gemm.insert(gemm.end(), f.gemm_fit.begin(), f.gemm_fit.end());
  CAPTURE(quantile(gemm, 0.5));
  CAPTURE(quantile(gemm, 0.9));
  CAPTURE(quantile(f.layer_all, 0.5));
  REQUIRE(gemm.size() == 20);
  CHECK(quantile(gemm, 0.5) <= 0.055);
  CHECK(quantile(gemm, 0.9) <= 0.10);
  CHECK(quantile(f.layer_all, 0.5) <= 0.045);
}
