// The quantized-GEMM accuracy guard (issue 12): predictions recomputed for the committed H200
// measurements of PyTorch's quantized kernels (validation/results/h200-quant and h200-quant2).
// The weight-only parameters of the calibration's `quant:` section, the row-scaled and
// block-scaled FP8 kernels' keys and torch._int_mm's three (quant_gemm_cost.cpp) were fitted on
// half of the shapes (validation/scripts/quant/fit_quant.py, FIT_SHAPES); the errors below are on
// the other half (the tensor-scaled FP8 keys too since fp8mm14). Target: <= 8 % median, <= 20 % p90.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "perfmodel/calibration.hpp"
#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "quant_stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const std::set<std::pair<std::string, std::string>> kFitShapes{
    {"llama3-8b", "qkv"}, {"llama3-8b", "down"}, {"qwen2.5-7b", "o"}, {"qwen2.5-7b", "gateup"},
    {"llama3-70b", "qkv"}, {"llama3-70b", "down"}};

// Today's levels of the sets that miss the target or are not targets (regression guards).
constexpr double SWEEP_ROW_MEDIAN = 0.05, SWEEP_ROW_P90 = 0.09, SWEEP_TENSOR_MEDIAN = 0.06;  // sweep_row: 0.07 / 0.22 before fp8cap10; sweep_tensor 0.096 before fp8mm14
constexpr double INT8_MEDIAN = 0.05, INT8_P90 = 0.14, INT8_SCALED_MEDIAN = 0.09, INT8_SCALED_P90 = 0.18;
constexpr double BLOCK_MEDIAN = 0.04, BLOCK_P90 = 0.07;
constexpr double FR11_MEDIAN = 0.04, FR11_P90 = 0.11;  // h200-fp8row11 probe past 128 rows (fp8row12: 3.4 % / 9.8 %; fp8row11: 4.7 % / 15.2 %; main 9.9 % / 23.3 %)
constexpr double Q6_INT8_MEDIAN = 0.06, Q6_INT8_P90 = 0.14, Q6_BLOCK_MEDIAN = 0.03, Q6_BLOCK_P90 = 0.07;  // q6 block p90 0.11 before fp8small12 (the pair's harness idle)
constexpr double WONLY_INT8_MEDIAN = 0.02, WONLY_INT8_P90 = 0.05, Q8_ROUNDS_MEDIAN = 0.11, Q8_ROUNDS_P90 = 0.17;

using quant_test::Stats;
using quant_test::stats;

// Sets of absolute errors by name: wonly_int4 / wonly_int8 (held-out shapes), scaled_tensor,
// scaled_row, act_quant (compiled), and wonly_*_fit for the shapes the fit used.
// The committed H200 sets, each with its set-name prefix: h200-quant5, h200-quant6: new shapes and row counts, held out
// (nothing of them in FIT_SHAPES): sets "q5_*", "q6_*" (quant6's decode-attention cases: test_quant_kv_accuracy);
// h200-quant8: torch int8pack's new shapes, measured after quant8 fitted its two keys: "q8_*".
const std::vector<std::pair<std::string, std::string>> kH200Parts = {
    {"h200-quant/quant-0.json", ""},         {"h200-quant/quant-1.json", ""},       {"h200-quant2/quant2.json", ""},
    {"h200-quant5/quant5.json", "q5_"},      {"h200-quant6/quant6.json", "q6_"},    {"h200-quant8/quant8.json", "q8_"},
    {"h200-fp8cap10/fp8cap10.json", "fc10_"}, {"h200-fp8row11/fp8row11.json", "fr11_"},
    {"h200-fp8row12/fp8row12.json", "fr12_"}, {"h200-fp8mm14/fp8mm14.json", "fm14_"}};

