// FlashAttention-2 on its own tiles (branch flash2; lib/src/kernels/attention_prefill_flash2.cpp and
// attention_decode_flash2.cpp, validation/scripts/production/fit_flash2.py): PyTorch SDPA's `flash` backend as
// measured on the lent H200 in h200-production and every hidden set h200-heldout16..29. The flash2 block is fitted on
// their even prefill cases; the odd ones are held out here. The decode's split path keeps the `decode:` block
// (fitted on h200-production's even decode calls); its non-split kernel is the prefill's, nothing refitted.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const Calibration& h200_cal() {
  static const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return cal;
}

const Card& h200() {
  static const Card card = test::catalogue().card("h200");
  return card;
}

// Every committed set holding FlashAttention-2 calls: the prefill's, or the decode's.
std::vector<ProfileCaseError> flash2_errors(const Calibration* cal, const std::string& kernel = "attention_prefill_flash2") {
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-production/kernels.json", m);
  for (int set : {16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 29})
    load_measurements(test::root() + "/validation/results/h200-heldout" + std::to_string(set) + "/kernels.json", m);
  std::vector<ProfileCaseError> out;
  for (const ProfileCaseError& e : evaluate_profiles(m, h200(), cal))
    if (e.implementation == "torch.sdpa.flash" && e.error.detail == kernel) out.push_back(e);
  return out;
}

std::vector<double> abs_errors(const std::vector<ProfileCaseError>& errors, bool held_out) {
  std::vector<double> out;
  for (const ProfileCaseError& e : errors)
    if (e.held_out == held_out) out.push_back(std::fabs(e.error.error));
  return out;
}

double flash2_s(int64_t batch, int64_t heads, int64_t kv_heads, int64_t len, int64_t head_dim, bool calibrated = true) {
  static const Roofs eager = make_roofs(h200(), &h200_cal(), Impl::eager);
  static const Roofs datasheet = make_roofs(h200(), nullptr, Impl::eager);
  const Op op = ops::attention_prefill_flash2("fa2", batch, heads, kv_heads, len, len, head_dim, true, DType::bf16,
                                              DType::bf16);
  return price(op, calibrated ? eager : datasheet, Impl::fused).time_s;
}

}  // namespace

TEST_CASE("FlashAttention-2 prefill, held out (odd cases of 14 sets): median <= 4 %, p90 <= 12 % (issue 10: 8 / 20 %)") {
  const std::vector<ProfileCaseError> errors = flash2_errors(&h200_cal());
  const std::vector<double> held = abs_errors(errors, true), fitted = abs_errors(errors, false);
  REQUIRE(held.size() >= 90);  // 94 calls, head dims 64 / 128 / 256, 256 to 131072 tokens, batch 1 to 256
  REQUIRE(fitted.size() >= 90);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.04);  // 3.1 % when fitted
  CHECK(quantile(held, 0.9) <= 0.12);  // 9.1 %
}

TEST_CASE("FlashAttention-2 prefill: the calibration prices it better than the datasheet defaults, and far better than the card's cuDNN-class rates") {
  const std::vector<double> calibrated = abs_errors(flash2_errors(&h200_cal()), true);
  const std::vector<double> datasheet = abs_errors(flash2_errors(nullptr), true);
  CAPTURE(quantile(datasheet, 0.5));
  CHECK(quantile(calibrated, 0.5) < 0.25 * quantile(datasheet, 0.5));
  CHECK(quantile(calibrated, 0.9) < quantile(datasheet, 0.9));
  // Without the flash2 block the kernel is priced as cuDNN's tiles are (the profile's attention rates): 16k
  // tokens at 32 heads ran 6.61 ms on FlashAttention-2 (h200-production), about twice cuDNN's 3.4 ms.
  const double fa2 = flash2_s(1, 32, 8, 16384, 128);
  CHECK(fa2 == doctest::Approx(6.607e-3).epsilon(0.08));
}

