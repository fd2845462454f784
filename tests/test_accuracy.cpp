// The accuracy guard (issue 4): predictions recomputed for the committed H200 measurements
// (validation/results/h200: the kernel suite and whole decode/prefill steps, none of them used
// by the calibration fit) must stay within the targets; the target is in each name. The
// held-out small-kernel set (validation/results/h200-small) is checked against the same target.
#include <doctest/doctest.h>

#include <tuple>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/profile.hpp"
#include "perfmodel/production_decode.hpp"
#include "perfmodel/profile_accuracy.hpp"

#include <yaml-cpp/yaml.h>
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Fixture {
  Measurements m;
  Card card;
  Calibration cal;
  Fixture() {
    load_measurements(test::root() + "/validation/results/h200", m);
    card = test::catalogue().card("h200");
    cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  }
  SetStats stats(const std::string& set, bool calibrated) const {
    const Roofs r = make_roofs(card, calibrated ? &cal : nullptr);
    const auto errors = evaluate(m, r, [](const std::string& k) { return test::catalogue().model(k); });
    for (const SetStats& s : summarize(errors))
      if (s.set == set) return s;
    FAIL("no cases in set " << set);
    return {};
  }
};

const Fixture& fx() {
  static const Fixture f;
  return f;
}

// A held-out folder of one set, priced with the committed calibration; `cases` measurements in it.
SetStats held_out(const std::string& folder, size_t cases) {
  Measurements held;
  load_measurements(test::root() + "/validation/results/" + folder, held);
  REQUIRE(held.cases.size() + held.steps.size() == cases);
  const Roofs r = make_roofs(fx().card, &fx().cal);
  const auto stats = summarize(evaluate(held, r, [](const std::string& k) { return test::catalogue().model(k); }));
  REQUIRE(stats.size() == 1);
  return stats[0];
}

// A set's median and p90 of |error| against a target (the one each test names).
void check_within(const SetStats& s, double median, double p90) {
  CAPTURE(s.median_abs);
  CAPTURE(s.p90_abs);
  CHECK(s.median_abs <= median);
  CHECK(s.p90_abs <= p90);
}

}  // namespace

TEST_CASE("the committed H200 data set is complete") {
  CHECK(fx().m.card == "h200");
  CHECK(fx().m.cases.size() >= 300);  // the kernel suite: 361 cases, every one checked correct
  CHECK(fx().m.steps.size() >= 20);   // TinyLlama, Llama-2-7B, Llama-3-8B, decode and prefill
}

TEST_CASE("decode and prefill steps, calibrated: median <= 10 %, p90 <= 20 % (issue 4 target)") {
  const SetStats s = fx().stats("step", true);
  check_within(s, 0.10, 0.20);
}

TEST_CASE("GEMM suite, calibrated: median <= 5 %, p90 <= 15 % (issue 4 target)") {
  const SetStats s = fx().stats("gemm", true);
  check_within(s, 0.05, 0.15);
}

TEST_CASE("GEMM suite, datasheet roofs and default efficiencies: median <= 20 % (issue 4 target)") {
  const SetStats s = fx().stats("gemm", false);
  CAPTURE(s.median_abs);
  CHECK(s.median_abs <= 0.20);
}

TEST_CASE("elementwise / norm / softmax, calibrated: median <= 8 %, p90 <= 20 % (issue 4 target)") {
  const SetStats s = fx().stats("elementwise", true);
  check_within(s, 0.08, 0.20);
}

TEST_CASE("held-out small kernels (validation/results/h200-small, shapes outside the suite and the fit): the elementwise target") {
  const SetStats s = held_out("h200-small", 84);
  check_within(s, 0.08, 0.20);
}

TEST_CASE("attention decode and prefill, calibrated: median <= 10 %, p90 <= 25 % (issue 4 target)") {
  const SetStats s = fx().stats("attention", true);
  check_within(s, 0.10, 0.25);
}

TEST_CASE("held-out steps under the power cap (validation/results/h200-power): the step target") {
  const SetStats s = held_out("h200-power", 6);
  check_within(s, 0.10, 0.20);
}