// Sets of absolute errors by name: wonly_int4 / wonly_int8 (held-out shapes), scaled_tensor,
// scaled_row, act_quant (compiled), and wonly_*_fit for the shapes the fit used. `card_key`: the card the parts ran
// on (another card of the H200's die prices with the H200's file carried).
std::map<std::string, std::vector<double>> errors(const std::string& card_key = "h200",
                                                  const std::vector<std::pair<std::string, std::string>>& parts = kH200Parts) {
  const Card card = test::catalogue().card(card_key);
  // QUANT_CALIBRATION names another calibration to report (h200-quant9's opt-in); the guards are
  // for the default.
  const char* other = std::getenv("QUANT_CALIBRATION");
  const Calibration cal = card_key != "h200" ? *sibling_calibration(test::catalogue(), card)
                          : load_calibration(other ? std::string(other) : test::root() + "/hardware/h200.calibration.yaml");
  const Roofs card_roofs = make_roofs(card, &cal);
  // torch._int_mm is what PyTorch's eager (and compiled) profile runs: its sm80 mma.sync kernel
  // (the calibration's quant: int8_mma_sync_*); the card's own roofs price the other kernels.
  // Single-call harness times: the eager floors as fitted on such times (harness_idle_s off gives a
  // floor the profile prices alone the idle after its kernel back, as the harness time holds it;
  // profile_accuracy.cpp compares the same way).
  Roofs eager_roofs = make_roofs(card, &cal, Impl::eager);
  eager_roofs.harness_idle_s = 0;
  std::map<std::string, std::vector<double>> out;
  for (const auto& [part, prefix] : parts) {
    std::ifstream f(test::root() + "/validation/results/" + part);
    REQUIRE(f.good());
    const nlohmann::json doc = nlohmann::json::parse(f);
    for (const auto& c : doc.at("cases")) {
      if (!c.value("ok", false) || !c.value("correct", false)) continue;
      const std::string kernel = c.at("kernel");
      if (kernel == "attention_decode") continue;  // h200-quant6's KV cases: test_quant_kv_accuracy.cpp
      const int64_t m = c.at("m"), n = c.value("n", 0), k = c.at("k");
      const bool int_mm = kernel == "gemm_scaled" && c.at("dtype") == "int8";
      const Roofs& r = int_mm ? eager_roofs : card_roofs;
      KernelCase kc;
      kc.rotated_bytes = c.value("rotated_bytes", 0.0);
      const double hit = harness_l2_hit(kc, r.l2_cyclic_capacity);
      std::vector<Op> ops;
      std::string set;
      if (kernel == "gemm_wonly") {
        const DType w = c.at("dtype") == "int8" ? DType::int8 : DType::int4;
        ops.push_back(ops::gemm_wonly("g", m, n, k, DType::bf16, w, c.at("group_size")));
        const bool fit = kFitShapes.count({c.at("model"), c.at("shape")}) > 0;
        set = std::string("wonly_") + (w == DType::int8 ? "int8" : "int4") + (fit ? "_fit" : "");
        // int8pack at 1-4 rows with more blocks than one resident round (8 an SM): the effect
        // quant_gemm_cost.cpp int8pack_cost does not price, kept apart in h200-quant8.
        if (prefix == "q8_" && m <= 4 && (n + 15) / 16 > 8 * card.sm_count) set += "_rounds";
      } else if (kernel == "gemm_scaled" && c.at("dtype") == "int8") {
        // torch._int_mm alone (no scales), or with its eager epilogue: cast, x row scales, x column
        // scales, cast to bf16 (four TensorIterator kernels over the M x N output).
        const int64_t mp = c.at("m_padded");
        const bool epilogue = c.at("scaling") == "row";
        ops.push_back(ops::gemm_scaled("g", mp, n, k, DType::bf16, DType::int8, Scaling::tensor));
        if (epilogue) {
          ops.back().bytes_written = 4.0 * static_cast<double>(mp * n);  // int32 out
          ops.push_back(ops::cast("c", mp, n, DType::fp32, DType::fp32));
          ops.push_back(ops::elementwise("sa", KernelId::mul, mp, n, DType::fp32, 1, 1, 1));
          ops.push_back(ops::elementwise("sb", KernelId::mul, mp, n, DType::fp32, 1, 1, 1));
          ops.push_back(ops::cast("o", mp, n, DType::fp32, DType::bf16));
        } else {
          ops.back().bytes_written = 4.0 * static_cast<double>(mp * n);
        }
        const bool fit = kFitShapes.count({c.at("model"), c.at("shape")}) > 0;
        set = std::string(epilogue ? "int8_mm_scaled" : "int8_mm") + (fit ? "_fit" : "");
      } else if (kernel == "gemm_scaled") {
        const std::string sc = c.at("scaling");
        const Scaling s = sc == "row" ? Scaling::row : sc == "block" ? Scaling::block : Scaling::tensor;
        ops.push_back(ops::gemm_scaled("g", c.at("m_padded"), n, k, DType::bf16, DType::fp8, s));
        const bool fit = kFitShapes.count({c.at("model"), c.at("shape")}) > 0;
        if (c.at("model") == "sweep") set = s == Scaling::row ? "sweep_row" : "sweep_tensor";
        else if (s == Scaling::block) set = fit ? "scaled_block_fit" : "scaled_block";
        else set = s == Scaling::row ? (fit ? "scaled_row_fit" : "scaled_row") : (fit ? "scaled_tensor_fit" : "scaled_tensor");
      } else if (kernel == "act_quant" && c.at("implementation") == "torch.compile") {
        const std::string scaling = c.at("scaling"), mode = c.at("act_quant");
        if (scaling == "tensor" && mode == "dynamic") ops.push_back(ops::act_amax("a", m, k, DType::bf16));
        const Scaling s = scaling == "row" ? Scaling::row : scaling == "group" ? Scaling::block : Scaling::tensor;
        ops.push_back(ops::act_quant("q", m, k, DType::bf16, DType::fp8, s, s != Scaling::tensor));
        set = s == Scaling::block ? "act_quant_group" : "act_quant";
      } else {
        continue;
      }
      set = prefix + set;
      // h200-fp8row12: its N = 8192 and 4096 rows at K = 8192 fitted fp8_row_padded_full_walker (fit_quant.py FR12_FIT_TAGS)
      if (prefix == "fr12_") {
        const std::string name = c.at("name");
        if (name.find("_o70_") != std::string::npos || name.find("_n4096_") != std::string::npos) set += "_fit";
      }
      double t = 0;
      for (Op& op : ops) {
        op.l2_hit = hit;
        t += price(op, r, Impl::fused).time_s;
      }
      // Block-scaled FP8 with cuBLASLt's split (the _splitK kernel, then splitKreduce; or a memset
      // before the kernel): the harness time holds the GPU idle after a pair of kernels, 1.06 us,
      // where the block keys, fitted on one-kernel calls, hold the 0.46 after one
      // (profile_accuracy.cpp harness_idle_s, measured over h200-gemm-chain; branch fp8small12).
      if (kernel == "gemm_scaled" && set.find("scaled_block") != std::string::npos)
        t += harness_idle_s(c.value("kernels_per_launch", 1)) - harness_idle_s(1);
      const double measured = c.at("measured_s");
      REQUIRE(measured > 0);
      out[set].push_back(std::fabs(t / measured - 1));
      if (std::getenv("QUANT_DEBUG") && (set == std::getenv("QUANT_DEBUG") || std::string(std::getenv("QUANT_DEBUG")) == "*"))
        MESSAGE(c.at("name").get<std::string>() << " pred " << t * 1e6 << " meas " << measured * 1e6);
    }
  }
  return out;
}

