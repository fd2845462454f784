// Issue 11: whole MoE/MLA steps of transformers 5 eager on the H200 (Qwen3-30B-A3B,
// DeepSeek-V2-Lite, Mixtral-8x7B; validation/results/h200-moe-contiguous, the cache kept
// contiguous between decode steps) against `--impl eager --eager-cache contiguous`, what
// validation/scripts/moe/compare_moe.py prints. Fit set: Qwen3 and DeepSeek decode (the op list was
// read off them; torch._grouped_mm's parameters were fitted on Qwen3's kernel cases). Held out:
// Mixtral and every prefill. Branch moe2 fitted one more number (generic_operand_elements_per_s)
// on Qwen3's and DeepSeek's prefill b1 only. The bounds are the achieved medians (docs/accuracy.md)
// with a little room; a change that moves them past these bounds fails here. Wall time is also
// checked on validation/results/h200-moe (cropped cache): the contiguous run's timed steps
// include the asynchronous cache copies made between them (h200-moe-contiguous/README.md).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "hf_wall_errors.hpp"
#include "mla_stand_in.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Errors {
  std::vector<double> kernel, wall, launches;
};

struct MoeSteps {
  Errors fit, held_out, prefill, mixtral_decode;
  // Kernel times under the committed calibration; walls under the rate fitted on walls like these (every point but a
  // run's first was timed after a profiler session of its process: test::dragged_wall_calibration).
  explicit MoeSteps(const std::string& folder) {
    const Card card = test::catalogue().card("h200");
    const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    const Calibration dragged = test::dragged_wall_calibration();
    YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/" + folder + "/hf.json");
    for (const auto& s : root["steps"]) {
      if (!s["ok"].as<bool>()) continue;
      const std::string model = s["model"].as<std::string>();
      Workload w;
      w.phase = s["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
      w.batch = s["batch"].as<int64_t>();
      // hf_decode.py's decode step runs at position ctx over a cache of ctx tokens: it attends
      // ctx + 1 keys, what perfmodel's --ctx counts (the new one included); a prefill is ctx tokens.
      w.ctx = s["ctx"].as<int64_t>() + (w.phase == Phase::decode ? 1 : 0);
      w.impl = Impl::eager;
      w.eager_cache_cropped = !(s["cache_layout"] && s["cache_layout"].as<std::string>() == "contiguous");
      const Evaluation e = evaluate(test::catalogue().model(model), w, card, &cal);
      const Evaluation at_drag = evaluate(test::catalogue().model(model), w, card, &dragged);
      const double kernel = std::fabs(e.cost.device_time_s / s["kernel_s"].as<double>() - 1);
      const double wall = std::fabs(at_drag.cost.time_s / s["wall_s"].as<double>() - 1);
      const double launches = static_cast<double>(e.step.launches()) / s["kernels_per_step"].as<double>() - 1;
      std::vector<Errors*> sets{model == "mixtral-8x7b" || w.phase == Phase::prefill ? &held_out : &fit};
      if (w.phase == Phase::prefill) sets.push_back(&prefill);
      if (model == "mixtral-8x7b" && w.phase == Phase::decode) sets.push_back(&mixtral_decode);
      for (Errors* set : sets) {
        set->kernel.push_back(kernel);
        set->wall.push_back(wall);
        set->launches.push_back(launches);
      }
    }
  }
};

const MoeSteps& steps() {
  static const MoeSteps s("h200-moe-contiguous");
  return s;
}

const MoeSteps& cropped_steps() {
  static const MoeSteps s("h200-moe");
  return s;
}

const MoeSteps& synchronized_steps() {
  static const MoeSteps s("h200-moe-sync");
  return s;
}

}  // namespace

TEST_CASE("MoE/MLA eager steps, fit set (Qwen3 + DeepSeek decode): kernel and wall medians") {
  const Errors& f = steps().fit;
  REQUIRE(f.kernel.size() == 11);
  CAPTURE(quantile(f.kernel, 0.5));
  CAPTURE(quantile(f.kernel, 0.9));
  CAPTURE(quantile(f.wall, 0.5));
  CAPTURE(quantile(f.wall, 0.9));
  // Achieved: kernel 4.0 % median, 6.9 % p90 (3.2 % / 8.4 % before moe2: the glue moe2 added
  // at decode, two masked_fill clones and generic-path act kernels, uncovered attention's
  // over-prediction; the MLA key cat no longer counted twice took it back); wall 23.9 %
  // (the contiguous run's timed steps carry the cache copies: see the cropped check below).
  CHECK(quantile(f.kernel, 0.5) <= 0.04);
  CHECK(quantile(f.kernel, 0.9) <= 0.075);
  CHECK(quantile(f.wall, 0.5) <= 0.25);
}