TEST_CASE("held-out GEMMs of other models (validation/results/h200-gemm-models): median <= 5 %, p90 <= 15 % (the GEMM target)") {
  const SetStats s = held_out("h200-gemm-models", 80);
  check_within(s, 0.05, 0.15);
}

TEST_CASE("held-out steps of models never measured before (validation/results/h200-other-models): the step target") {
  const SetStats s = held_out("h200-other-models", 9);
  check_within(s, 0.10, 0.20);
}

// Production kernels (issue 10): each profile's held-out cases (odd case index; the profile
// calibration is fitted on the even ones, validation/scripts/production/fit_profiles.py) priced on
// that profile's roofs, against the attention target; and the profile calibration never
// worse than the datasheet defaults on the same cases.
namespace {

struct ProductionFixture {
  Measurements m;
  std::vector<ProfileSetStats> calibrated, datasheet;
  ProductionFixture() {
    load_measurements(test::root() + "/validation/results/h200-production/kernels.json", m);
    calibrated = summarize_profiles(evaluate_profiles(m, fx().card, &fx().cal));
    datasheet = summarize_profiles(evaluate_profiles(m, fx().card, nullptr));
  }
};

const ProductionFixture& production() {
  static const ProductionFixture f;
  return f;
}

ProfileSetStats row(const std::vector<ProfileSetStats>& rows, Impl p, const std::string& kernel,
                    const std::string& impl = "") {
  for (const ProfileSetStats& s : rows)
    if (s.profile == p && s.kernel == kernel && s.implementation == impl) return s;
  FAIL("no production row " << to_string(p) << " " << kernel << " " << impl);
  return {};
}

}  // namespace

TEST_CASE("production attention, held out, per profile: median <= 8 %, p90 <= 20 % (issue 10 target)") {
  // fused and eager: cuDNN prefill (every profile's decode kernel is cuDNN's GQA-packed
  // attention_decode_cudnn, guarded with the compiled profile's in test_profile_accuracy.cpp).
  const std::vector<std::tuple<Impl, const char*, const char*>> rows = {
      {Impl::fused, "attention_prefill_fused", "torch.sdpa.cudnn"},
      {Impl::eager, "attention_prefill_fused", "torch.sdpa.cudnn"}};
  for (const auto& [p, kernel, impl] : rows) {
    {
      const ProfileSetStats s = row(production().calibrated, p, kernel, impl);
      CAPTURE(to_string(p));
      CAPTURE(kernel);
      CAPTURE(s.held_out_median_abs);
      CAPTURE(s.held_out_p90_abs);
      CHECK(s.held_out_cases >= 10);
      CHECK(s.held_out_median_abs <= 0.08);
      CHECK(s.held_out_p90_abs <= 0.20);
    }
  }
}

TEST_CASE("production attention: the calibrated profiles never predict worse than the datasheet defaults") {
  for (Impl p : {Impl::fused, Impl::eager}) {
    const ProfileSetStats c = row(production().calibrated, p, "all attention");
    const ProfileSetStats d = row(production().datasheet, p, "all attention");
    CAPTURE(to_string(p));
    CHECK(c.all_median_abs <= d.all_median_abs);
    CHECK(c.all_p90_abs <= d.all_p90_abs);
    CHECK(c.held_out_median_abs <= d.held_out_median_abs);
    CHECK(c.held_out_p90_abs <= d.held_out_p90_abs);
  }
}

