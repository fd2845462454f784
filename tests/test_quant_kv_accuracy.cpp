// FP8 KV cache decode attention (issue 12): predictions recomputed for the committed H200
// measurements of validation/results/h200-quant3 (quant3.json) and h200-quant2 (its `kv` cases).
//  - fused: a production FP8-KV decode (K/V loaded as e4m3, converted in registers), measured as
//    a Triton split-KV kernel reading bf16 or fp8 K/V (validation/scripts/quant/triton_decode.py),
//    priced by the fused profile's decode attention on the cache's bytes plus the conversion
//    (kv_cache_cost.cpp; its one key fitted by fit_kv_fp8.py on GQA 4, head dim 128: the rest is
//    held out);
//  - eager: what Hugging Face users run, K and V cast to bf16 then SDPA, priced as two casts and
//    the bf16 decode attention under the eager profile (nothing fitted).
// Target: the attention target, 8 % median / 20 % p90.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "perfmodel/calibration.hpp"
#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/engine_decode.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "quant_stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

// Today's levels, guarded (set from the committed data; see the test cases' comments): median and
// p90 bounds of the fp8 times, the bf16 times and the fp8 / bf16 ratio of a Triton set.
struct TritonBounds {
  double fp8_median, fp8_p90, bf16_median, bf16_p90, ratio_median, ratio_p90;
};
constexpr TritonBounds QUANT3{0.085, 0.19, 0.06, 0.13, 0.075, 0.14}, QUANT6{0.06, 0.15, 0.06, 0.15, 0.06, 0.14};
constexpr double EAGER_MEDIAN = 0.15, EAGER_P90 = 0.23;

using quant_test::Stats;
using quant_test::stats;

struct Point {
  double predicted = 0, measured = 0;
};

// Kernels one call of triton_decode.py's decode_attention runs: the split kernel, and the combine
// kernel unless plan_splits keeps one split (132 SMs: min(ceil(264 / (b * hkv)), ceil(L / 256), 64)).
int64_t triton_kernels(int64_t b, int64_t hkv, int64_t L) {
  const int64_t base = std::max<int64_t>(1, b * hkv);
  const int64_t splits = std::max<int64_t>(1, std::min<int64_t>({(264 + base - 1) / base, (L + 255) / 256, 64}));
  return splits == 1 ? 1 : 2;
}

// Keyed by set, then by the shape's name without its cache dtype (to pair bf16 and fp8).
using Sets = std::map<std::string, std::map<std::string, Point>>;