TEST_CASE("MoE/MLA eager steps, held out (Mixtral, every prefill): kernel and wall medians") {
  const Errors& h = steps().held_out;
  REQUIRE(h.kernel.size() == 9);
  CAPTURE(quantile(h.kernel, 0.5));
  CAPTURE(quantile(h.kernel, 0.9));
  CAPTURE(quantile(h.wall, 0.5));
  CAPTURE(quantile(h.wall, 0.9));
  // Achieved: kernel 9.7 % median, 14.8 % p90 (22.2 % / 32.8 % before moe2: the masked_fill
  // clones over T k (hidden + I) and the generic path priced per operand element); wall 7.7 %
  // (28.0 %). Branch moe3 (torch._grouped_mm's per-CTA + shared stream, fitted on Qwen3 and
  // Mixtral kernel cases): kernel 4.6 % median, 11.3 % p90.
  // 6.1 % with branch eagercudnn merged (cuDNN prefill priced); 3.0 % / 7.4 % p90 after moe5.
  CHECK(quantile(h.kernel, 0.5) <= 0.035);
  CHECK(quantile(h.kernel, 0.9) <= 0.08);
  // Wall 7.7 -> 9.1 % when the eager attention became cuDNN's kernels (what every step's kernel
  // names show): the device time fell by the +42 ms the FlashAttention-2 rates over-priced, and
  // the host-bound steps' wall is now under-predicted by the launch deficit alone.
  CHECK(quantile(h.wall, 0.5) <= 0.075);  // 6.9 % after moe5
}

TEST_CASE("MoE/MLA eager prefill (6 steps): GPU kernel time within the issue's 10 % median") {
  const Errors& p = steps().prefill;
  REQUIRE(p.kernel.size() == 6);
  CAPTURE(quantile(p.kernel, 0.5));
  CAPTURE(quantile(p.wall, 0.5));
  // Achieved: kernel 7.8 % median (27.0 % before moe2), 6.7 % after moe3; wall 7.5 % (27.1 %).
  // 7.2 % after branch eltwise: LlamaRMSNorm-style norms and rotary now cost what their kernels
  // measure (h200-eltwise3 kernel_split.json), which no longer offsets torch._grouped_mm's
  // over-price at 128 rows per expert (Qwen3 b1: the step's grouped GEMMs 25.2 ms predicted, 18.7
  // measured). The bound follows that by 0.5 point; the 10 % is the target.
  // Branch moe5 (h200-moe5): GroupMM.cu's two kernels at their own MMA shares, and each expert's
  // tiles over a router's binomial rows (Mixtral b1 -15 % -> -3 %): 4.5 % kernel, 3.8 % wall.
  CHECK(quantile(p.kernel, 0.5) <= 0.05);
  CHECK(quantile(p.wall, 0.5) <= 0.045);  // 8.3 % with cuDNN's prefill priced (was 7.5 % on FA2's rates)
  // Every prefill step still launches fewer kernels than measured, within 10 % (cub's radix
  // sort past 4096 routed rows: 24 kernels for the two argsorts).
  for (double l : p.launches) {
    CHECK(l < 0);
    CHECK(l > -0.10);  // Mixtral b1 -9.3 %: 4096 routed rows, the in-place sort
  }
}

TEST_CASE("Mixtral decode (3 steps): torch._grouped_mm at Mixtral's shapes priced") {
  const Errors& m = steps().mixtral_decode;
  REQUIRE(m.kernel.size() == 3);
  CAPTURE(quantile(m.kernel, 0.5));
  // Achieved: kernel 10.3 % median before moe3 (-16 % and -10 % at b16 and b64: one per-CTA
  // rate for every K and CTA count); 1.1 % after (-2 %, -4 %, +0 % on h200-moe-sync), the
  // grouped_mm parameters fitted on kernel cases (Mixtral's T = 1 and 64 among them), no step.
  CHECK(quantile(m.kernel, 0.5) <= 0.03);
}