const std::map<std::string, std::vector<double>>& errs() {
  static const auto e = errors();
  return e;
}

TEST_CASE("the committed quantized-GEMM measurements are all there") {
  // 108 W4A16 cases per group size (12 shapes x 9 M) and 108 of each other kind.
  CHECK(errs().at("wonly_int4").size() + errs().at("wonly_int4_fit").size() == 216);
  CHECK(errs().at("wonly_int8").size() + errs().at("wonly_int8_fit").size() == 108);
  CHECK(errs().at("scaled_tensor").size() + errs().at("scaled_tensor_fit").size() == 108);
  CHECK(errs().at("scaled_row").size() + errs().at("scaled_row_fit").size() == 108);
  // h200-quant2: 108 block-scaled FP8, 108 of each INT8 kind, 26 row and 26 tensor sweep cases,
  // 10 compiled 1x128-group activation quantizations.
  CHECK(errs().at("scaled_block").size() + errs().at("scaled_block_fit").size() == 108);
  CHECK(errs().at("int8_mm").size() == 54);
  CHECK(errs().at("int8_mm_fit").size() == 54);
  CHECK(errs().at("int8_mm_scaled").size() == 54);
  CHECK(errs().at("int8_mm_scaled_fit").size() == 54);
  CHECK(errs().at("sweep_row").size() == 26);
  CHECK(errs().at("sweep_tensor").size() == 26);
  CHECK(errs().at("act_quant_group").size() == 10);
  // h200-quant5: 10 new shapes x 7 row counts; Qwen2.5-72B down's block cases fail their check
  // (K = 29568 = 231 x 128) and are left out.
  CHECK(errs().at("q5_int8_mm").size() == 70);
  CHECK(errs().at("q5_scaled_block").size() == 63);
  // h200-quant6: 6 INT8 shapes x 8 row counts; 10 block-scaled shapes, of which Qwen2.5-1.5B and
  // -3B down (K = 8960, 11008: K / 128 not a multiple of 4) fail their check (12 cases).
  CHECK(errs().at("q6_int8_mm").size() == 48);
  CHECK(errs().at("q6_scaled_block").size() == 36);
  // h200-quant8: 23 int8pack cases, 5 of them at 1-4 rows past one resident round.
  CHECK(errs().at("q8_wonly_int8").size() == 18);
  CHECK(errs().at("q8_wonly_int8_rounds").size() == 5);
  // h200-fp8mm14: 9 tensor-scaled FP8 shapes of five models new to the sets x 7 row counts.
  CHECK(errs().at("fm14_scaled_tensor").size() == 63);
}

