// Properties every prediction must have (issue 14), over a sweep of the catalogue's models x
// cards (the H200 also with its calibration) x batch x context, decode and prefill:
//  - the step time is finite and positive;
//  - it is at least both roofline floors at nominal datasheet roofs: sum of FLOPs / peak of each
//    op's precision, and bytes moved / nominal DRAM bandwidth (seed 000: t >= max(F/P, M/W));
//  - it never drops as the batch or the context grows (more work is never faster);
//  - AI(b) <= AI_max (seed 004: the intensity approaches AI_max from below as b grows).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perfmodel/analysis.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Priced {
  double time_s = 0, flop_floor_s = 0, byte_floor_s = 0, ai = 0, ai_max = 0;
};

Priced predict(const Model& m, const Card& card, const Roofs& roofs, const Workload& w) {
  const Step step = build_step(m, w);
  const StepCost cost = price_step(step, roofs, w.impl);
  Priced p;
  p.time_s = cost.time_s;
  double bytes = 0;
  for (const Op& op : step.ops) {
    const double n = static_cast<double>(op.count);
    if (op.flops > 0) p.flop_floor_s += n * op.flops / card.peak_flops(op.precision);
    bytes += n * op.bytes();
  }
  p.byte_floor_s = bytes / card.bandwidth;
  const Analysis a = analyze(m, w, step, cost.time_s, 0, card, kDefaultMemoryUtilization);
  p.ai = a.ai;
  p.ai_max = a.ai_max;
  return p;
}

struct Setup {
  std::string label;
  Card card;
  std::optional<Calibration> calibration;
};

std::vector<Setup> setups() {
  std::vector<Setup> out;
  for (const auto& key : test::catalogue().card_keys()) out.push_back({key, test::catalogue().card(key), std::nullopt});
  out.push_back({"h200 calibrated", test::catalogue().card("h200"),
                 load_calibration(test::catalogue().calibration_path("h200"))});
  return out;
}

// Relative slack for comparing sums of the same terms in another order.
constexpr double kSlack = 1e-9;

}  // namespace

TEST_CASE("every prediction is finite, above both roofline floors, monotone in batch and context, AI <= AI_max") {
  const std::vector<int64_t> batches{1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 32, 64};
  std::vector<int64_t> decode_ctx;  // 1 .. 40000, each about 5/4 of the last
  for (int64_t c = 1; c <= 40000; c = c * 5 / 4 + 1) decode_ctx.push_back(c);
  const std::vector<int64_t> prefill_batches{1, 2, 4};
  const std::vector<int64_t> prefill_ctx{16, 128, 500, 2048};
  int predictions = 0;
  for (const Setup& s : setups()) {
    const Roofs roofs = make_roofs(s.card, s.calibration ? &*s.calibration : nullptr);
    const DType dt = s.card.supports(Precision::bf16) ? DType::bf16 : DType::fp16;
    for (const auto& model_key : test::catalogue().model_keys()) {
      const Model m = test::catalogue().model(model_key);
      for (Phase phase : {Phase::decode, Phase::prefill}) {
        const auto& bs = phase == Phase::decode ? batches : prefill_batches;
        const auto& cs = phase == Phase::decode ? decode_ctx : prefill_ctx;
        // time[i][j]: batch bs[i], context cs[j]
        std::vector<std::vector<double>> time(bs.size(), std::vector<double>(cs.size(), 0));
        for (size_t i = 0; i < bs.size(); ++i)
          for (size_t j = 0; j < cs.size(); ++j) {
            if (cs[j] > m.max_positions) continue;
            Workload w;
            w.phase = phase;
            w.batch = bs[i];
            w.ctx = cs[j];
            w.weight_dtype = w.act_dtype = w.kv_dtype = dt;
            const Priced p = predict(m, s.card, roofs, w);
            ++predictions;
            time[i][j] = p.time_s;
            INFO(s.label << " " << model_key << " " << to_string(phase) << " batch " << bs[i] << " ctx " << cs[j]);
            REQUIRE(std::isfinite(p.time_s));
            REQUIRE(p.time_s > 0);
            CHECK(p.time_s >= p.flop_floor_s * (1 - kSlack));
            CHECK(p.time_s >= p.byte_floor_s * (1 - kSlack));
            if (phase == Phase::decode) CHECK(p.ai <= p.ai_max * (1 + kSlack));
            if (i > 0 && time[i - 1][j] > 0) {
              INFO("batch " << bs[i - 1] << ": " << time[i - 1][j] << " s, batch " << bs[i] << ": " << p.time_s << " s");
              CHECK(p.time_s >= time[i - 1][j] * (1 - kSlack));
            }
            if (j > 0 && time[i][j - 1] > 0) {
              INFO("ctx " << cs[j - 1] << ": " << time[i][j - 1] << " s, ctx " << cs[j] << ": " << p.time_s << " s");
              CHECK(p.time_s >= time[i][j - 1] * (1 - kSlack));
            }
          }
      }
    }
  }
  MESSAGE(predictions << " predictions");
  CHECK(predictions > 1000);
}