TEST_CASE("MoE/MLA eager wall time on the cropped-cache run (h200-moe): host-bound steps priced") {
  const MoeSteps& c = cropped_steps();
  std::vector<double> wall = c.fit.wall;
  wall.insert(wall.end(), c.held_out.wall.begin(), c.held_out.wall.end());
  REQUIRE(wall.size() == 21);
  CAPTURE(quantile(wall, 0.5));
  CAPTURE(quantile(wall, 0.9));
  // Achieved: 9.1 % median, 16.2 % p90 over the 21 steps (host 20.9-22.5 us per kernel measured
  // on the host-bound steps, the profile's 20.63; the rest is the launch deficit, -3 to -11 %).
  CHECK(quantile(wall, 0.5) <= 0.10);
  CHECK(quantile(wall, 0.9) <= 0.18);  // 17.7 % with the eager attention on cuDNN's kernels (16.2 % before)
}

TEST_CASE("MoE/MLA eager steps re-measured with a synchronized wall (h200-moe-sync, nothing fitted on it)") {
  const MoeSteps& r = synchronized_steps();
  std::vector<double> wall = r.fit.wall, kernel = r.fit.kernel;
  wall.insert(wall.end(), r.held_out.wall.begin(), r.held_out.wall.end());
  kernel.insert(kernel.end(), r.held_out.kernel.begin(), r.held_out.kernel.end());
  REQUIRE(wall.size() == 23);
  CAPTURE(quantile(wall, 0.5));
  CAPTURE(quantile(wall, 0.9));
  CAPTURE(quantile(kernel, 0.5));
  CAPTURE(quantile(kernel, 0.9));
  // Achieved: wall 7.0 % median / 20.2 % p90 (two host-noise outliers, README), kernel time 5.4 %
  // median / 10.2 % p90 over 23 steps of a later lease (h200-moe-sync/README.md); kernel time
  // 3.6 % / 7.8 % after moe3 (its grouped_mm fit used 4 Mixtral and 4 Qwen3 kernel cases of this
  // run, none of its steps).
  // After moe5 (GroupMM.cu's kernels, binomial rows per expert): wall 5.8 %, kernel 2.0 % / 6.5 %.
  CHECK(quantile(wall, 0.5) <= 0.065);
  CHECK(quantile(kernel, 0.5) <= 0.025);
  CHECK(quantile(kernel, 0.9) <= 0.07);
}

namespace {

// torch._grouped_mm's kernel cases (h200-moe, h200-moe-sync, h200-moe-fused's routing sweep)
// against the eager profile's grouped_gemm price: |predicted / measured - 1|, split as
// validation/scripts/moe/fit_grouped_mm.py fits (h200-moe-sync's Qwen3 and Mixtral T = 1, 64).
struct GroupedCases {
  std::vector<double> fit, held, mixtral_held, sweep;
  GroupedCases() {
    const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    const Roofs r = make_roofs(test::catalogue().card("h200"), &cal, Impl::eager);
    for (const char* run : {"h200-moe", "h200-moe-sync", "h200-moe-fused"}) {
      YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/" + run + "/hf.json");
      for (const auto& c : root["kernel_cases"]) {
        if (c["kernel"].as<std::string>() != "grouped_gemm" || !c["ok"].as<bool>()) continue;
        const std::string name = c["name"].as<std::string>();
        const int64_t n = c["n"].as<int64_t>(), k = c["k"].as<int64_t>();
        // The sweep sets its routing by hand: g experts with r rows each is r tokens picking all g.
        const bool by_hand = static_cast<bool>(c["rows_per_expert"]);
        const int64_t tokens = by_hand ? c["rows_per_expert"].as<int64_t>() : c["tokens"].as<int64_t>();
        const int64_t top_k = by_hand ? c["experts_touched"].as<int64_t>() : c["top_k"].as<int64_t>();
        const int64_t experts = by_hand ? top_k : c["experts"].as<int64_t>();
        const Op op = ops::grouped_gemm(name, tokens, top_k, experts, n, k, DType::bf16, DType::bf16, Precision::bf16);
        const double err = std::fabs(price(op, r, Impl::eager).device_time_s / c["median_s"].as<double>() - 1);
        const bool in_fit = std::string(run) == "h200-moe-sync" && (tokens == 1 || tokens == 64);
        (in_fit ? fit : held).push_back(err);
        if (!in_fit && name.find("mixtral") != std::string::npos) mixtral_held.push_back(err);
        if (by_hand) sweep.push_back(err);
      }
    }
  }
};

}  // namespace