TEST_CASE("FlashAttention-2 prefill: the masking branch makes short sequences dearer per FLOP") {
  // 500 and 512 tokens walk the same 4 query tiles x 2..8 key tiles at head dim 128 (128 x 64 tiles); 500 is not a
  // multiple of the tiles, so each CTA runs one more key tile through the masking branch (h200-heldout22's 500-token
  // call: 6.1 us a tile a slot, 512 tokens of h200-production: 4.6).
  const double uneven = flash2_s(40, 32, 8, 500, 128), even = flash2_s(40, 32, 8, 512, 128);
  CHECK(uneven > 1.05 * even);
  // Per FLOP, 512-token sequences cost more than 16k-token ones: most of their tiles are masked.
  const double flops_short = 64.0 * 512 * 513 / 2, flops_long = 16384.0 * 16385 / 2;
  CHECK(flash2_s(64, 32, 8, 512, 128) / flops_short > 1.3 * flash2_s(1, 32, 8, 16384, 128) / flops_long);
  // Head dim 256 runs 64 x 64 tiles: every warp reads twice the K / V bytes a FLOP from shared memory, so it is
  // dearer per FLOP than head dim 128 at the same sequence (measured 3.6 against 3.2 us per 4.2 MFLOP tile).
  CHECK(flash2_s(1, 16, 16, 16384, 256) / 2 > 1.05 * flash2_s(1, 32, 32, 16384, 128) / 2);
}

TEST_CASE("FlashAttention-2 prefill: a card without the flash2 block prices it as the fused prefill") {
  const Card a100 = test::catalogue().card("a100");
  const Roofs r = make_roofs(a100, nullptr, Impl::eager);
  const Op fa2 = ops::attention_prefill_flash2("fa2", 1, 32, 8, 4096, 4096, 128, true, DType::bf16, DType::bf16);
  const Op fused = ops::attention_prefill("fused", 1, 32, 8, 4096, 4096, 128, true, DType::bf16, DType::bf16);
  CHECK(price(fa2, r, Impl::fused).time_s == doctest::Approx(price(fused, r, Impl::fused).time_s));
  CHECK(std::isfinite(price(fa2, r, Impl::fused).time_s));
}

TEST_CASE("FlashAttention-2 decode, held out (odd cases of 14 sets): median <= 8 %, p90 <= 20 % (issue 10)") {
  std::vector<double> held;
  for (const ProfileCaseError& e : flash2_errors(&h200_cal(), "attention_decode_flash2"))
    if (e.held_out && e.error.name.rfind("sdpa_flash_decode", 0) == 0) held.push_back(std::fabs(e.error.error));
  REQUIRE(held.size() >= 80);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.08);  // 7.6 % (5.5 % with branch tailpace's last-round rule, not kept: h200-tailpace)
  CHECK(quantile(held, 0.9) <= 0.20);
}

TEST_CASE("FlashAttention-2 decode without a split is the prefill's kernel over the swapped group") {
  // 48 sequences x 8 KV heads = 384 CTAs fill 80 % of the 264 slots: no split (flash_api.cpp), one flash_fwd_kernel
  // whose CTAs hold the 4 query heads of a group in a 128-row tile (h200-heldout20: 144 us; the stream alone 84 us).
  static const Roofs eager = make_roofs(h200(), &h200_cal(), Impl::eager);
  const Op decode = ops::attention_decode_flash2("fa2", 48, 32, 8, 1700, 128, DType::bf16, DType::bf16);
  const Op same = ops::attention_prefill_flash2("fa2", 48, 8, 8, 4, 1700, 128, false, DType::bf16, DType::bf16);
  CHECK(price(decode, eager, Impl::fused).time_s == doctest::Approx(price(same, eager, Impl::fused).time_s));
  CHECK(price(decode, eager, Impl::fused).time_s == doctest::Approx(144.1e-6).epsilon(0.12));
  // A memory-bound grid (head dim 256: 66 x 8 = 528 CTAs, 1500 keys): each CTA streams its K / V once at the decode
  // block's KV rate (the split kernel's loads), not the card's read rate. h200-tailpace: 197.1 us measured.
  const Op wide = ops::attention_decode_flash2("fa2", 66, 16, 8, 1500, 256, DType::bf16, DType::bf16);
  const Op wide_prefill = ops::attention_prefill_flash2("fa2", 66, 8, 8, 2, 1500, 256, false, DType::bf16, DType::bf16);
  const OpCost c = price(wide, eager, Impl::fused);
  CHECK(c.time_s > 1.05 * price(wide_prefill, eager, Impl::fused).time_s);
  CHECK(c.time_s == doctest::Approx(197.1e-6).epsilon(0.05));  // 189.1 us (175.8 at the read rate)
}