Stats report(const char* set) {
  const Stats s = stats(errs().at(set));
  MESSAGE(std::string(set) << ": n=" << s.n << " median " << 100 * s.median << " % p90 " << 100 * s.p90 << " %");
  return s;
}

// A held-out set against issue 12's target (<= 8 % median, <= 20 % p90), its fit half reported.
Stats held_out_on_target(const char* set, const char* fit_set, size_t cases) {
  const Stats held = report(set);
  if (fit_set) report(fit_set);
  CHECK(held.n == cases);
  CHECK(held.median <= 0.08);
  CHECK(held.p90 <= 0.20);
  return held;
}

}  // namespace

TEST_CASE("weight-only W4A16 / W8A16 and tensor-scaled FP8 on held-out shapes: <= 8 % median, <= 20 % p90 (issue 12)") {
  std::vector<double> all;
  for (const char* set : {"wonly_int4", "wonly_int8", "scaled_tensor"}) {
    report(set);
    all.insert(all.end(), errs().at(set).begin(), errs().at(set).end());
  }
  const Stats s = stats(all);
  MESSAGE("together: n=" << s.n << " median " << 100 * s.median << " % p90 " << 100 * s.p90 << " %");
  CHECK(s.median <= 0.08);
  CHECK(s.p90 <= 0.20);
  CHECK(report("wonly_int4").median <= 0.08);
  CHECK(report("scaled_tensor").median <= 0.08);
}

// Tensor-scaled FP8 (torch._scaled_mm with one scale each: cuBLASLt's nvjet kernels, tiles sized to
// the rows and the SMs; quant_gemm_cost.cpp tensor_fp8_cost, branch fp8mm14): the MMA at
// fp8_tensor_mma_efficiency of the datasheet rate, the weight stream at fp8_tensor_stream_efficiency
// of the read rate, (mma^3 + stream^3)^(1/3), a prologue, and split-K's reduce where cuBLASLt splits;
// the three keys fitted by fit_fp8_tensor.py on FIT_SHAPES (scaled_tensor_fit). Held out: the other
// shapes (4.5 % / 10.4 %; 6.3 % / 15.7 % with the card's tile plan at its fp8 peak before; fit half
// 3.7 / 7.8 %, was 8.1 / 13.4 %), h200-quant2's K / N sweeps (5.1 % median, 9.6 % before) and
// h200-fp8mm14's probe (63 cases of new models measured after the fit: 5.2 % / 14.2 %;
// pre-registered prices 5.6 % / 14.9 %, main's 10.1 % / 30.2 %), guarded at today's level.
constexpr double FM14_MEDIAN = 0.06, FM14_P90 = 0.15;
TEST_CASE("tensor-scaled FP8 on held-out shapes, sweeps and h200-fp8mm14's probe (issue 12)") {
  held_out_on_target("scaled_tensor", "scaled_tensor_fit", 54);
  CHECK(report("sweep_tensor").median <= SWEEP_TENSOR_MEDIAN);
  const Stats probe = report("fm14_scaled_tensor");
  CHECK(probe.median <= FM14_MEDIAN);
  CHECK(probe.p90 <= FM14_P90);
}