TEST_CASE("torch._grouped_mm kernel cases: fit on Qwen3 + Mixtral, 37 held out (DeepSeek, K and rows sweep)") {
  const GroupedCases g;
  REQUIRE(g.fit.size() == 8);
  REQUIRE(g.held.size() == 37);
  REQUIRE(g.sweep.size() == 13);
  CAPTURE(quantile(g.fit, 0.5));
  CAPTURE(quantile(g.held, 0.5));
  CAPTURE(quantile(g.held, 0.9));
  CAPTURE(quantile(g.sweep, 0.5));
  CAPTURE(quantile(g.mixtral_held, 0.5));
  // Achieved (fit_grouped_mm.py): fit 4.1 % median, 13.1 % max; held out 7.4 % median, 17.4 %
  // p90 (interpolated; 16.7 % nearest rank); the sweep 6.3 % (the model before moe3: 43.8 %,
  // its K = 14336 and 32-CTA cases +50 .. +111 %);
  // Mixtral's held-out T = 8 and 256 12.4 % (routing variance at T = 8 and 256 not modelled).
  CHECK(quantile(g.fit, 0.5) <= 0.045);
  CHECK(quantile(g.held, 0.5) <= 0.08);
  CHECK(quantile(g.held, 0.9) <= 0.18);
  CHECK(quantile(g.sweep, 0.5) <= 0.07);
  CHECK(quantile(g.mixtral_held, 0.5) <= 0.13);
}

namespace {

// h200-moe-fused: the production stand-ins (validation/scripts/moe/run_fused.py) against the
// fused profile, as validation/scripts/moe/compare_fused.py compares them. Nothing fitted.
struct FusedStandIns {
  std::vector<double> mla_lite_best, mla_v3_best_signed, moe_decode, moe_grouped;
  // Mixtral at T > E = 8 (T = 16, 64): vLLM's default 64 x 64 x 32 tile, BLOCK_K 32 (h200-moe5).
  std::vector<double> half_line_decode, half_line_grouped;
  FusedStandIns() {
    const Card card = test::catalogue().card("h200");
    const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    const Roofs r = make_roofs(card, &cal, Impl::fused);
    YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-moe-fused/hf.json");
    // MLA decode: the faster of the two split policies at each (model, batch, ctx).
    mla_test::mla_errors(root, r, mla_lite_best, mla_v3_best_signed);
    // MoE layers: the graph replay against the fused step's router + experts (+ shared) ops of one layer.
    for (const auto& c : root["moe_cases"]) {
      if (!c["ok"].as<bool>() || c["phase"].as<std::string>() != "decode") continue;
      Workload w;
      w.phase = Phase::decode;
      w.batch = c["tokens"].as<int64_t>();
      w.ctx = 512;
      w.impl = Impl::fused;
      const Evaluation e = evaluate(test::catalogue().model(c["model"].as<std::string>()), w, card, &cal);
      double layer = 0, grouped = 0;
      for (size_t i = 0; i < e.step.ops.size(); ++i) {
        const Op& op = e.step.ops[i];
        const bool moe = op.name.rfind("router.", 0) == 0 || op.name.rfind("experts.", 0) == 0 ||
                         op.name.rfind("shared_", 0) == 0;
        if (!moe) continue;
        // Per instance: one layer's. The layer is a graph replay, so it is priced as one (time_s: the
        // kernels and graph_kernel_gap per launch, as test_moe_fused2_accuracy.cpp does; since branch
        // idle8 the fused profile's small kernels are priced alone, without the idle after them that
        // their harness floors held, so the kernels' device time no longer stands in for the replay);
        // the grouped GEMM's kernels by device time.
        layer += e.cost.ops[i].time_s;
        if (op.kernel == KernelId::grouped_gemm) grouped += e.cost.ops[i].device_time_s;
      }
      double measured_grouped = 0;
      for (const auto& k : c["kernel_device_s"]) {
        const std::string name = k["name"].as<std::string>();
        if (name.find("GroupProblemShape") != std::string::npos || name.find("grouped") != std::string::npos)
          measured_grouped += k["device_s"].as<double>();
      }
      moe_decode.push_back(layer / c["median_s"].as<double>() - 1);
      moe_grouped.push_back(grouped / measured_grouped - 1);
      if (c["model"].as<std::string>() == "mixtral-8x7b" && c["tokens"].as<int64_t>() > 8) {
        half_line_decode.push_back(moe_decode.back());
        half_line_grouped.push_back(moe_grouped.back());
      }
    }
  }
};

}  // namespace