TEST_CASE("transformers steps with SDPA held to FlashAttention-2 (h200-hfflash): kernel time within 6 %, the cuDNN twin's gap kept") {
  // --attn-implementation flash_attention_2: the eager lowering with attention_prefill_flash2 / attention_decode_flash2
  // (hf_grid.py --sdpa-backend flash; measured after the lowering, never fitted). The same points through cuDNN
  // beside them: FA2's Llama-3-8B prefill at 2048 tokens ran 2.2 ms (4 %) longer, priced 2.7 ms longer.
  static const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  auto step = [&](const YAML::Node& s, bool flash) {
    Workload w;
    const bool decode = s["phase"].as<std::string>() == "decode";
    w.phase = decode ? Phase::decode : Phase::prefill;
    w.batch = s["batch"].as<int64_t>();
    w.ctx = s["ctx"].as<int64_t>() + (decode ? 1 : 0);  // the new token counted, as compare_hf.py prices it
    w.impl = Impl::eager;
    w.eager_cache_cropped = false;  // hf_grid.py's contiguous cache
    w.eager_flash_attention_2 = flash;
    Model m = test::catalogue().model(s["model"].as<std::string>());
    // The harness ran one position past the model's 8192 at ctx 8192 (compare_hf.py's model_arg does the same).
    m.max_positions = std::max(m.max_positions, w.ctx);
    return evaluate(m, w, h200(), &cal).cost.device_time_s;
  };
  const YAML::Node flash = YAML::LoadFile(test::root() + "/validation/results/h200-hfflash/flash/hf.json")["steps"];
  const YAML::Node cudnn = YAML::LoadFile(test::root() + "/validation/results/h200-hfflash/cudnn/hf.json")["steps"];
  std::vector<double> errors;
  for (const auto& s : flash) {
    if (!s["ok"].as<bool>()) continue;
    errors.push_back(std::fabs(step(s, true) / s["kernel_s"].as<double>() - 1));
    CAPTURE(s["model"].as<std::string>());
    CAPTURE(s["batch"].as<int64_t>());
    CHECK(errors.back() <= 0.06);
  }
  REQUIRE(errors.size() >= 8);
  CHECK(quantile(errors, 0.5) <= 0.03);
  const YAML::Node f = flash[4], c = cudnn[4];  // llama3-8b prefill b1 ctx2048
  REQUIRE(f["phase"].as<std::string>() == "prefill");
  REQUIRE(c["phase"].as<std::string>() == "prefill");
  const double measured_gap = f["kernel_s"].as<double>() - c["kernel_s"].as<double>();
  const double priced_gap = step(f, true) - step(c, false);
  CHECK(measured_gap > 0);
  CHECK(priced_gap == doctest::Approx(measured_gap).epsilon(0.5));
}