// cuBLASLt through PyTorch as a profile's `gemm:` block (docs/calibration.md): the values
// validation/scripts/production/fit_gemm.py --kernel-only fits on the kernels alone of
// h200-production's even GEMM cases, h200-gemm-chain's Llama-3-8B and Qwen2.5-7B GEMMs and
// h200-gemm-small's even cases (cta_walk_latency_share: a K step's pace scales with the tile's
// operand rows, cuBLASLt's skinny tiles priced). A profile with a block is compared with the
// kernels alone (profile_accuracy.cpp, gemm_kernel_time_s). The block is not in
// hardware/h200.calibration.yaml: docs/accuracy-notes.md ("GEMMs inside a step") says which step
// guards it moves. These tests hold the held-out figures it reaches; the target is 5 % / 15 %.
namespace {

Calibration with_fitted_gemm() {
  Calibration c = fx().cal;
  for (ProfileCalibration& p : c.profiles) {
    test::lay_fitted_gemm_block(p);
    p.gemm.split_k_min_slice.reset();  // gemm5's block: its power-of-two splits (the committed fused one carries block11's rule)
  }
  return c;
}

// The committed calibration with no profile's gemm block: the card-level GEMM keys (fitted on
// launches back to back), what the block is compared against whichever profiles carry it.
Calibration card_level_gemm() {
  Calibration c = fx().cal;
  for (ProfileCalibration& p : c.profiles) p.gemm = ProductionGemm{};
  return c;
}

}  // namespace

TEST_CASE("production GEMMs with the fitted gemm block, held out, kernels alone: torch.linear and torch._scaled_mm") {
  const Calibration cal = with_fitted_gemm();
  const auto rows = summarize_profiles(evaluate_profiles(production().m, fx().card, &cal));
  for (Impl p : {Impl::fused, Impl::eager, Impl::compiled}) {
    const ProfileSetStats linear = row(rows, p, "gemm", "torch.linear");
    CAPTURE(to_string(p));
    CAPTURE(linear.held_out_median_abs);
    CAPTURE(linear.held_out_p90_abs);
    CHECK(linear.held_out_cases == 30);
    // 4.1 % / 9.4 % (the target met); the kernel-only block of gemm4 on its fit subset: 4.4 / 9.6 %.
    CHECK(linear.held_out_median_abs <= 0.042);
    CHECK(linear.held_out_p90_abs <= 0.095);
  }
  const ProfileSetStats fp8 = row(rows, Impl::fused, "gemm", "torch.scaled_mm");
  CAPTURE(fp8.held_out_median_abs);
  CAPTURE(fp8.held_out_p90_abs);
  CHECK(fp8.held_out_cases == 6);
  CHECK(fp8.held_out_median_abs <= 0.028);  // 2.7 % / 8.9 %
  CHECK(fp8.held_out_p90_abs <= 0.090);
  // Against the committed calibration's card-level GEMM keys (compared with the harness time, what
  // they were fitted on): 8.3 % / 17.4 % held out.
  const Calibration card = card_level_gemm();
  const ProfileSetStats with = row(rows, Impl::fused, "all gemm");
  const ProfileSetStats without = row(summarize_profiles(evaluate_profiles(production().m, fx().card, &card)), Impl::fused, "all gemm");
  CHECK(with.held_out_median_abs < without.held_out_median_abs);
  CHECK(with.held_out_p90_abs < without.held_out_p90_abs);
}

TEST_CASE("held-out small-M GEMMs of other models through PyTorch (validation/results/h200-gemm-small, odd cases)") {
  Measurements held;
  load_measurements(test::root() + "/validation/results/h200-gemm-small", held);
  REQUIRE(held.cases.size() == 140);
  const Calibration cal = with_fitted_gemm();
  const auto fitted = summarize_profiles(evaluate_profiles(held, fx().card, &cal));
  const Calibration card = card_level_gemm();
  const auto card_keys = summarize_profiles(evaluate_profiles(held, fx().card, &card));
  for (Impl p : {Impl::fused, Impl::eager, Impl::compiled}) {
    const ProfileSetStats s = row(fitted, p, "gemm", "torch.linear");
    const ProfileSetStats c = row(card_keys, p, "gemm", "torch.linear");
    CAPTURE(to_string(p));
    CAPTURE(s.held_out_median_abs);
    CAPTURE(s.held_out_p90_abs);
    CHECK(s.held_out_cases == 70);
    // With the block, kernels alone: 5.8 % / 12.8 % (the median just misses the 5 % target);
    // the card-level keys against the harness time: 17.4 % / 43.3 % over all 140.
    CHECK(s.held_out_median_abs <= 0.059);
    CHECK(s.held_out_p90_abs <= 0.129);
    CHECK(s.held_out_median_abs < 0.5 * c.held_out_median_abs);
    CHECK(s.held_out_p90_abs < 0.5 * c.held_out_p90_abs);
  }
}