// `card_key`: the card the sets ran on (another card of the H200's die prices with the H200's file carried); `q2`:
// h200-quant2's eager cases too.
Sets points(const std::string& card_key = "h200", const std::string& q3_file = "h200-quant3/quant3.json",
            const std::string& q6_file = "h200-quant6/quant6.json", bool with_quant2 = true) {
  const Card card = test::catalogue().card(card_key);
  const Calibration cal = card_key == "h200" ? load_calibration(test::root() + "/hardware/h200.calibration.yaml")
                                             : *sibling_calibration(test::catalogue(), card);
  const Roofs fused = make_roofs(card, &cal, Impl::fused);
  const Roofs eager = make_roofs(card, &cal, Impl::eager);
  Sets out;
  auto add = [&](const nlohmann::json& c, const std::string& set, const std::string& key) {
    if (!c.value("ok", false) || !c.value("correct", false)) return;
    const int64_t b = c.at("batch"), h = c.at("heads"), hkv = c.at("kv_heads"), L = c.at("kv_len"), d = c.at("head_dim");
    const bool fp8 = c.at("kv_dtype") == "fp8";
    const bool triton = c.at("implementation").get<std::string>().rfind("triton", 0) == 0;
    const Roofs& r = triton ? fused : eager;
    KernelCase kc;
    kc.rotated_bytes = c.value("rotated_bytes", 0.0);
    const double hit = harness_l2_hit(kc, r.l2_cyclic_capacity);
    std::vector<Op> ops;
    if (!triton && fp8)  // .to(bf16) of K and V, then SDPA on bf16 (eager_profile.cpp's lowering)
      for (const char* part : {"k", "v"}) {
        ops.push_back(ops::cast(part, b * hkv * L, d, DType::fp8, DType::bf16));
        ops.back().strided = true;  // ATen's unrolled LoadWithCast kernel (eager_profile.cpp)
      }
    // Eager: transformers' SDPA call, cuDNN's decode kernel on the H200 (eager_attention).
    ops.push_back(triton ? ops::attention_decode("a", b, h, hkv, L, d, DType::bf16, fp8 ? DType::fp8 : DType::bf16)
                         : ops::attention_decode_cudnn("a", b, h, hkv, L, d, DType::bf16, DType::bf16));
    double t = 0;
    for (Op& op : ops) {
      op.l2_hit = hit;
      t += price(op, r, Impl::fused).time_s;  // graph-replayed: device time only
    }
    if (triton) {
      // Like with like: the Triton harness runs its own split plan (triton_decode.py's plan_splits:
      // the split kernel, and the combine kernel when it splits), not the engine's choice
      // (engine_decode_cost: split when that is priced faster), so the stand-in is priced with the
      // plan it ran, as the TP test prices FlashAttention-2 as it ran (a test-side choice; the
      // engine's price is what a step gets).
      const int64_t kernels = triton_kernels(b, hkv, L);
      const Op& a = ops.back();
      const KernelTimes engine = engine_decode_cost_as(a, r, false), split = engine_decode_cost_as(a, r, true);
      const auto total = [](const KernelTimes& k) { return k.fixed_s + std::max(k.compute_s, k.memory_s); };
      const double engine_s = std::min(total(engine), total(split));
      if (b * hkv < r.card.sm_count) REQUIRE(price(a, r, Impl::fused).time_s == test::approx(engine_s));
      t += total(kernels == 2 ? split : engine) - price(a, r, Impl::fused).time_s;
      // The harness time (one call's graph replay) holds the GPU idle after each of the call's
      // kernels, which a graph profile's price leaves out (its small kernels priced alone,
      // harness_idle; profile_accuracy.cpp adds it back the same way for the single-call tables).
      t += r.harness_idle_s * static_cast<double>(kernels);
    }
    REQUIRE(c.at("measured_s").get<double>() > 0);
    out[set + (fp8 ? "_fp8" : "_bf16")][key] = {t, c.at("measured_s").get<double>()};
  };
  std::ifstream f3(test::root() + "/validation/results/" + q3_file);
  REQUIRE(f3.good());
  const nlohmann::json q3 = nlohmann::json::parse(f3);  // kept: a range-for over parse(f3).at() would dangle
  for (const auto& c : q3.at("cases")) {
    const bool triton = c.at("implementation").get<std::string>().rfind("triton", 0) == 0;
    const int64_t group = c.at("heads").get<int64_t>() / c.at("kv_heads").get<int64_t>();
    const std::string key = "b" + std::to_string(c.at("batch").get<int64_t>()) + "_ctx" +
                            std::to_string(c.at("kv_len").get<int64_t>()) + "_g" + std::to_string(group) + "_d" +
                            std::to_string(c.at("head_dim").get<int64_t>());
    if (!triton) add(c, "eager", key);
    else add(c, group == 4 && c.at("head_dim") == 128 ? "triton_fit" : "triton", key);
  }
  // h200-quant6 (measured after quant6's model was set, nothing fitted): 32 heads / GQA 2, 28 / 7,
  // 64 / 8 at head dim 128, batch 2 / 8 / 32, ctx 1024 / 4096 / 16384.
  std::ifstream f6(test::root() + "/validation/results/" + q6_file);
  REQUIRE(f6.good());
  const nlohmann::json q6 = nlohmann::json::parse(f6);
  for (const auto& c : q6.at("cases")) {
    if (c.at("kernel") != "attention_decode") continue;
    add(c, "q6_triton",
        "b" + std::to_string(c.at("batch").get<int64_t>()) + "_ctx" + std::to_string(c.at("kv_len").get<int64_t>()) +
            "_h" + std::to_string(c.at("heads").get<int64_t>()) + "_hkv" + std::to_string(c.at("kv_heads").get<int64_t>()));
  }
  if (!with_quant2) return out;
  std::ifstream f2(test::root() + "/validation/results/h200-quant2/quant2.json");
  REQUIRE(f2.good());
  const nlohmann::json q2 = nlohmann::json::parse(f2);
  for (const auto& c : q2.at("kv"))
    add(c, "eager_quant2", "b" + std::to_string(c.at("batch").get<int64_t>()) + "_ctx" + std::to_string(c.at("kv_len").get<int64_t>()));
  return out;
}

const Sets& all() {
  static const Sets s = points();
  return s;
}

Stats report(const std::string& set) {
  std::vector<double> e;
  for (const auto& [k, p] : all().at(set)) e.push_back(std::fabs(p.predicted / p.measured - 1));
  const Stats s = stats(e);
  MESSAGE(set << ": n=" << s.n << " median " << 100 * s.median << " % p90 " << 100 * s.p90 << " %");
  return s;
}