TEST_CASE("head dims no fit saw (h200-headdims: 32, 80, 96, 160, 192): the kernels run the next compiled head dim") {
  // FlashAttention-2 runs its 32 / 96 / 192 kernels there (80 -> 96, 160 -> 192; 192 with eight warps, one CTA an
  // SM), cuDNN its 64 / 128 / 192 ones. Priced at the call's own dim: FA2 prefill 12.1 % median, decode 16.1 % (the
  // eight-warp kernel's b64 calls -48 / -59 %), cuDNN prefill 18.2 % (its 32 / 80 / 96 calls -17..-26 %).
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-headdims/kernels.json", m);
  std::vector<double> fa2_prefill, fa2_decode, cudnn_prefill;
  for (const ProfileCaseError& e : evaluate_profiles(m, h200(), &h200_cal())) {
    if (e.profile != Impl::eager) continue;
    const double err = std::fabs(e.error.error);
    if (e.error.detail == "attention_prefill_flash2") fa2_prefill.push_back(err);
    if (e.error.detail == "attention_decode_flash2") fa2_decode.push_back(err);
    if (e.error.detail == "attention_prefill_fused") cudnn_prefill.push_back(err);
  }
  REQUIRE(fa2_prefill.size() == 15);
  REQUIRE(fa2_decode.size() == 10);
  REQUIRE(cudnn_prefill.size() == 15);
  CAPTURE(quantile(fa2_prefill, 0.5));
  CAPTURE(quantile(fa2_decode, 0.5));
  CAPTURE(quantile(cudnn_prefill, 0.5));
  CHECK(quantile(fa2_prefill, 0.5) <= 0.06);    // 4.5 % (5.0 before uneven_dim)
  CHECK(quantile(fa2_decode, 0.5) <= 0.06);     // 4.8 % (9.2 before uneven_dim, fitted on h200-oddsplit only)
  CHECK(quantile(cudnn_prefill, 0.5) <= 0.08);  // 6.8 %
  CHECK(*std::max_element(fa2_decode.begin(), fa2_decode.end()) <= 0.20);  // 17 %: the split path at 32
  // Head dim 80 runs the 96 kernel and 160 the 192 one, uneven (Is_even_K false): that kernel's call times
  // uneven_dim at the same shape.
  const auto eager = std::find_if(h200_cal().profiles.begin(), h200_cal().profiles.end(),
                                  [](const ProfileCalibration& p) { return p.name == "eager"; });
  REQUIRE(eager != h200_cal().profiles.end());
  REQUIRE(eager->flash2.uneven_dim);
  const double uneven = *eager->flash2.uneven_dim;
  CHECK(uneven == doctest::Approx(1.091));
  CHECK(flash2_s(4, 32, 32, 2048, 80) == doctest::Approx(uneven * flash2_s(4, 32, 32, 2048, 96)).epsilon(1e-3));
  CHECK(flash2_s(4, 16, 16, 2048, 160) == doctest::Approx(uneven * flash2_s(4, 16, 16, 2048, 192)).epsilon(1e-3));
}