// torch int8pack W8A16 (quant8): ATen's one-thread-per-output kernel priced from its launch shape
// (quant_gemm_cost.cpp int8pack_cost: the busiest SM's blocks, a thread's K-step chain, a warp's
// K step on the SM's load pipe; two keys fitted by fit_quant.py on FIT_SHAPES). Held out: the
// other six shapes, 1.0 % / 4.2 % (2.3 % / 6.3 % before quant9 priced the blocks past the first
// round, 3.0 % / 21.3 % with the stream-and-issue form before quant8), and h200-quant8 (measured
// after quant8's fit, new N, K): 18 cases within one resident round on target, the 5 at 1-4 rows
// past one round (quant9: the rest of the grid lands on the SMs that free first, late_company;
// 10.7 % / 16.3 %, 31.5 % / 34.2 % before) guarded at today's level.
TEST_CASE("W8A16 int8pack on held-out shapes and h200-quant8: <= 8 % median, <= 20 % p90 (issue 12)") {
  const Stats held = held_out_on_target("wonly_int8", "wonly_int8_fit", 54);
  CHECK(held.median <= WONLY_INT8_MEDIAN);
  CHECK(held.p90 <= WONLY_INT8_P90);
  held_out_on_target("q8_wonly_int8", nullptr, 18);
  const Stats rounds = report("q8_wonly_int8_rounds");
  CHECK(rounds.median <= Q8_ROUNDS_MEDIAN);
  CHECK(rounds.p90 <= Q8_ROUNDS_P90);
}

// Row-scaled FP8 (_scaled_mm with per-token x per-channel scales): cuBLASLt's one-128x128-tile
// ovscale kernel, priced with the four keys fit_quant.py fitted on FIT_SHAPES (one wave: a CTA's
// padded K loop at 99 % of its SM's datasheet fp8 rate after a 3.69 us prologue; the weight
// stream at 64 % of the read rate; the padded-row term, 0.00889 us per CTA K step of a fully
// padded A tile on a shared L2 hot spot: quant_gemm_cost.cpp padded_row_time). Held out: the
// other six shapes, 4.9 % / 18.9 % (11.2 % / 22.4 % with the two shares alone, no padded-row
// term), and h200-quant2's K/N sweeps (6.6 % / 21.5 %, 15 % / 35 % before). quant9's opt-in
// (QUANT_CALIBRATION=validation/results/h200-quant9/h200.fp8-row-cap.calibration.yaml: the
// padded step capped, wave by wave, five keys): 3.6 % / 10.3 % held out, sweeps 4.4 % / 7.9 %.
// fp8cap10 made the cap the default, every wave priced apart (prologue + its K loop or its share
// of the stream; the stream at the copy's rate plus one SM's limit: quant_gemm_cost.cpp
// row_fp8_by_waves), the keys refitted on FIT_SHAPES: held out 4.3 % / 10.6 %, sweeps 4.1 % / 7.4 %,
// h200-fp8cap10's probe at 80-224 CTAs (none of it fitted) "fc10_sweep_row".
TEST_CASE("row-scaled FP8 on held-out shapes: <= 8 % median, <= 20 % p90 (issue 12)") {
  held_out_on_target("scaled_row", "scaled_row_fit", 54);
  const Stats sweep = report("sweep_row");
  CHECK(sweep.median <= SWEEP_ROW_MEDIAN);
  CHECK(sweep.p90 <= SWEEP_ROW_P90);
  held_out_on_target("fc10_sweep_row", nullptr, 13);
}

// h200-fp8row11's probe past 128 rows (none of it fitted; quant_gemm_cost.cpp row_fp8_row_tiles):
// 128-1024 rows at Llama-3-70B o / down, N = 16384 and N = 2048. Guarded at today's level: its two
// 192-row cases (a partial second row tile) +3.5 / +4.9 % since fp8row12 (were -21 / -22 %: the
// full tile's 64 CTAs walking beside the padded ones, fp8_row_padded_full_walker), N = 2048 at 1024 rows +15 %.
TEST_CASE("row-scaled FP8 past 128 rows, h200-fp8row11's probe (held out)") {
  const Stats probe = report("fr11_sweep_row");
  CHECK(probe.n == 14);
  CHECK(probe.median <= FR11_MEDIAN);
  CHECK(probe.p90 <= FR11_P90);
}