// The fp8 / bf16 time ratio, predicted against measured, shape by shape: the KV-dtype handling
// alone, whatever the base decode model's error on the kernel.
Stats report_ratio(const std::string& set) {
  std::vector<double> e;
  const auto& bf16 = all().at(set + "_bf16");
  for (const auto& [k, p] : all().at(set + "_fp8")) {
    const auto it = bf16.find(k);
    REQUIRE(it != bf16.end());
    e.push_back(std::fabs((p.predicted / it->second.predicted) / (p.measured / it->second.measured) - 1));
    if (std::getenv("QUANT_KV_DEBUG"))  // each shape's ratios, to find the worst ones
      MESSAGE(set << " " << k << " ratio predicted " << p.predicted / it->second.predicted << " measured "
                  << p.measured / it->second.measured << " fp8 " << p.predicted * 1e6 << " / " << p.measured * 1e6
                  << " us bf16 " << it->second.predicted * 1e6 << " / " << it->second.measured * 1e6 << " us");
  }
  const Stats s = stats(e);
  MESSAGE(set << " fp8/bf16 ratio: n=" << s.n << " median " << 100 * s.median << " % p90 " << 100 * s.p90 << " %");
  return s;
}

// A Triton set's fp8 and bf16 errors and its fp8 / bf16 ratio against their bounds.
void check_triton(const std::string& set, size_t fp8_cases, const TritonBounds& b) {
  const Stats fp8 = report(set + "_fp8");
  const Stats bf16 = report(set + "_bf16");
  const Stats ratio = report_ratio(set);
  CHECK(fp8.n == fp8_cases);
  CHECK(fp8.median <= b.fp8_median);
  CHECK(fp8.p90 <= b.fp8_p90);
  CHECK(bf16.median <= b.bf16_median);
  CHECK(bf16.p90 <= b.bf16_p90);
  CHECK(ratio.median <= b.ratio_median);
  CHECK(ratio.p90 <= b.ratio_p90);
}

}  // namespace

TEST_CASE("the committed FP8-KV attention measurements are all there") {
  // 4 batches x 4 contexts x (3 groups at head dim 128 + group 4 at 64) per cache dtype, of which
  // group 4 at 128 is the fit half; SDPA and cast + SDPA at group 4 (16 each); quant2's 9 + 9.
  CHECK(all().at("triton_fit_fp8").size() == 16);
  CHECK(all().at("triton_fp8").size() == 48);
  CHECK(all().at("triton_bf16").size() == 48);
  CHECK(all().at("eager_fp8").size() == 16);
  CHECK(all().at("eager_bf16").size() == 16);
  CHECK(all().at("eager_quant2_fp8").size() == 9);
  CHECK(all().at("q6_triton_fp8").size() == 27);
  CHECK(all().at("q6_triton_bf16").size() == 27);
}

// Since branch idle8 the Triton kernel is priced with the split plan it ran (above) and c refitted
// so (fit_kv_fp8.py: 0.382 -> 0.381): held out fp8 5.6 % / 12.6 %, bf16 5.7 % / 11.9 %, ratio
// 7.1 % / 13.8 %; h200-quant6 (below) fp8 5.0 %, bf16 3.0 %, ratio 5.7 %. Before, on the engine's plan:
// Held out (48 fp8 cases): 8.1 % / 18.6 % absolute; the same model's bf16 prices of the same kernel
// 5.9 % / 12.4 %. The fused profile prices the engine's decode as cuDNN's GQA-packed kernel
// (engine_decode_cost), the design of this vLLM-style Triton kernel. The fp8 / bf16 ratio, shape
// by shape, isolates the KV-dtype handling: 7.1 % / 13.7 %. Before quant6 (the conversion spread
// over all SMs' issue slots, c = 0.374): 11.3 % / 27.5 % absolute, ratio 8.4 % / 25.7 %: at small
// shapes the Triton kernel's fp8 form is 10-29 % slower than its bf16 form, the conversion on each
// CTA's own SM (its chain of keys), which the card-wide share priced a little faster. quant6
// prices the conversion on the busiest SM's chain (kv_cache_cost.cpp) with c refitted to 0.382 on
// the fit half's ratios; the bounds are tightened to today's levels (0.12 / 0.28, 0.09 / 0.26
// before).
TEST_CASE("fused FP8-KV decode attention against the Triton kernel (held out: GQA 1 and 8, head dim 64)") {
  report("triton_fit_fp8");
  check_triton("triton", 48, QUANT3);
}

// h200-quant6 (measured after quant6's conversion model and key were set; 27 shapes: 32 heads /
// GQA 2, 28 / 7, 64 / 8, head dim 128, batch 2..32, ctx 1024..16384): held out.
TEST_CASE("fused FP8-KV decode attention, h200-quant6's new shapes (held out)") {
  check_triton("q6_triton", 27, QUANT6);
}

// h200-quant3 (group 4, 16 shapes): 14.4 % / 22.3 %; h200-quant2 (9 shapes): 12.6 % / 20.9 %. Before
// (fp8 bytes in the SDPA, no casts) the eager path was priced at half the bf16 SDPA, ~4-15x fast.
TEST_CASE("eager FP8 KV: K and V cast to bf16, then SDPA (nothing fitted)") {
  const Stats q3 = report("eager_fp8");
  const Stats q2 = report("eager_quant2_fp8");
  report("eager_bf16");
  report("eager_quant2_bf16");
  CHECK(q3.median <= EAGER_MEDIAN);
  CHECK(q2.median <= EAGER_MEDIAN);
  CHECK(q3.p90 <= EAGER_P90);
  CHECK(q2.p90 <= EAGER_P90);
}