TEST_CASE("a head dim short of its kernel's: the padded kernel's walk, times uneven_dim (h200-oddsplit, h200-heldout30)") {
  // The split decode at 48 / 80 / 112 / 160 / 224 was priced at its own bytes, 11-28 % fast (h200-oddsplit); its
  // kernel walks the padded dim's key blocks with predicated loads (Nsight: 14-17 % more instructions than the
  // compiled dim's, DRAM further from its peak). uneven_dim is fitted on that set's timed pairs alone; the check here
  // is the price of its uneven calls and of h200-heldout30's head dim 80 (measured before the change, not fitted).
  Calibration without = h200_cal();
  for (ProfileCalibration& p : without.profiles) p.flash2.uneven_dim.reset();
  auto short_dim_errors = [&](const std::string& set, const Calibration& cal) {
    Measurements m;
    load_measurements(test::root() + "/validation/results/" + set + "/kernels.json", m);
    std::vector<double> out;
    for (const ProfileCaseError& e : evaluate_profiles(m, h200(), &cal)) {
      const bool short_dim = e.error.name.find("_d48") != std::string::npos ||
                             e.error.name.find("_d80") != std::string::npos ||
                             e.error.name.find("_d112") != std::string::npos ||
                             e.error.name.find("_d160") != std::string::npos ||
                             e.error.name.find("_d224") != std::string::npos ||
                             e.error.name.find("_d144") != std::string::npos;
      if (e.profile == Impl::eager && e.error.detail == "attention_decode_flash2" && short_dim) out.push_back(e.error.error);
    }
    return out;
  };
  const std::vector<double> probe = short_dim_errors("h200-oddsplit", h200_cal());
  const std::vector<double> probe_before = short_dim_errors("h200-oddsplit", without);
  REQUIRE(probe.size() == 9);
  std::vector<double> abs_probe, abs_before;
  for (double e : probe) abs_probe.push_back(std::fabs(e));
  for (double e : probe_before) abs_before.push_back(std::fabs(e));
  CAPTURE(quantile(abs_probe, 0.5));
  CHECK(quantile(abs_before, 0.5) >= 0.10);  // 11.8 % at the padded dim alone (20.4 % at its own bytes, before)
  CHECK(quantile(abs_probe, 0.5) <= 0.08);   // 5.5 %
  // h200-x256 (planned after uneven_dim was fitted, measured before anything was read off it): 144 / 160 / 224 at
  // batch 1-128, 1000-60000 keys, GQA groups 1-4.
  std::vector<double> x256, x256_before;
  for (double e : short_dim_errors("h200-x256", h200_cal())) x256.push_back(std::fabs(e));
  for (double e : short_dim_errors("h200-x256", without)) x256_before.push_back(std::fabs(e));
  REQUIRE(x256.size() == 9);
  CAPTURE(quantile(x256, 0.5));
  CHECK(quantile(x256, 0.5) <= 0.06);  // 3.4 %
  CHECK(quantile(x256, 0.5) < quantile(x256_before, 0.5));
  const std::vector<double> held = short_dim_errors("h200-heldout30", h200_cal());
  const std::vector<double> held_before = short_dim_errors("h200-heldout30", without);
  REQUIRE(held.size() == 2);  // Phi-2's b1 x 1900 keys (split) and b50 x 1000 (one kernel)
  for (size_t i = 0; i < held.size(); ++i) {
    CAPTURE(held[i]);
    CHECK(std::fabs(held[i]) < std::fabs(held_before[i]));
    CHECK(std::fabs(held[i]) <= 0.12);
  }
}

namespace {

// The FlashAttention-2 decode calls of one set, |predicted / measured - 1| as `perfmodel accuracy` computes them.
std::vector<double> flash2_decode_errors(const std::string& set) {
  Measurements m;
  load_measurements(test::root() + "/validation/results/" + set + "/kernels.json", m);
  std::vector<double> out;
  for (const ProfileCaseError& e : evaluate_profiles(m, h200(), &h200_cal()))
    if (e.implementation == "torch.sdpa.flash" && e.error.detail == "attention_decode_flash2") out.push_back(std::fabs(e.error.error));
  return out;
}

double flash2_decode_s(int64_t batch, int64_t heads, int64_t kv_heads, int64_t len, int64_t head_dim) {
  static const Roofs eager = make_roofs(h200(), &h200_cal(), Impl::eager);
  const Op op = ops::attention_decode_flash2("fa2", batch, heads, kv_heads, len, head_dim, DType::bf16, DType::bf16);
  return price(op, eager, Impl::fused).device_time_s;
}

}  // namespace