// h200-fp8row12's sweep of a partial last row tile (quant_gemm_cost.cpp row_fp8_row_tiles,
// fp8_row_padded_full_walker 0.36 fitted on its N = 8192 / 4096 rows at K = 8192): held out, its Llama-3-70B
// down shape (K = 28672, 128 CTAs) at 136-256 rows and N = 6144 (96 CTAs) at 128-240, where
// fp8row11's walkers (the partial tile's CTAs alone) priced them 22 % / 25 % median / p90 fast.
constexpr double FR12_MEDIAN = 0.06, FR12_P90 = 0.10;
TEST_CASE("row-scaled FP8, a partial last row tile: h200-fp8row12's sweep (held out)") {
  const Stats held = report("fr12_sweep_row");
  CHECK(held.n == 10);
  CHECK(held.median <= FR12_MEDIAN);
  CHECK(held.p90 <= FR12_P90);
  report("fr12_sweep_row_fit");
}

// h200-quant2: DeepSeek-style block-scaled FP8 (1x128 x 128x128 scales; cuBLASLt's Ablk128 128x128
// kernel): its own three keys (fp8_block_*: one-wave efficiency 0.801, stream 0.698, prologue 2.06
// us) fitted by fit_quant.py on FIT_SHAPES, no padded-row term (its M = 16 is as fast as M = 128)
// and K split with the splitKreduce kernel where cuBLASLt splits (quant_gemm_cost.cpp
// block_fp8_split: the count from the kernel grids of h200-quant5 and h200-quant6, quant6).
// Held out: 3.4 % / 6.8 % (3.5 % / 7.9 % with quant5's rule, two parts at M x N < 2^17 and
// K > 8192, and its keys; 7.2 % / 47 % priced as the row-scaled kernel). The tensor-scaled K/N
// sweeps: nothing fitted, guarded at today's level.
TEST_CASE("block-scaled FP8 on held-out shapes: <= 8 % median, <= 20 % p90 (issue 12)") {
  const Stats held = held_out_on_target("scaled_block", "scaled_block_fit", 54);
  CHECK(held.median <= BLOCK_MEDIAN);
  CHECK(held.p90 <= BLOCK_P90);
  CHECK(report("sweep_tensor").median <= SWEEP_TENSOR_MEDIAN);
  // h200-quant2's compiled 1x128-group quantizations priced as vLLM's one kernel (79 % / 83 %), kept
  // as the before figure; as Inductor's and ATen's kernels: tests/test_act_quant_group_accuracy.cpp.
  report("act_quant_group");
}

// INT8 W8A8 as PyTorch runs it (torch._int_mm: CUTLASS's sm80 mma.sync i16832 kernels on the
// H200, ~870-990 TOP/s at M = 4096, half the wgmma int8 peak): the eager profile's
// mma_sync_int8_cost, cuBLAS's tile pick as a rule in M, N, K (int8_heuristic_tile), the MMA at
// the datasheet rate plus each tile's fill into shared memory shared by the SM's resident CTAs,
// a lone CTA's load latency, the weight stream: three calibration keys (int8_mma_sync_fill_rate,
// _latency, _stream_efficiency) fitted by fit_quant.py on FIT_SHAPES; the other six shapes (54
// cases per kind, M = 1..4096) held out: 4.7 % / 13.7 % (4.4 % / 13.7 % before quant6 bounded
// 128x256 to 128 rows and more, which names 53 of the 54 held-out kernels, not 48, but prices them
// no closer; 8.7 % / 17.8 % with one CTA per SM and the least-time tile; 37 % / 53 % at the int8
// peak).
TEST_CASE("INT8 torch._int_mm on held-out shapes: <= 8 % median, <= 20 % p90 (issue 12)") {
  const Stats held = held_out_on_target("int8_mm", "int8_mm_fit", 54);
  CHECK(held.median <= INT8_MEDIAN);
  CHECK(held.p90 <= INT8_P90);
  // With the eager scale epilogue (four TensorIterator kernels over the int32 output, priced by
  // the elementwise model, not fitted here): 8.1 % / 17.6 % held out (8.5 % before quant6; 14.3 % /
  // 18.7 % before quant5, 33.7 % / 43.5 % at the int8 peak), guarded at that level.
  const Stats scaled = report("int8_mm_scaled");
  report("int8_mm_scaled_fit");
  CHECK(scaled.median <= INT8_SCALED_MEDIAN);
  CHECK(scaled.p90 <= INT8_SCALED_P90);
}