TEST_CASE("fused profile against the production stand-ins (h200-moe-fused): MLA decode and MoE layers") {
  const FusedStandIns f;
  REQUIRE(f.mla_lite_best.size() == 16);
  REQUIRE(f.mla_v3_best_signed.size() == 16);
  REQUIRE(f.moe_decode.size() == 12);
  CAPTURE(quantile(f.mla_lite_best, 0.5));
  CAPTURE(quantile(f.mla_v3_best_signed, 0.5));
  CAPTURE(quantile(f.moe_decode, 0.5));
  CAPTURE(quantile(f.moe_grouped, 0.5));
  // DeepSeek-V2-Lite (16 heads, memory-bound): the fused profile's attention_mla_decode within
  // 14.2 % median of the faster Triton split policy (the attention target is 8 %: not met).
  CHECK(quantile(f.mla_lite_best, 0.5) <= 0.15);
  // DeepSeek-V3 (128 heads: 242 FLOP per latent byte, past the ridge): the Triton kernel's
  // mma.sync 16-head tiles run ~136 TFLOP/s, the profile prices FlashMLA-like compute at the
  // fused attention peak; the stand-in stays several times slower (a known gap, README).
  CHECK(quantile(f.mla_v3_best_signed, 0.5) < -0.5);
  // MoE decode layers: the fused profile is optimistic against the stand-in (torch._grouped_mm +
  // 25 kernels a layer, where the profile prices vLLM's 7): every point under-predicted.
  // Achieved: 44.4 % median |err| over the 12 decode layers, their grouped GEMMs alone 29.4 %
  // (27.9 % over all 15 layers, prefill included: comparison.md). Since branch moe4 the fused
  // profile prices vLLM's fused_moe kernel (fused_moe_cost.cpp, fitted on h200-moe-fused2, where
  // test_moe_fused2_accuracy.cpp guards it): against this other engine 43.8 % and 29.9 %.
  // Except Mixtral past T = 8 (T = 16, 64): since h200-moe5 the fused profile prices vLLM's
  // 64 x 64 x 32 tile at its half-line stream (BLOCK_K 32: 2.6-3.0 TB/s, measured), the rate
  // torch._grouped_mm's CUTLASS kernel also reaches at Mixtral's decode shapes (h200-moe-sync:
  // 2.6-2.7 TB/s), so there the two engines meet: within 10 % of the stand-in, either side.
  REQUIRE(f.half_line_decode.size() == 2);
  for (size_t i = 0; i < f.moe_decode.size(); ++i) {
    const bool half_line = std::find(f.half_line_decode.begin(), f.half_line_decode.end(), f.moe_decode[i]) !=
                           f.half_line_decode.end();
    if (half_line) {
      CHECK(std::fabs(f.moe_decode[i]) <= 0.10);
      CHECK(std::fabs(f.moe_grouped[i]) <= 0.10);
    } else {
      CHECK(f.moe_decode[i] < 0);
      CHECK(f.moe_grouped[i] < 0);
    }
  }
  std::vector<double> layer_abs, grouped_abs;
  for (double e : f.moe_decode) layer_abs.push_back(std::fabs(e));
  for (double e : f.moe_grouped) grouped_abs.push_back(std::fabs(e));
  CHECK(quantile(layer_abs, 0.5) <= 0.45);
  CHECK(quantile(grouped_abs, 0.5) <= 0.30);
}

TEST_CASE("the MoE wall no profiler touched (h200-moe-contiguous's first step): priced per ATen call") {
  // Qwen3-30B-A3B decode b1 ctx512, 68.6 ms: the run's first point, timed before any profiler session of its process.
  // The committed host_per_aten (fit_host_clean.py, dense steps of another lease) prices it 13 % fast; the per-kernel
  // rate fitted on dragged walls 32 % slow.
  const YAML::Node st = YAML::LoadFile(test::root() + "/validation/results/h200-moe-contiguous/hf.json")["steps"][0];
  REQUIRE(st["phase"].as<std::string>() == "decode");
  const auto first = [](int i, const YAML::Node&) { return i == 0; };
  const std::vector<double> now =
      test::hf_wall_errors("h200-moe-contiguous/hf.json", load_calibration(test::root() + "/hardware/h200.calibration.yaml"), first);
  const std::vector<double> dragged = test::hf_wall_errors("h200-moe-contiguous/hf.json", test::dragged_wall_calibration(), first);
  REQUIRE(now.size() == 1);
  CAPTURE(now[0]);
  CAPTURE(dragged[0]);
  CHECK(now[0] <= 0.20);
  CHECK(now[0] < dragged[0]);
}