TEST_CASE("FlashAttention-2 decode at wide GQA groups: row blocks past 64 and the combine's partials (branch fa2wide)") {
  // attention_decode_flash2.cpp, wide_group_terms: each of ceil(group / 64) row-block CTAs streams the split's K / V,
  // and the combine is priced at the larger of its per-split walk and its fp32 partials' traffic at kPartialStream,
  // the one number fitted, on h200-flash2wide alone (14.5 / 39.2 % before, the group stepped 8 -> 128).
  const std::vector<double> fit = flash2_decode_errors("h200-flash2wide");
  REQUIRE(fit.size() == 18);
  CAPTURE(quantile(fit, 0.5));
  CAPTURE(quantile(fit, 0.9));
  CHECK(quantile(fit, 0.5) <= 0.07);  // 5.6 %
  CHECK(quantile(fit, 0.9) <= 0.15);  // 12.9 %
  // h200-widegroup, measured before the rule and never fitted: 12.8 / 33.5 % before (every call fast).
  const std::vector<double> held = flash2_decode_errors("h200-widegroup");
  REQUIRE(held.size() == 20);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.08);  // 6.0 %
  CHECK(quantile(held, 0.9) <= 0.17);  // 14.8 %
  // The mechanisms, on h200-flash2wide's shapes: 96 query heads on one KV head run two row blocks (measured 41.1 us
  // against 30.8 at 64, +33 %); the combine grows with the rows at a fixed split count (batch 160: 43.5 us at group 8,
  // 50.5 at 48).
  CHECK(flash2_decode_s(40, 96, 1, 3000, 128) > 1.25 * flash2_decode_s(40, 64, 1, 3000, 128));
  CHECK(flash2_decode_s(160, 48, 1, 1200, 128) > 1.15 * flash2_decode_s(160, 8, 1, 1200, 128));
  // Below ~400 query rows (batch x heads) the per-split walk stays the larger: b4 x 32 / 8 heads prices as before.
  const Roofs eager = make_roofs(h200(), &h200_cal(), Impl::eager);
  const Op small = ops::attention_decode_flash2("fa2", 4, 32, 8, 4096, 128, DType::bf16, DType::bf16);
  const OpCost c = price(small, eager, Impl::fused);
  bool partials_named = false;
  for (const auto& part : c.fixed_parts) partials_named = partials_named || part.what.find("partials") != std::string::npos;
  CHECK_FALSE(partials_named);
}

TEST_CASE("FlashAttention-2 decode on grids no fit saw (h200-heldout33): <= 8 % / 20 % (issue 10)") {
  // heldout33.py's 25 grids (22 split), planned after the split-wave rule and measured after both decode rules of the
  // twenty-first session; nothing read off them.
  const std::vector<double> held = flash2_decode_errors("h200-heldout33/heldout33");
  REQUIRE(held.size() == 25);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.08);  // 6.1 %
  CHECK(quantile(held, 0.9) <= 0.20);  // 11.9 %
}

TEST_CASE("FlashAttention-2 split decode: a grid of no more CTAs than SMs walks at the lone CTA's pace") {
  // b1 x 8 / 1 heads x 100000 keys: 105 splits, 105 CTAs on 132 SMs, each alone. Its walk at flash2.lone_pace times
  // the paired slot's pace (the prefill kernel's lone CTAs, h200-lonecta). h200-heldout33 measured 44.6 us (the rule
  // came after that run: 62.4 us priced before it).
  static const Roofs eager = make_roofs(h200(), &h200_cal(), Impl::eager);
  Calibration paired = h200_cal();
  for (ProfileCalibration& p : paired.profiles) p.flash2.lone_pace.reset();
  const Roofs without = make_roofs(h200(), &paired, Impl::eager);
  const Op op = ops::attention_decode_flash2("fa2", 1, 8, 1, 100000, 128, DType::bf16, DType::bf16);
  const double lone = price(op, eager, Impl::fused).device_time_s, shared = price(op, without, Impl::fused).device_time_s;
  CAPTURE(lone);
  CAPTURE(shared);
  CHECK(lone < 0.9 * shared);
  CHECK(std::fabs(lone / 44.6e-6 - 1) < std::fabs(shared / 44.6e-6 - 1));
  // A grid past the SMs keeps the paired pace: 8 KV heads at batch 1 and 131072 keys (224 CTAs).
  const Op wide = ops::attention_decode_flash2("fa2", 1, 32, 8, 131072, 128, DType::bf16, DType::bf16);
  CHECK(price(wide, eager, Impl::fused).device_time_s == doctest::Approx(price(wide, without, Impl::fused).device_time_s));
}