// h200-quant5 (quant5's device run, after the fit): Qwen2.5-32B, Llama-3.2-3B and Qwen2.5-72B's
// gate/up and down at M = 1..2048, with 48, 96 and 192 rows, none of them in any fit. INT8
// `_int_mm` 7.9 % / 14.9 %: the tile rule names 66 of 70 kernels since quant6 took 128x256 from
// 128 rows on (58 before, at 7.7 % / 14.9 %: the right tile is not priced closer at the widest
// gate/ups' 32-96 rows). Block-scaled FP8 5.7 % / 12.0 % (5.7 % / 12.1 % before quant6's split
// count; its grids were used to set that count, so this set is no longer held out for it).
TEST_CASE("h200-quant5's new shapes, held out: INT8 _int_mm and block-scaled FP8 (issue 12)") {
  held_out_on_target("q5_int8_mm", nullptr, 70);
  held_out_on_target("q5_scaled_block", nullptr, 63);
}

// h200-quant6 (measured after quant6 set the INT8 tile rule's 128-row bound and before it set the
// block-scaled split count; nothing of it fitted): INT8 `_int_mm` on Qwen2.5-14B, Qwen3-8B and
// Qwen3-32B gate/up, down and o at M = 1..1024 (the rule names 45 of 48 kernels; 41 before
// quant6), block-scaled FP8 on ten down / o / qkv / gate-up shapes at M = 1..128 around the split
// rule's edges (its split counts were read off this set's grids: not held out for the count).
TEST_CASE("h200-quant6's new shapes: INT8 _int_mm held out, block-scaled FP8 (issue 12)") {
  const Stats int8 = held_out_on_target("q6_int8_mm", nullptr, 48);
  CHECK(int8.median <= Q6_INT8_MEDIAN);
  CHECK(int8.p90 <= Q6_INT8_P90);
  const Stats block = held_out_on_target("q6_scaled_block", nullptr, 36);
  CHECK(block.median <= Q6_BLOCK_MEDIAN);
  CHECK(block.p90 <= Q6_BLOCK_P90);
}

// The activation-quantization cases were measured as torch.compile(dynamic=True) kernels; priced
// here as the serving engine's CUDA kernels (the fused profile's, not measured): reported, not a
// target. As the compiled profile's Inductor kernels and the eager profile's ATen kernels, held
// out and bounded: tests/test_act_quant_accuracy.cpp (branch actq14).
TEST_CASE("activation quantization kernels (torch.compile'd) as vLLM's: reported, not a target") {
  CHECK(report("act_quant").n == 45);
}

TEST_CASE("quantized GEMMs on an H100 (h100-quanth100, -quanth100b), the H200's calibration carried") {
  // validation/results/h100-quanth100 and h100-quanth100b (twenty-seventh session, each planned before its run):
  // quant_gemm.py's two halves of h200-quant's cases and run_quant6.py's shapes on H100 80GB HBM3 boards. No key was
  // fitted on an H100, so the H200's fit shapes count as held out here. One rule was read off h100-quanth100: tinygemm
  // W4A16's stream carries as the die's rate (calibration_transfer.cpp; 4.7 / 32.7 % -> 4.3 / 16.3 % there);
  // h100-quanth100b, measured after it, holds it out: 4.2 / 38.8 % under the old carry -> 3.7 / 14.3 % (93 cases).
  const auto first = errors("h100-sxm", {{"h100-quanth100/quant-0.json", ""}, {"h100-quanth100/quant6.json", "q6_"}});
  const auto second = errors("h100-sxm", {{"h100-quanth100b/quant-1.json", ""}});
  auto joined = [](const std::map<std::string, std::vector<double>>& e, std::initializer_list<const char*> sets) {
    std::vector<double> v;
    for (const char* set : sets)
      if (e.count(set)) v.insert(v.end(), e.at(set).begin(), e.at(set).end());
    return v;
  };
  auto both = [&](std::initializer_list<const char*> sets) {
    std::vector<double> v = joined(first, sets), w = joined(second, sets);
    v.insert(v.end(), w.begin(), w.end());
    return stats(v);
  };
  const Stats int4_held = stats(joined(second, {"wonly_int4", "wonly_int4_fit"}));
  const Stats int8 = both({"wonly_int8", "wonly_int8_fit"}), tensor = both({"scaled_tensor", "scaled_tensor_fit"}),
              row = both({"scaled_row", "scaled_row_fit"});
  const Stats block = stats(first.at("q6_scaled_block")), int_mm = stats(first.at("q6_int8_mm"));
  // The lines docs/targets.md reads (validation/scripts/targets.py issue12).
  for (const auto& [name, st] : {std::pair<const char*, Stats>{"h100_wonly_int4_held", int4_held}, {"h100_wonly_int8", int8},
                                 {"h100_scaled_tensor", tensor}, {"h100_scaled_row", row}, {"h100_scaled_block", block},
                                 {"h100_int8_mm", int_mm}})
    MESSAGE(std::string(name) << ": n=" << st.n << " median " << 100 * st.median << " % p90 " << 100 * st.p90 << " %");
  CHECK(int4_held.n == 93);
  CHECK(int4_held.median <= 0.08);  // issue 12's target, 8 % / 20 %
  CHECK(int4_held.p90 <= 0.20);
  for (const Stats& st : {int8, tensor, row, block}) {
    CHECK(st.median <= 0.08);
    CHECK(st.p90 <= 0.20);
  }
  CHECK(int8.median <= 0.02);
  // torch._int_mm at quant6's shapes: 8.2 / 17.0 % with its stream efficiency carried as a share of the DRAM rate,
  // 6.8 / 13.0 % carried as the die's latency per byte plus the H100's DRAM time (twenty-eighth session; read off this
  // set, held out by h100-quanth100c). FP8 tensor-wise went 5.7 / 11.5 -> 3.7 / 9.2 % with it.
  CHECK(int_mm.median <= 0.07);
  CHECK(int_mm.p90 <= 0.135);
  CHECK(tensor.median <= 0.04);
}