// h200-moe7 (run_moe7.py's `kv` part): the Triton kernel at batch 1, 32 heads, GQA 4, head dim
// 128, its split count forced so that each CTA walks 64-4096 keys (1-64 tiles of 64) over 8-512
// CTAs, at num_stages 3 (as run everywhere else) and 1 (no software pipelining). The fp8 form's
// extra time per tile of a CTA's chain, at 32 CTAs or fewer and 4 tiles or more, is 0.45-0.56 us
// pipelined and 0.56-0.62 us not: the same cost whether the loads are pipelined or not, so it is
// work on the chain (the e4m3 -> bf16 conversion: 265 cvt instructions in the fp8 kernel's PTX
// against 19, 128 registers a thread against 86), not a lost cp.async pipeline (both kernels keep
// their async copies). It fades from ~128 CTAs, where the bf16 form's own loads take longer.
// Data only: the model (kv_cache_cost.cpp) prices the engine's split plan, whose chain floor is
// 128 keys, not this kernel's 256-key splits; one key carries the cost per element (0.382 warp
// instructions: 0.93 us a tile of 64 x 128 on one SM, against the 0.5 measured here).
TEST_CASE("h200-moe7 FP8-KV: the conversion's cost per tile of a CTA's chain, pipelined or not") {
  std::ifstream f7(test::root() + "/validation/results/h200-moe7/hf.json");
  REQUIRE(f7.good());
  const nlohmann::json d = nlohmann::json::parse(f7);
  std::map<std::string, nlohmann::json> kv;
  for (const auto& c : d.at("kv_cases")) {
    REQUIRE(c.at("ok").get<bool>());
    kv[c.at("name").get<std::string>()] = c;
  }
  REQUIRE(kv.size() == 48);
  int checked = 0;
  for (const auto& [name, c] : kv) {
    if (c.at("kv_dtype") != "fp8") continue;
    std::string bf = name;
    bf.replace(bf.find("fp8"), 3, "bf16");
    const auto& b = kv.at(bf);
    const int64_t tiles = c.at("chunk").get<int64_t>() / 64, ctas = c.at("ctas").get<int64_t>();
    if (ctas > 32 || tiles < 4) continue;
    const double per_tile = (c.at("median_s").get<double>() - b.at("median_s").get<double>()) / static_cast<double>(tiles);
    CAPTURE(name);
    CHECK(per_tile > 0.38e-6);
    CHECK(per_tile < 0.65e-6);
    ++checked;
  }
  CHECK(checked == 12);
  const auto& ir8 = kv.at("kv7_fp8_ctx4096_chunk4096_st3").at("ir");
  const auto& ir16 = kv.at("kv7_bf16_ctx4096_chunk4096_st3").at("ir");
  CHECK(ir8.at("ttgir_async_copy").get<int>() > 0);
  CHECK(ir16.at("ttgir_async_copy").get<int>() > 0);
  CHECK(ir8.at("cvt").get<int>() > 10 * ir16.at("cvt").get<int>());
  CHECK(ir8.at("n_regs").get<int>() > ir16.at("n_regs").get<int>());
}

TEST_CASE("FP8-KV decode attention on an H100 (h100-quanth100), the H200's calibration carried: every case held out") {
  // validation/results/h100-quanth100 (twenty-seventh session, planned before the run): run_quant3.py's Triton split-KV
  // decode over bf16 and e4m3 caches (as far as its 110 s budget went) and run_quant6.py's decode shapes on an H100.
  const Sets h100 = points("h100-sxm", "h100-quanth100/quant3.json", "h100-quanth100/quant6.json", false);
  for (const auto& [set, cases] : h100) {
    std::vector<double> e;
    for (const auto& [k, p] : cases) e.push_back(std::fabs(p.predicted / p.measured - 1));
    const Stats st = stats(e);
    MESSAGE("h100_" << set << ": n=" << st.n << " median " << 100 * st.median << " % p90 " << 100 * st.p90 << " %");
    // Issue 12's target on every set: the Triton fp8 6.3 / 13.3 % (48), quant6's fp8 6.0 / 13.1 % (27), eager
    // (a cast of K and V, then cuDNN's decode) 1.6 / 4.2 % (16).
    CAPTURE(set);
    CHECK(st.n >= 16);
    CHECK(st.median <= 0.08);
    CHECK(st.p90 <= 0.20);
  }
  CHECK(h100.count("triton_fp8"));
  CHECK(h100.count("q6_triton_fp8"));
}