TEST_CASE("production kernels: each implementation stands for the right profile") {
  // transformers' SDPA call runs cuDNN on sm90 (validation/results/h200-hf-grid kernel names).
  // PyTorch's FlashAttention-2 prefill is the eager profile's attention_prefill_flash2 (what
  // attn_implementation="flash_attention_2" runs; branch flash2), its decode attention_decode_flash2;
  // the engine's decode is cuDNN's GQA-packed kernel (attention_decode_cudnn).
  CHECK(profiles_measured_by("torch.sdpa.cudnn", KernelId::attention_prefill_fused) ==
        (std::vector{Impl::fused, Impl::eager, Impl::compiled}));
  CHECK(profiles_measured_by("torch.sdpa.flash", KernelId::attention_prefill_fused) == std::vector{Impl::eager});
  CHECK(profiles_measured_by("torch.sdpa.flash", KernelId::attention_decode) == std::vector{Impl::eager});
  // SDPA with an attention mask (a static cache) runs cuDNN's kernels too: the memory-efficient
  // kernel stands for no profile.
  CHECK(profiles_measured_by("torch.sdpa.efficient", KernelId::attention_decode).empty());
  CHECK(profiles_measured_by("torch.sdpa.efficient", KernelId::attention_prefill_fused).empty());
  CHECK(profiles_measured_by("torch.eager", KernelId::silu_mul) == std::vector{Impl::eager});
  CHECK(profiles_measured_by("torch.compile", KernelId::rmsnorm) == (std::vector{Impl::fused, Impl::compiled}));
  CHECK(profiles_measured_by("torch.linear", KernelId::gemm).size() == 3);  // cuBLASLt in every profile
}

TEST_CASE("eager form: F.silu(a) * b is two kernels and an intermediate; held out within 10 % median") {
  const Op fused = ops::silu_mul("act", 4096, 4096, DType::bf16);
  const std::vector<Op> eager = eager_form(fused, true);
  REQUIRE(eager.size() == 2);
  double bytes = 0;
  for (const Op& k : eager) bytes += k.bytes();
  CHECK(bytes == test::approx(5.0 / 3.0 * fused.bytes()));  // 5 passes over rows x cols against 3
  CHECK(eager_form(ops::rmsnorm("n", 16, 4096, DType::bf16, false), true).size() == 7);   // LlamaRMSNorm
  CHECK(eager_form(ops::rmsnorm("n", 16, 4096, DType::bf16, false), false).size() == 1);  // F.rms_norm
  const ProfileSetStats s = row(production().calibrated, Impl::eager, "silu_mul", "torch.eager");
  CAPTURE(s.held_out_median_abs);
  CHECK(s.held_out_cases == 5);
  CHECK(s.held_out_median_abs <= 0.10);
}

TEST_CASE("production decode: FlashAttention-2's split rule gives the kernel count of every measured flash decode call") {
  const auto cases = test::root() + "/validation/results/h200-production/kernels.json";
  YAML::Node root = YAML::LoadFile(cases);
  int checked = 0;
  for (const auto& c : root["cases"]) {
    if (c["kernel"].as<std::string>() != "attention_decode" || c["implementation"].as<std::string>() != "torch.sdpa.flash")
      continue;
    const ProductionDecodePlan p =
        plan_production_decode(c["batch"].as<int64_t>(), c["heads"].as<int64_t>(), c["kv_heads"].as<int64_t>(),
                               c["kv_len"].as<int64_t>(), c["head_dim"].as<int64_t>(), fx().card.sm_count);
    CAPTURE(c["name"].as<std::string>());
    CHECK((p.splits > 1 ? 2 : 1) == c["kernels_per_launch"].as<int>());
    ++checked;
  }
  CHECK(checked == 20);
}