TEST_CASE("quantized GEMMs on an H100, held out of the stream carry (h100-quanth100c)") {
  // validation/results/h100-quanth100c (twenty-eighth session): h200-quant5's, h200-fp8mm14's and h200-quant2's cases
  // on an H100 80GB HBM3, none run on an H100 before, priced (quanth100c/prices.txt) after the die-latency stream carry
  // was committed (calibration_transfer.cpp) and before the run. Nothing fitted on it. Carried as shares of the DRAM
  // rate instead (the carry before), the same cases: _int_mm 5.5 / 13.8 % (now 4.5 / 12.3), with its epilogue
  // 7.4 / 17.8 (7.5 / 17.8), FP8 tensor-wise 5.4 / 10.5 (3.4 / 9.8), block 3.5 / 14.9 (3.2 / 8.5).
  const auto e = errors("h100-sxm", {{"h100-quanth100c/quant5/quant5.json", "q5_"},
                                     {"h100-quanth100c/fp8mm14/fp8mm14.json", "fm14_"},
                                     {"h100-quanth100c/quant2/quant2.json", ""}});
  auto joined = [&](std::initializer_list<const char*> sets) {
    std::vector<double> v;
    for (const char* set : sets) v.insert(v.end(), e.at(set).begin(), e.at(set).end());
    return stats(v);
  };
  const Stats int_mm = joined({"int8_mm", "int8_mm_fit", "q5_int8_mm"});
  const Stats int_mm_scaled = joined({"int8_mm_scaled", "int8_mm_scaled_fit"});
  const Stats tensor = joined({"fm14_scaled_tensor", "sweep_tensor"});
  const Stats block = joined({"scaled_block", "scaled_block_fit", "q5_scaled_block"});
  const Stats row = joined({"sweep_row"});
  for (const auto& [name, st] : {std::pair<const char*, Stats>{"h100c_int8_mm", int_mm}, {"h100c_int8_mm_scaled", int_mm_scaled},
                                 {"h100c_scaled_tensor", tensor}, {"h100c_scaled_block", block}, {"h100c_sweep_row", row}})
    MESSAGE(std::string(name) << ": n=" << st.n << " median " << 100 * st.median << " % p90 " << 100 * st.p90 << " %");
  // 178 _int_mm cases alone, 108 with the epilogue, 63 + 26 tensor-wise, 108 + 63 block (Qwen2.5-72B down's block
  // cases fail their check, as on the H200), 26 row-wise sweep cases.
  CHECK(int_mm.n == 178);
  CHECK(int_mm_scaled.n == 108);
  CHECK(tensor.n == 89);
  CHECK(block.n == 171);
  CHECK(row.n == 26);
  for (const Stats& st : {int_mm, int_mm_scaled, tensor, block, row}) {
    CHECK(st.median <= 0.08);  // issue 12's target, 8 % / 20 %
    CHECK(st.p90 <= 0.20);
  }
}