// Prefill's GEMMs grow in M with the batch. The plan was once chosen by compute time alone while
// the price adds a K-depth fixed cost and a split's reduction, and products of M <= 128 could
// stream only the split-K winner: baby-gpt's fc_out at batch 1 x 128 tokens (M = 128) cost
// 25.9 us and at batch 2 (M = 256) 17.3 us on the H200. Now the plan is the least priced one over
// a candidate set that is the same for every M (gemm_tiling.hpp, cheapest_plan).
TEST_CASE("prefill step time never drops as the batch grows") {
  int drops = 0;
  for (const Setup& s : setups()) {
    const Roofs roofs = make_roofs(s.card, s.calibration ? &*s.calibration : nullptr);
    const DType dt = s.card.supports(Precision::bf16) ? DType::bf16 : DType::fp16;
    for (const auto& model_key : test::catalogue().model_keys()) {
      const Model m = test::catalogue().model(model_key);
      for (int64_t ctx : {16, 128, 500, 2048}) {
        if (ctx > m.max_positions) continue;
        double last = 0;
        for (int64_t b : {1, 2, 4}) {
          Workload w;
          w.phase = Phase::prefill;
          w.batch = b;
          w.ctx = ctx;
          w.weight_dtype = w.act_dtype = w.kv_dtype = dt;
          const double t = predict(m, s.card, roofs, w).time_s;
          INFO(s.label << " " << model_key << " prefill ctx " << ctx << " batch " << b << ": " << t << " s, previous " << last);
          if (t < last * (1 - kSlack)) ++drops;
          CHECK(t >= last * (1 - kSlack));
          last = t;
        }
      }
    }
  }
  CHECK(drops == 0);
}

// PyTorch's FlashAttention-2 decode as the fused profile's FlashAttention-2 keys price it
// (production_decode_cost.cpp): the profile's own decode is the GQA-packed kernel (cuDNN's,
// engine_decode_cost), so its cudnn_decode block is taken off.
static Roofs flash_decode_roofs() {
  const Card h200 = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::catalogue().calibration_path("h200"));
  Roofs roofs = make_roofs(h200, &cal, Impl::fused);
  roofs.cudnn_decode = {};
  return roofs;
}

// FlashAttention-2's split rule (production_decode_cost.cpp). Regression: over head counts a TP split produces (20 and 40 heads) ctx 4096 cost 108 us
// and 8192 31 us while the rule's best efficiency counted ineligible splits.
TEST_CASE("FlashAttention-2 decode (the fused profile's keys): 20 and 40 heads at batch 1 grow with the context") {
  const Roofs roofs = flash_decode_roofs();
  for (int64_t heads : {20, 40}) {
    double last = 0;
    for (int64_t l : {1024, 2048, 4096, 8192}) {
      const double t = price(ops::attention_decode("a", 1, heads, heads, l, 128, DType::bf16, DType::bf16), roofs, Impl::fused).time_s;
      INFO("h" << heads << " kv " << l << ": " << t * 1e6 << " us, previous " << last * 1e6);
      CHECK(t >= last);
      CHECK(t < 2 * last + 15e-6);  // no unsplit walk of the cache (it was 108 us at 4096)
      last = t;
    }
  }
}

// The production decode kernel is NOT monotone, and the model follows it. FlashAttention-2's split
// rule picks fewer splits for some larger shapes, and the kernel then runs faster: PyTorch's SDPA
// flash decode on the H200, 225 cases around the model's drops (validation/results/
// h200-decode-monotone, nothing fitted on them), drops in 13 of 360 steps up in batch or context,
// by up to 20 % (1 KV head, head dim 128, 16384 keys: 34.7 us at batch 2, 27.8 us at batch 3).
// The model prices the same rule (the combine walks each split it merges, 0.227 us a split), so
// "never faster" would be a wrong prediction there. The example is this mechanism:
// Qwen2.5-0.5B at 24576 keys runs 96 splits at batch 1 and 48 at batch 2. What is checked
// instead, on the measured grid: the kernel's clear drops (> 5 %) are all predicted, the model's
// own drops where the kernel does not drop stay small, and the times stay within the fused
// profile's decode error (python3 validation/scripts/production/compare_decode_monotone.py).
TEST_CASE("the FlashAttention-2 decode model drops where the kernel drops (h200-decode-monotone)") {
  const Roofs roofs = flash_decode_roofs();
  std::ifstream f(test::root() + "/validation/results/h200-decode-monotone/kernels.json");
  REQUIRE(f.good());
  using Key = std::array<int64_t, 4>;  // KV heads, head dim, batch, keys
  std::map<Key, std::pair<double, double>> t;  // measured, predicted
  std::vector<double> errors;
  const nlohmann::json doc = nlohmann::json::parse(f);
  for (const auto& c : doc.at("cases")) {
    REQUIRE(c.at("correct").get<bool>());
    const Key k{c.at("kv_heads"), c.at("head_dim"), c.at("batch"), c.at("kv_len")};
    const Op op = ops::attention_decode("a", k[2], c.at("heads"), k[0], k[3], k[1], DType::bf16, DType::bf16);
    const double measured = c.at("measured_s"), predicted = price(op, roofs, Impl::fused).time_s;
    t[k] = {measured, predicted};
    errors.push_back(std::fabs(predicted / measured - 1));
  }
  REQUIRE(t.size() == 225);
  int measured_drops = 0, clear_drops = 0, clear_predicted = 0, steps = 0;
  for (const auto& [k, now] : t)
    for (int dim : {2, 3}) {  // the previous batch, then the previous context, of the grid
      auto prev = t.end();
      for (auto it = t.begin(); it != t.end(); ++it)
        if (it->first[0] == k[0] && it->first[1] == k[1] && it->first[5 - dim] == k[5 - dim] && it->first[dim] < k[dim] &&
            (prev == t.end() || it->first[dim] > prev->first[dim]))
          prev = it;
      if (prev == t.end()) continue;
      ++steps;
      const double m = now.first / prev->second.first - 1, p = now.second / prev->second.second - 1;
      INFO("kv " << k[0] << " d" << k[1] << " b" << k[2] << " keys " << k[3] << " (step in " << (dim == 2 ? "batch" : "keys")
                 << "): measured " << m * 100 << " %, predicted " << p * 100 << " %");
      measured_drops += m < -0.005;
      if (m < -0.05) {
        ++clear_drops;
        clear_predicted += p < 0;
        CHECK(p < 0);
      }
      if (m >= 0) CHECK(p > -0.10);  // a drop the kernel does not make stays under 10 %
    }
  CHECK(steps == 360);
  CHECK(measured_drops >= 10);  // the kernel really is not monotone (13 drops measured)
  CHECK(clear_drops == 7);
  CHECK(clear_predicted == clear_drops);
  std::sort(errors.begin(), errors.end());
  CAPTURE(errors[errors.size() / 2]);
  CHECK(errors[errors.size() / 2] <= 0.075);  // achieved 6.8 % median, 12.4 % p90
  CHECK(errors[static_cast<size_t>(0.9 * static_cast<double>(errors.size() - 1))] <= 0.135);
}

// The issue's own example, `perfmodel decode --model qwen2.5-0.5b --card h200 --ctx 24576` faster at
// batch 2 than at batch 1: its attention (14 heads, 2 KV heads, head dim 64, 24576 keys) measured
// through SDPA flash drops too, 31.00 us at batch 1 to 26.13 us at batch 2 (h200-decode-monotone,
// kernels-qwen.json): FA2's split rule runs 96 splits at batch 1 and 48 at batch 2.
TEST_CASE("the issue's Qwen2.5-0.5B example: FlashAttention-2 is faster at batch 2, and so is the model") {
  const Roofs roofs = flash_decode_roofs();
  std::ifstream f(test::root() + "/validation/results/h200-decode-monotone/kernels-qwen.json");
  REQUIRE(f.good());
  const nlohmann::json doc = nlohmann::json::parse(f);
  std::map<int64_t, std::pair<double, double>> t;  // batch -> measured, predicted
  for (const auto& c : doc.at("cases")) {
    REQUIRE(c.at("correct").get<bool>());
    const Op op = ops::attention_decode("a", c.at("batch"), c.at("heads"), c.at("kv_heads"), c.at("kv_len"),
                                        c.at("head_dim"), DType::bf16, DType::bf16);
    t[c.at("batch")] = {c.at("measured_s"), price(op, roofs, Impl::fused).time_s};
  }
  REQUIRE(t.size() == 4);
  for (const auto& [b, mp] : t) {
    INFO("batch " << b << ": measured " << mp.first * 1e6 << " us, predicted " << mp.second * 1e6 << " us");
    CHECK(std::fabs(mp.second / mp.first - 1) < 0.135);  // the grid's p90 bound above (achieved: +7, -4, -10, -7 %)
  }
  CHECK(t[2].first < 0.9 * t[1].first);    // the kernel: -16 %
  CHECK(t[2].second < 0.9 * t[1].second);  // the model: -24 %
}
