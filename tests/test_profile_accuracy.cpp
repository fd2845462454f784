// Issue 10, the profiles' own kernels: PyTorch eager's norms, softmax and rotary
// (aten_kernel_cost.cpp) and the compiled profile's attention and Inductor kernels, held out
// from their fits (odd case index of validation/results/h200-production; every case of
// validation/results/h200-eager-heldout, measured after the mechanisms were chosen). The figures
// are those docs/accuracy.md reports; a change that moves them past these bounds fails here.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/stats.hpp"
#include "hf_wall_errors.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Sets {
  Card card;
  Calibration cal;
  std::vector<ProfileSetStats> production, heldout, eltwise3, eltwise4, eltwise5, eltwise6, production_datasheet;
  // Branch eltwise6's opt-in calibration (the looped reduction's walk): the sets it is judged on.
  Calibration walk;
  std::vector<ProfileSetStats> walk_production, walk_eltwise3, walk_eltwise4, walk_eltwise5, walk_eltwise6;
  // Branch eltwise7's opt-in calibration (the walk and the autotuner's whole-row candidate).
  Calibration whole;
  std::vector<ProfileSetStats> whole_production, whole_eltwise3, whole_eltwise4, whole_eltwise5, whole_eltwise6;
  // Branch eltwise9's held-out set (XBLOCK 2 at <= 2048 columns), default and eltwise7's opt-in.
  std::vector<ProfileSetStats> eltwise9, whole_eltwise9;
  // Branch eltwise11's staircase (1-8 CTAs an SM at 2048 columns) and two wide layer_norm / softmax calls.
  std::vector<ProfileSetStats> eltwise11, whole_eltwise11;
  // Branch eltwise14's opt-in calibration (eltwise6's walk past 4096 columns only) and its held-out set.
  Calibration walk4096;
  // The default before branch walkstep made the walk past 4096 columns the default (no walk keys).
  Calibration nowalk;
  std::vector<ProfileSetStats> eltwise14, w4_production, w4_eltwise3, w4_eltwise4, w4_eltwise5, w4_eltwise6, w4_eltwise14;
  Sets() {
    card = test::catalogue().card("h200");
    cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    Measurements a, b, c, d, e;
    load_measurements(test::root() + "/validation/results/h200-production/kernels.json", a);
    load_measurements(test::root() + "/validation/results/h200-eager-heldout/kernels.json", b);
    load_measurements(test::root() + "/validation/results/h200-eltwise3/kernels.json", c);
    load_measurements(test::root() + "/validation/results/h200-eltwise4/kernels.json", d);
    load_measurements(test::root() + "/validation/results/h200-eltwise5/kernels.json", e);
    production = summarize_profiles(evaluate_profiles(a, card, &cal));
    production_datasheet = summarize_profiles(evaluate_profiles(a, card, nullptr));
    heldout = summarize_profiles(evaluate_profiles(b, card, &cal));
    eltwise3 = summarize_profiles(evaluate_profiles(c, card, &cal));
    eltwise4 = summarize_profiles(evaluate_profiles(d, card, &cal));
    eltwise5 = summarize_profiles(evaluate_profiles(e, card, &cal));
    Measurements f;
    load_measurements(test::root() + "/validation/results/h200-eltwise6/kernels.json", f);
    eltwise6 = summarize_profiles(evaluate_profiles(f, card, &cal));
    walk = load_calibration(test::root() + "/validation/results/h200-eltwise6/h200.calibration.walk.yaml");
    walk_production = summarize_profiles(evaluate_profiles(a, card, &walk));
    walk_eltwise3 = summarize_profiles(evaluate_profiles(c, card, &walk));
    walk_eltwise4 = summarize_profiles(evaluate_profiles(d, card, &walk));
    walk_eltwise5 = summarize_profiles(evaluate_profiles(e, card, &walk));
    walk_eltwise6 = summarize_profiles(evaluate_profiles(f, card, &walk));
    whole = load_calibration(test::root() + "/validation/results/h200-eltwise7/h200.calibration.whole.yaml");
    whole_production = summarize_profiles(evaluate_profiles(a, card, &whole));
    whole_eltwise3 = summarize_profiles(evaluate_profiles(c, card, &whole));
    whole_eltwise4 = summarize_profiles(evaluate_profiles(d, card, &whole));
    whole_eltwise5 = summarize_profiles(evaluate_profiles(e, card, &whole));
    whole_eltwise6 = summarize_profiles(evaluate_profiles(f, card, &whole));
    Measurements g;
    load_measurements(test::root() + "/validation/results/h200-eltwise9/kernels.json", g);
    eltwise9 = summarize_profiles(evaluate_profiles(g, card, &cal));
    whole_eltwise9 = summarize_profiles(evaluate_profiles(g, card, &whole));
    Measurements h;
    load_measurements(test::root() + "/validation/results/h200-eltwise11/kernels.json", h);
    eltwise11 = summarize_profiles(evaluate_profiles(h, card, &cal));
    whole_eltwise11 = summarize_profiles(evaluate_profiles(h, card, &whole));
    walk4096 = load_calibration(test::root() + "/validation/results/h200-eltwise14/h200.calibration.walk4096.yaml");
    nowalk = load_calibration(test::root() + "/validation/results/h200-walkstep/h200.calibration.nowalk.yaml");
    Measurements k;
    load_measurements(test::root() + "/validation/results/h200-eltwise14/kernels.json", k);
    eltwise14 = summarize_profiles(evaluate_profiles(k, card, &cal));
    w4_eltwise14 = summarize_profiles(evaluate_profiles(k, card, &walk4096));
    w4_production = summarize_profiles(evaluate_profiles(a, card, &walk4096));
    w4_eltwise3 = summarize_profiles(evaluate_profiles(c, card, &walk4096));
    w4_eltwise4 = summarize_profiles(evaluate_profiles(d, card, &walk4096));
    w4_eltwise5 = summarize_profiles(evaluate_profiles(e, card, &walk4096));
    w4_eltwise6 = summarize_profiles(evaluate_profiles(f, card, &walk4096));
  }
};

const Sets& sets() {
  static const Sets s;
  return s;
}

ProfileSetStats row(const std::vector<ProfileSetStats>& rows, Impl p, const std::string& kernel,
                    const std::string& impl = "") {
  for (const ProfileSetStats& s : rows)
    if (s.profile == p && s.kernel == kernel && s.implementation == impl) return s;
  FAIL("no row " << to_string(p) << " " << kernel << " " << impl);
  return {};
}


// The compiled roofs with each floor as fitted on single-call harness times (harness_idle_s off), as
// evaluate_profiles prices harness cases (profile_accuracy.cpp, as_fitted): the checks below price one
// harness call directly. With `harness_idle` in profiles.compiled (branch compsmall / compfuse's opt-in)
// a step's small kernels are priced alone; a harness call keeps the idle after its kernel.
Roofs compiled_harness(const Calibration* cal) {
  Roofs r = make_roofs(sets().card, cal, Impl::compiled);
  r.harness_idle_s = 0;
  return r;
}

}  // namespace

TEST_CASE("eager: PyTorch's norms, softmax and rotary, held out (issue 10 target 8 % / 20 %)") {
  const ProfileSetStats all = row(sets().production, Impl::eager, "all elementwise");
  CAPTURE(all.held_out_median_abs);
  CAPTURE(all.held_out_p90_abs);
  CHECK(all.held_out_cases == 25);
  CHECK(all.held_out_median_abs <= 0.06);  // 5.9 % (6.8 % before branch eltwise4, 7.1 % before eltwise)
  CHECK(all.held_out_p90_abs <= 0.184);  // 18.3 % (20.7 % before eltwise4: SiLU's exp/divide chain)
  for (const char* k : {"rmsnorm", "layernorm", "softmax_fused", "rotary"}) {
    const ProfileSetStats s = row(sets().production, Impl::eager, k, "torch.eager");
    CAPTURE(k);
    CAPTURE(s.held_out_median_abs);
    CHECK(s.held_out_median_abs <= 0.08);
  }
}

TEST_CASE("eager: a second set at new shapes, none of it fitted on") {
  const ProfileSetStats all = row(sets().heldout, Impl::eager, "all elementwise");
  CAPTURE(all.all_median_abs);
  CAPTURE(all.all_p90_abs);
  CHECK(all.fitted_cases + all.held_out_cases == 31);
  CHECK(all.all_median_abs <= 0.055);  // 5.4 % (6.8 % before branch eltwise4, 10.7 % before eltwise)
  CHECK(all.all_p90_abs <= 0.199);     // 19.8 % (20.5 %, 22.4 %)
  // SiLU*mul: 11.8 / 27.0 % before its SiLU kernel carried the exp/divide chain (eltwise4).
  const ProfileSetStats silu = row(sets().heldout, Impl::eager, "silu_mul", "torch.eager");
  CHECK(silu.all_median_abs <= 0.018);  // 1.7 %
  CHECK(silu.all_p90_abs <= 0.145);     // 14.4 %
  // transformers' LlamaRMSNorm: 29.5 / 40.4 % before its cast ran at the LoadWithCast rate and its
  // mean as ATen's reduce_kernel; 0.8 / 18.9 % (8 x 4096 is the one left: -24 %).
  const ProfileSetStats hf = row(sets().heldout, Impl::eager, "rmsnorm", "hf.eager");
  CAPTURE(hf.all_median_abs);
  CAPTURE(hf.all_p90_abs);
  CHECK(hf.all_median_abs <= 0.02);
  CHECK(hf.all_p90_abs <= 0.19);
  for (const char* k : {"rmsnorm", "layernorm", "softmax_fused", "rotary"}) {
    const ProfileSetStats s = row(sets().heldout, Impl::eager, k, "torch.eager");
    CAPTURE(k);
    CAPTURE(s.all_median_abs);
    CHECK(s.all_median_abs <= 0.10);
  }
}

TEST_CASE("eager and compiled: a third set at new shapes (h200-eltwise3), none of it fitted on") {
  const ProfileSetStats all = row(sets().eltwise3, Impl::eager, "all elementwise");
  CAPTURE(all.all_median_abs);
  CAPTURE(all.all_p90_abs);
  CHECK(all.fitted_cases + all.held_out_cases == 55);
  CHECK(all.all_median_abs <= 0.063);  // 6.2 % (6.5 % before branch eltwise4)
  CHECK(all.all_p90_abs <= 0.155);     // 15.4 % (23.4 %: the warp softmax at 16k-32k rows, now issue-bound, -56 % -> -8 %)
  const ProfileSetStats sm = row(sets().eltwise3, Impl::eager, "softmax_fused", "torch.eager");
  CHECK(sm.all_p90_abs <= 0.09);  // 8.9 % (38.6 %)
  const ProfileSetStats silu = row(sets().eltwise3, Impl::eager, "silu_mul", "torch.eager");
  CHECK(silu.all_median_abs <= 0.074);  // 7.3 % (14.2 %)
  CHECK(silu.all_p90_abs <= 0.214);     // 21.3 % (34.0 %): 3-24 rows still -21 %
  const ProfileSetStats hf = row(sets().eltwise3, Impl::eager, "rmsnorm", "hf.eager");
  CHECK(hf.all_median_abs <= 0.097);  // 9.6 %
  CHECK(hf.all_p90_abs <= 0.11);      // 10.8 %
  const ProfileSetStats rot = row(sets().eltwise3, Impl::eager, "rotary", "torch.eager");
  CHECK(rot.all_median_abs <= 0.043);  // 4.2 %, head layouts 32/8, 28/4, 32/32, 16/16 x 64
  CHECK(rot.all_p90_abs <= 0.113);     // 11.2 %
  // Inductor's kernels, the fused and compiled profiles' stand-in: rotary 10.3 / 16.1 %; the looped
  // Triton softmax and layernorm reductions priced by their padded walks since eltwise4 (were
  // 37.4 / 60.7 % and 20.2 / 33.6 %; all elementwise 7.5 / 37.2 %).
  for (Impl p : {Impl::fused, Impl::compiled}) {
    const ProfileSetStats c = row(sets().eltwise3, p, "all elementwise");
    CAPTURE(to_string(p));
    CHECK(c.all_median_abs <= 0.044);  // 4.3 % (5.2 % before branch eltwise9's XBLOCK 2)
    CHECK(c.all_p90_abs <= 0.182);     // 18.1 % (19.8 %)
    const ProfileSetStats ln = row(sets().eltwise3, p, "layernorm", "torch.compile");
    CHECK(ln.all_median_abs <= 0.042);  // 4.1 % (6.5 %: 24 x 1536 -6.5 -> +4.0 %, its 12 CTAs of 2 rows)
    CHECK(ln.all_p90_abs <= 0.152);     // 15.1 %
    const ProfileSetStats sm = row(sets().eltwise3, p, "softmax_fused", "torch.compile");
    CHECK(sm.all_median_abs <= 0.063);  // 6.2 %
    CHECK(sm.all_p90_abs <= 0.277);     // 27.6 % (33.5 %): 384 x 6144 still -35 % (its autotuner kept the whole row); 24 x 1536 -31 -> -17 %
    const ProfileSetStats rms = row(sets().eltwise3, p, "rmsnorm", "torch.compile");
    CHECK(rms.all_median_abs <= 0.011);  // 1.0 % (2.0 % before branch eltwise5)
    CHECK(rms.all_p90_abs <= 0.049);     // 4.8 % (6.8 %)
    const ProfileSetStats r = row(sets().eltwise3, p, "rotary", "torch.compile");
    CHECK(r.all_median_abs <= 0.104);
    CHECK(r.all_p90_abs <= 0.162);
  }
}

TEST_CASE("h200-eltwise4: compiled and eager row ops at a fourth set of shapes, odd cases held out") {
  // Its even compiled cases fit the `inductor:` rates and its even eager softmax cases the warp
  // softmax's; nothing of SiLU*mul is fitted on it (validation/results/h200-eltwise4/README.md).
  const ProfileSetStats eager = row(sets().eltwise4, Impl::eager, "all elementwise");
  CAPTURE(eager.held_out_median_abs);
  CAPTURE(eager.held_out_p90_abs);
  CHECK(eager.held_out_cases == 8);
  CHECK(eager.held_out_median_abs <= 0.054);  // 5.3 %
  CHECK(eager.held_out_p90_abs <= 0.094);     // 9.3 %
  const ProfileSetStats silu = row(sets().eltwise4, Impl::eager, "silu_mul", "torch.eager");
  CHECK(silu.all_median_abs <= 0.037);  // 3.6 %, 2-2500 rows
  CHECK(silu.all_p90_abs <= 0.137);     // 13.6 %
  for (Impl p : {Impl::fused, Impl::compiled}) {
    const ProfileSetStats c = row(sets().eltwise4, p, "all elementwise");
    CAPTURE(to_string(p));
    CAPTURE(c.held_out_median_abs);
    CAPTURE(c.held_out_p90_abs);
    CHECK(c.held_out_cases == 14);
    CHECK(c.held_out_median_abs <= 0.069);  // 6.8 % (8.7 % before branch eltwise5: rms_norm's padded walk)
    CHECK(c.held_out_p90_abs <= 0.223);     // 22.2 %: layer_norm 1536 x 18944 -24 %, SiLU*mul 1536 x 18944 -22 %
    // rms_norm streams (no padded-walk rate) and its persistent kernel loads once: 13.6 / 20.1 % before.
    const ProfileSetStats rms = row(sets().eltwise4, p, "rmsnorm", "torch.compile");
    CHECK(rms.held_out_median_abs <= 0.074);  // 7.3 %
    CHECK(rms.held_out_p90_abs <= 0.18);      // 17.9 %
    const ProfileSetStats sm = row(sets().eltwise4, p, "softmax_fused", "torch.compile");
    CHECK(sm.held_out_median_abs <= 0.069);  // 6.8 %
    CHECK(sm.held_out_p90_abs <= 0.083);     // 8.2 %
  }
}

TEST_CASE("h200-eltwise5: a fifth compiled set at new shapes, none of it fitted on") {
  // validation/results/h200-eltwise5/README.md: 23 torch.compile cases measured after the
  // mechanisms of branch eltwise5 were chosen (all held out: the `all` figures).
  for (Impl p : {Impl::fused, Impl::compiled}) {
    const ProfileSetStats c = row(sets().eltwise5, p, "all elementwise");
    CAPTURE(to_string(p));
    CAPTURE(c.all_median_abs);
    CAPTURE(c.all_p90_abs);
    CHECK(c.fitted_cases + c.held_out_cases == 23);
    CHECK(c.all_median_abs <= 0.087);  // 8.6 % (11.1 % with eltwise4's model)
    CHECK(c.all_p90_abs <= 0.237);     // 23.6 %: softmax 8 x 8192 -27 %, layer_norm 200 x 2049 -26 %
    const ProfileSetStats rms = row(sets().eltwise5, p, "rmsnorm", "torch.compile");
    CHECK(rms.all_median_abs <= 0.083);  // 8.2 % (13.1 %)
    CHECK(rms.all_p90_abs <= 0.144);     // 14.3 % (16.9 %)
  }
}

TEST_CASE("h200-eltwise6: looped reductions at 1/4 to 8 rows per SM, odd cases held out") {
  // validation/results/h200-eltwise6/README.md. The default calibration prices them with the
  // backend's sweeps (softmax -15 to -29 % at few rows per SM); the opt-in calibration of branch
  // eltwise6 (h200.calibration.walk.yaml: the looped reduction's walk, fit_inductor.py, fitted on
  // the even cases here, h200-production's and h200-eltwise4's) prices the walk.
  for (Impl p : {Impl::fused, Impl::compiled}) {
    CAPTURE(to_string(p));
    const ProfileSetStats c = row(sets().eltwise6, p, "all elementwise");
    CHECK(c.held_out_cases == 19);
    CHECK(c.held_out_median_abs <= 0.080);  // 7.9 % (11.6 % before branch eltwise8: the 16 x 16384 calls as one kernel)
    CHECK(c.held_out_p90_abs <= 0.198);     // 19.7 % (23.8 %)
    const ProfileSetStats w = row(sets().walk_eltwise6, p, "all elementwise");
    CAPTURE(w.held_out_median_abs);
    CAPTURE(w.held_out_p90_abs);
    CHECK(w.held_out_median_abs <= 0.047);  // 4.7 %
    CHECK(w.held_out_p90_abs <= 0.155);     // 15.5 % (22.0 % before branch eltwise8 priced Inductor's split reduction: rms_norm 16 x 16384 +26 -> -8 %)
    const ProfileSetStats sm = row(sets().walk_eltwise6, p, "softmax_fused", "torch.compile");
    CHECK(sm.held_out_median_abs <= 0.057);  // 5.6 % (19.2 % with the default calibration)
    // 12.1 % since branch splitred priced the split kernel by kernel (16 x 16384: +9.5 -> -9.7 %, as
    // large the other way; 11.9 % before, 19.0 % before branch eltwise8, 26.8 % default)
    CHECK(sm.held_out_p90_abs <= 0.121);
    const ProfileSetStats ln = row(sets().walk_eltwise6, p, "layernorm", "torch.compile");
    CHECK(ln.held_out_median_abs <= 0.029);  // 2.8 % (11.6 %)
    // The other sets with the walk, held out (the default's figures in the cases above):
    CHECK(row(sets().walk_eltwise3, p, "all elementwise").all_median_abs <= 0.044);  // 4.3 % (5.2 %)
    CHECK(row(sets().walk_eltwise3, p, "all elementwise").all_p90_abs <= 0.162);     // 16.1 % (19.8 %)
    CHECK(row(sets().walk_eltwise5, p, "all elementwise").all_median_abs <= 0.072);  // 7.1 % (8.6 %)
    CHECK(row(sets().walk_eltwise5, p, "all elementwise").all_p90_abs <= 0.212);     // 21.1 % (23.6 %)
    CHECK(row(sets().walk_eltwise4, p, "all elementwise").held_out_p90_abs <= 0.219);     // 21.8 % (22.2 %)
    CHECK(row(sets().walk_production, p, "all elementwise").held_out_p90_abs <= 0.191);  // 19.0 % (19.0 %)
  }
}

TEST_CASE("h200-eltwise7: the autotuner's two candidates, the faster kept (opt-in)") {
  // validation/results/h200-eltwise7/README.md: h200.calibration.whole.yaml = eltwise6's walk + the
  // whole-row candidate at 2049-4096 columns (whole_row_saved, fitted on h200-eltwise5/configs.json's
  // 128 x 4096 pairs). Not the default: the suites' compiled kernels reuse the config tuned at the
  // shape that first compiled them (dynamic shapes), so several ran the slower walk.
  const Calibration& cw = sets().whole;
  const Roofs whole = compiled_harness(&cw);
  const Roofs walk = compiled_harness(&sets().walk);
  REQUIRE(whole.inductor.whole_row_saved_s > 0);
  auto t = [](const Op& op, const Roofs& r) { return price(op, r, Impl::compiled).device_time_s; };
  auto softmax = [](int64_t rows, int64_t cols) { return ops::softmax("s", rows, cols, DType::bf16, true); };
  // 2049-4096 columns: the whole row saves its round trips against the two-block walk; wider, the walk alone.
  CHECK(t(softmax(64, 2560), walk) - t(softmax(64, 2560), whole) == test::approx(whole.inductor.whole_row_saved_s));
  CHECK(t(softmax(64, 8192), whole) == test::approx(t(softmax(64, 8192), walk)));
  for (Impl p : {Impl::fused, Impl::compiled}) {
    CAPTURE(to_string(p));
    const ProfileSetStats e6 = row(sets().whole_eltwise6, p, "all elementwise");
    CAPTURE(e6.held_out_median_abs);
    CHECK(e6.held_out_median_abs <= 0.058);  // 5.7 % (4.7 % with the walk alone, 11.6 % default)
    CHECK(e6.held_out_p90_abs <= 0.155);     // 15.5 % (22.0 % before branch eltwise8's split reduction)
    const ProfileSetStats e4 = row(sets().whole_eltwise4, p, "all elementwise");
    CHECK(e4.held_out_median_abs <= 0.071);  // 7.0 % (7.8 % walk, 6.8 % default)
    CHECK(e4.held_out_p90_abs <= 0.219);     // 21.8 %
    const ProfileSetStats sm4 = row(sets().whole_eltwise4, p, "softmax_fused", "torch.compile");
    CHECK(sm4.held_out_p90_abs <= 0.086);  // 8.5 % (15.8 % walk, 8.2 % default): 64 x 2560 +18.9 -> +8.0 %
    CHECK(row(sets().whole_eltwise5, p, "all elementwise").all_median_abs <= 0.072);  // 7.1 % (8.6 % default)
    CHECK(row(sets().whole_eltwise5, p, "all elementwise").all_p90_abs <= 0.198);     // 19.7 % (21.1 % walk, 23.6 %)
    CHECK(row(sets().whole_eltwise3, p, "all elementwise").all_median_abs <= 0.043);  // 4.2 % (4.3 % before branch eltwise9, 5.2 % default)
    CHECK(row(sets().whole_eltwise3, p, "all elementwise").all_p90_abs <= 0.162);     // 16.1 % (19.8 %)
    const ProfileSetStats sm = row(sets().whole_production, p, "softmax_fused", "torch.compile");
    CHECK(sm.held_out_p90_abs <= 0.073);  // 7.2 % (16.1 % walk, 11.0 % default)
    CHECK(row(sets().whole_production, p, "all elementwise").held_out_p90_abs <= 0.191);  // 19.0 %
  }
}

TEST_CASE("compiled: Inductor's row reductions as generated (inductor_code.json)") {
  const Roofs c = compiled_harness(&sets().cal);
  const Roofs f = make_roofs(sets().card, &sets().cal, Impl::fused);
  REQUIRE(c.inductor.softmax_rate > 0);
  CHECK(f.inductor.softmax_rate == c.inductor.softmax_rate);  // the fused profile's stand-in
  auto t = [](const Op& op, const Roofs& r) { return price(op, r, Impl::fused).device_time_s; };
  auto softmax = [](int64_t rows, int64_t cols) { return ops::softmax("s", rows, cols, DType::bf16, true); };
  // A looped reduction walks 2048-column blocks, the last one masked but issued in full: 2049
  // columns queue as long as 4096 (issue-bound at 8192 rows), not half as long.
  CHECK(t(softmax(8192, 2049), c) > 0.95 * t(softmax(8192, 4096), c));
  // The padded walk's issue: ceil(rows / SMs) - 1 rows per SM beyond the first, at the fitted rate,
  // each row at its count over the reference's (branch inductorrow: 4 blocks count (2086 + 4 x 3668)
  // against 6144 x 11008's 1.978 a padded element, 1.034).
  const double sms = c.card.sm_count;
  const double w4 = (2086.0 + 4 * 3668) / (8192 * 24304.0 / 12288);
  CHECK(t(softmax(64 * 132, 8192), c) - t(softmax(32 * 132, 8192), c) ==
        test::approx(32 * 8192 / (c.inductor.softmax_rate / sms) * w4).epsilon(0.02));
  // Up to 1024 columns a persistent reduction: stream-bound, the three ops alike at 32768 x 1024
  // (35.5-35.8 us measured), where the backend's instruction count priced the softmax 69 % over.
  const double rms = t(ops::rmsnorm("n", 32768, 1024, DType::bf16, false), c);
  CHECK(t(softmax(32768, 1024), c) == test::approx(rms).epsilon(0.03));
  // rms_norm has no padded-walk rate (fit_inductor.py: its fit cases stream at 85 % of the copy
  // rate), but at many rows an SM its resident-row groups queue one dependent chain after another
  // (inductor_rms_queue.cpp, branch inductorsmall). Measured (validation/results/h200-rms2049, no fit
  // holds it): 8192 x 2049 runs 40.2 us, as long as 8192 x 4096's 39.6 us. This check said the
  // opposite (< 0.6 x, 2049 columns costing their bytes) before that shape was measured; the
  // streamed price was 51 % under it.
  REQUIRE(c.inductor.rmsnorm_rate == 0);
  REQUIRE(c.inductor.rmsnorm_group_s > 0);
  auto rmsnorm = [](int64_t rows, int64_t cols) { return ops::rmsnorm("n", rows, cols, DType::bf16, false); };
  CHECK(t(rmsnorm(8192, 2049), c) > 0.85 * t(rmsnorm(8192, 4096), c));
  CHECK(t(rmsnorm(8192, 2049), c) == doctest::Approx(40.24e-6).epsilon(0.20));
}

TEST_CASE("compiled: Inductor's reduction holds two rows a CTA up to 2048 columns (branch eltwise9)") {
  // torch/_inductor/runtime/triton_heuristics.py, _reduction_configs: XBLOCK 2 while the row's size
  // hint is at most 2048 columns (h200-eltwise5/configs.json, h200-eltwise9's `autotuned`), so an SM's
  // further rows come in pairs: one CTA past 4 an SM adds two rows' issue to its SM, not one.
  const Roofs c = compiled_harness(&sets().cal);
  auto t = [&](const Op& op) { return price(op, c, Impl::compiled).device_time_s; };
  auto softmax = [](int64_t rows, int64_t cols) { return ops::softmax("s", rows, cols, DType::bf16, true); };
  const double sms = c.card.sm_count, row_issue = 2048 / (c.inductor.softmax_rate / sms);
  CHECK(t(softmax(1058, 2048)) - t(softmax(1056, 2048)) == test::approx(2 * row_issue).epsilon(0.05));
  CHECK(t(softmax(1055, 2048)) == test::approx(t(softmax(1056, 2048))).epsilon(0.01));  // the same 528 CTAs
  // Past 2048 columns one row a CTA: one more row's issue (at 2 blocks' padded width, at its count over
  // the reference's: (2086 + 2 x 3668) / (4096 x 1.978) = 1.163, branch inductorrow).
  const double w2 = (2086.0 + 2 * 3668) / (4096 * 24304.0 / 12288);
  CHECK(t(softmax(1057, 4096)) - t(softmax(1056, 4096)) == test::approx(2 * row_issue * w2).epsilon(0.05));
  // validation/results/h200-eltwise9, 14 calls at 132-1058 rows of 1536 and 2048 columns, none fitted
  // on: median / p90 |error| 18.6 / 26.8 % with one row a CTA, 14.5 / 22.9 % with the pairing (9.1 /
  // 18.2 % with branch eltwise7's opt-in walk, 11.7 / 21.3 % before), 3.5 / 6.3 % with branch
  // eltwise11's lockstep wave and softmax's exposed issue (4.1 / 10.0 % with the opt-in), which were
  // chosen with this set in view (no parameter).
  for (Impl p : {Impl::fused, Impl::compiled}) {
    CAPTURE(to_string(p));
    const ProfileSetStats all = row(sets().eltwise9, p, "all elementwise");
    CHECK(all.fitted_cases + all.held_out_cases == 14);
    CHECK(all.all_median_abs <= 0.036);  // 3.5 % (14.5 % before branch eltwise11)
    CHECK(all.all_p90_abs <= 0.064);     // 6.3 % (22.9 %)
    const ProfileSetStats whole = row(sets().whole_eltwise9, p, "all elementwise");
    CHECK(whole.all_median_abs <= 0.041);  // 4.1 % (9.1 %)
    CHECK(whole.all_p90_abs <= 0.100);     // 10.0 % (18.2 %)
  }
}

TEST_CASE("compiled: the first resident CTAs of Inductor's 2048-column reduction run in lockstep (branch eltwise11)") {
  // Up to 2048 columns a row is one block a sweep (XBLOCK 2, R0_BLOCK 2048, 16 warps): the CTAs an SM
  // starts together (2048 threads / 512 = 4) wait on their loads together, then issue one after
  // another, so past the first CTA an SM their stream share and their issue add (the smaller of
  // the two lost), where later CTAs overlap the two (stream_cost.cpp, inductor_lockstep_s).
  const Roofs c = compiled_harness(&sets().cal);
  auto t = [&](const Op& op) { return price(op, c, Impl::compiled).device_time_s; };
  auto layernorm = [](int64_t rows, int64_t cols) { return ops::layernorm("n", rows, cols, DType::bf16, false); };
  const double sms = c.card.sm_count, row_issue = 2048 / (c.inductor.layernorm_rate / sms);
  auto stream = [&](const Op& op) { return op.bytes_read / c.read_bandwidth + op.bytes_written / c.write_bandwidth; };
  // 1 -> 4 CTAs an SM (264 -> 1056 rows): 6 more rows' issue, and 3 of 4 CTAs' share of the stream
  // (at 264 rows the stream, 0.55 us, is over the one row's issue priced there).
  const Op one = layernorm(264, 2048), four = layernorm(1056, 2048);
  REQUIRE(stream(one) > row_issue);
  CHECK(t(four) - t(one) == test::approx(6 * row_issue + 0.75 * stream(four) + row_issue - stream(one)).epsilon(0.03));
  // Far past the first wave the later CTAs overlap their stream with the others' issue: 46 more CTAs
  // an SM cost their issue alone (24288 rows: 70 us of issue over a 50 us stream).
  CHECK(t(layernorm(264 * 92, 2048)) - t(layernorm(264 * 46, 2048)) == test::approx(46 * 2 * row_issue).epsilon(0.02));
  // h200-eltwise11 (1-8 CTAs an SM at 2048 columns, and layer_norm / softmax at 8192 x 14336 and
  // 6144 x 11008; no parameter fitted, measured to test the registers' residency, which the
  // launchers' n_regs ruled out for layer_norm): median / p90 |error| 21.4 / 26.7 % -> 4.5 / 8.4 %,
  // the largest the unexplained layer_norm 8192 x 14336 (+39 %).
  for (Impl p : {Impl::fused, Impl::compiled}) {
    CAPTURE(to_string(p));
    const ProfileSetStats all = row(sets().eltwise11, p, "all elementwise");
    CHECK(all.fitted_cases + all.held_out_cases == 18);
    CHECK(all.all_median_abs <= 0.046);  // 4.5 % (21.4 % before branch eltwise11)
    CHECK(all.all_p90_abs <= 0.085);     // 8.4 % (26.7 %)
  }
}

TEST_CASE("compiled: Inductor's layer_norm with no masks issues fewer instructions a row (branch eltwise12)") {
  // Rows a multiple of 4096 drop the row mask (Inductor's _has_constant_mask), whole 2048-column
  // blocks leave none in the walk: Nsight Compute counts 2707 + 1088 a block warp instructions a
  // row there against the masked kernel's 1.188 a padded element, which the compiled rate was
  // fitted on (inductor_masks.cpp; validation/results/h200-eltwise12/ncu.csv).
  const Roofs c = compiled_harness(&sets().cal);
  auto t = [&](const Op& op) { return price(op, c, Impl::compiled).device_time_s; };
  auto layernorm = [](int64_t rows, int64_t cols) { return ops::layernorm("n", rows, cols, DType::bf16, false); };
  const double sms = c.card.sm_count, row_issue = 14336 / (c.inductor.layernorm_rate / sms);
  // With the row mask only (6144 -> 8256 rows, not multiples of 4096) 16 more rows an SM at 14336
  // columns cost the rate's issue times the row-mask kernel's count, 3826 + 7 x 1404 a row over the
  // reference's 1.188 a padded element (branch eltwise13, validation/results/h200-eltwise13/ncu.csv;
  // 1 before that branch). 8192 rows (no mask, 0.61 of the reference) price under 8256 (0.80) by
  // far more than the stream of the 64 rows between them (0.2 of 8256's time before branch
  // eltwise13, when the row mask cost the whole reference; 0.106 now).
  const double row_mask_7 = (3826.0 + 7 * 1404) / (14336 * 14595.0 / 12288);
  CHECK(t(layernorm(6144 + 16 * 132, 14336)) - t(layernorm(6144, 14336)) == test::approx(16 * row_issue * row_mask_7).epsilon(0.02));
  CHECK(t(layernorm(8256, 14336)) - t(layernorm(8192, 14336)) > 0.1 * t(layernorm(8256, 14336)));
  // Held out (the counts were fitted on 4096 x 14336 and 8192 x 12288): 8192 x 14336 measured
  // 120.75 us (h200-production, +41 % before), 122.58 (h200-eltwise11), 120.78 (h200-eltwise12).
  CHECK(std::abs(t(layernorm(8192, 14336)) / 120.75e-6 - 1) <= 0.03);
  // Short rows keep the fixed part's weight: 4096 x 4096 (unmasked, 2 blocks) within 3 % of
  // h200-production's 27.45 us, as before.
  CHECK(std::abs(t(layernorm(4096, 4096)) / 27.45e-6 - 1) <= 0.03);
}

TEST_CASE("compiled: Inductor's layer_norm with the row mask only (branch eltwise13)") {
  // Rows not a multiple of 4096 keep the row mask; whole 2048-column blocks leave no column mask:
  // 3826 + 1404 a block warp instructions a row (fitted on the counts of 3, 5 and 7 blocks;
  // inductor_masks.cpp), up to 7 blocks. No time fitted: every time below is held out.
  const Roofs c = compiled_harness(&sets().cal);
  auto t = [&](const Op& op) { return price(op, c, Impl::compiled).device_time_s; };
  auto layernorm = [](int64_t rows, int64_t cols) { return ops::layernorm("n", rows, cols, DType::bf16, false); };
  // 6144 x 14336 measured 109.76 us (h200-eltwise12, +16.3 % before) and 111.28 (h200-eltwise13,
  // +14.7 %): -6.0 / -7.3 % now.
  CHECK(std::abs(t(layernorm(6144, 14336)) / 109.76e-6 - 1) <= 0.08);
  // 9 blocks (1536 x 18432) counts 22323 a row, the masked reference's 1.21 a padded element: the
  // rate's issue unweighted. (Until branch rowops17 this compared with 1536 x 18431, both masks, priced
  // at the reference too; both masks past 7 blocks count 26003 a row at 9 blocks, h200-rowops17, and
  // are weighted since.) 8 more rows an SM cost 8 rows' issue at the rate.
  const double row_issue_9 = 9 * 2048 / (c.inductor.layernorm_rate / c.card.sm_count);
  CHECK(t(layernorm(1536 + 8 * 132, 18432)) - t(layernorm(1536, 18432)) == test::approx(8 * row_issue_9).epsilon(0.02));
}

TEST_CASE("compiled: Inductor's layer_norm with both masks past 7 blocks (branch rowops17)") {
  // Both masks (rows not a multiple of 4096, columns not a multiple of 2048): Nsight Compute counts
  // 23555, 26003, 28451 warp instructions a row at 8, 9, 10 blocks (1536 x 16000 / 17000 / 18944,
  // validation/results/h200-rowops17/ncu.csv), 3971 + 2448 a block (fitted on 8 and 10 blocks; 9 held
  // out), over the reference's 1.188 a padded element; up to 7 blocks the reference's weight 1
  // (inductor_masks.cpp). No time fitted: every time below is held out.
  const Roofs c = compiled_harness(&sets().cal);
  auto t = [&](const Op& op) { return price(op, c, Impl::compiled).device_time_s; };
  auto layernorm = [](int64_t rows, int64_t cols) { return ops::layernorm("n", rows, cols, DType::bf16, false); };
  const double sms = c.card.sm_count, reference = 14595.0 / 12288;
  auto row_issue = [&](int blocks) { return blocks * 2048 / (c.inductor.layernorm_rate / sms); };
  // 8 more rows an SM at 17000 columns (9 blocks, issue-bound) cost 8 rows' issue at the count's weight.
  const double w9 = (3971.0 + 9 * 2448) / (9 * 2048 * reference);
  CHECK(w9 == test::approx(26003.0 / (9 * 2048 * reference)).epsilon(0.001));  // the held-out count
  CHECK(t(layernorm(1536 + 8 * 132, 17000)) - t(layernorm(1536, 17000)) == test::approx(8 * w9 * row_issue(9)).epsilon(0.02));
  // 7 blocks keep the reference (1536 x 14000 counted 16371 a row, 1.14 a padded element): 8 more rows
  // an SM cost the rate's issue alone.
  CHECK(t(layernorm(1536 + 8 * 132, 14000)) - t(layernorm(1536, 14000)) == test::approx(8 * row_issue(7)).epsilon(0.02));
  // Rows a multiple of 4096 with a column mask (no count measured) keep the reference's weight.
  CHECK(t(layernorm(8192 + 8 * 132, 18944)) - t(layernorm(8192, 18944)) > 0);
  // Held out: h200-eltwise4's 1536 x 18944 measured 61.42 us (h200-rowops17: 61.23), priced -23.6 %
  // before this branch.
  CHECK(std::abs(t(layernorm(1536, 18944)) / 61.42e-6 - 1) <= 0.15);
  // The walk (opt-in h200.calibration.walk4096.yaml) was fitted on both-mask rows of at most 4 blocks:
  // past 7 it walks the issue the count adds, (weight - 1) x the row's issue, where a column-mask-only
  // call (4096 rows, no row mask) keeps the fit's. The walk-free calibration's sweeps see no mask and
  // each call's issue is the same under both calibrations but for the walk's drain (branch walkstep,
  // inductor_walk.cpp: the SM's last row's issue exposed, at its count, from 6.5 blocks on, 32 rows an
  // SM here), so the walk's excess over the walk-free price differs by the mask's issue twice (the
  // walk's share and the drained row's) between 4095 rows (both masks) and 4096. (Before branch
  // walkstep: once, the default walk-free.)
  const Roofs w = compiled_harness(&sets().walk4096);
  const Roofs n0 = compiled_harness(&sets().nowalk);
  auto tw = [&](const Op& op) { return price(op, w, Impl::compiled).device_time_s; };
  auto tn = [&](const Op& op) { return price(op, n0, Impl::compiled).device_time_s; };
  const double w10 = (3971.0 + 10 * 2448) / (10 * 2048 * reference);
  const double excess_both = tw(layernorm(4095, 18944)) - tn(layernorm(4095, 18944));
  const double excess_column = tw(layernorm(4096, 18944)) - tn(layernorm(4096, 18944));
  CHECK(excess_both - excess_column == test::approx(2 * (w10 - 1) * row_issue(10)).epsilon(0.02));
}

TEST_CASE("compiled: Inductor's layer_norm with both masks at 1-3 blocks (branch inductorrow)") {
  // Nsight Compute counts 7191 and 8283 warp instructions a row at 2 and 3 padded blocks (1000 x 3072,
  // 4000 x 4608; validation/results/h200-rowops17/ncu.csv): 5007 + 1092 a block over the reference's
  // 1.188 a padded element, above 1 at 2-3 blocks; 4 blocks held out (3072 x 7168: 9747 counted, 9375 by
  // the line, the weight stays 1); one block (XBLOCK 2) past the SM's first resident wave (inductor_masks.cpp,
  // stream_cost.cpp). No time fitted: every time below is held out.
  const Roofs c = compiled_harness(&sets().cal);
  auto t = [&](const Op& op) { return price(op, c, Impl::compiled).device_time_s; };
  auto layernorm = [](int64_t rows, int64_t cols) { return ops::layernorm("n", rows, cols, DType::bf16, false); };
  const double sms = c.card.sm_count, reference = 14595.0 / 12288;
  auto row_issue = [&](int blocks) { return blocks * 2048 / (c.inductor.layernorm_rate / sms); };
  // 8 more rows an SM cost 8 rows' issue at the count's weight: 3 blocks (4000 x 4608's 8283 a row).
  const double w3 = (5007.0 + 3 * 1092) / (3 * 2048 * reference);
  CHECK(w3 == test::approx(8283.0 / (3 * 2048 * reference)).epsilon(0.001));
  CHECK(t(layernorm(4000 + 8 * 132, 4608)) - t(layernorm(4000, 4608)) == test::approx(8 * w3 * row_issue(3)).epsilon(0.02));
  // 4 blocks keep the reference (the held-out count is within 4 % of the line, both under it).
  CHECK(std::abs((5007.0 + 4 * 1092) / 9747.0 - 1) <= 0.04);
  CHECK(t(layernorm(3072 + 8 * 132, 7168)) - t(layernorm(3072, 7168)) == test::approx(8 * row_issue(4)).epsilon(0.02));
  // Rows a multiple of 4096 (no row mask) are another kernel, not counted: 4096 x 3072 keeps the
  // reference, 4095 x 3072 (both masks, the same 32 rows an SM) its 31 queued rows at the weight.
  const double w2 = (5007.0 + 2 * 1092) / (2 * 2048 * reference);
  CHECK(t(layernorm(4095, 3072)) - t(layernorm(4096, 3072)) == test::approx(31 * (w2 - 1) * row_issue(2)).epsilon(0.03));
  // One block (XBLOCK 2, two rows a CTA sharing the fixed part: 5007 / 2 + 1092 a row, h200-inductorrow's
  // counts 3651 / 3637 held out) past the SM's first resident wave of 4 CTAs: 8 more CTAs an SM cost 16
  // rows at that weight; 2 rows past the wave (10 rows an SM against 8) 2 rows.
  const double w1 = (5007.0 / 2 + 1092) / (2048 * reference);
  CHECK(std::abs((5007.0 / 2 + 1092) / 3651.0 - 1) <= 0.02);
  CHECK(t(layernorm(10000 + 16 * 132, 1536)) - t(layernorm(10000, 1536)) == test::approx(16 * w1 * row_issue(1)).epsilon(0.02));
  CHECK(t(layernorm(10 * 132, 1536)) - t(layernorm(8 * 132, 1536)) == test::approx(2 * w1 * row_issue(1)).epsilon(0.03));
  // Held out: h200-heldout17's 10000 x 1536 46.01 us (-28 % before).
  CHECK(std::abs(t(layernorm(10000, 1536)) / 46.01e-6 - 1) <= 0.05);
  // Held out (measured, never fitted on): h200-eltwise4's 1000 x 3072 10.65 us (priced -20 % before),
  // h200-heldout17's 6000 x 3584 49.85 us (-24 % before).
  CHECK(std::abs(t(layernorm(1000, 3072)) / 10.65e-6 - 1) <= 0.10);
  CHECK(std::abs(t(layernorm(6000, 3584)) / 49.85e-6 - 1) <= 0.12);
}

TEST_CASE("compiled: Inductor's softmax priced at its count a row (branch inductorrow)") {
  // Nsight Compute counts the 2048-column softmax kernel at 2086 + 3668 warp instructions a row a block
  // (least squares over six counts, validation/results/h200-inductorrow/ncu.csv), over the reference
  // 6144 x 11008's 24304 a row (1.978 a padded element) the compiled rate prices, above 1 only, past
  // 2048 columns (inductor_masks.cpp). No time fitted.
  const Roofs c = compiled_harness(&sets().cal);
  auto t = [&](const Op& op) { return price(op, c, Impl::compiled).device_time_s; };
  auto softmax = [](int64_t rows, int64_t cols) { return ops::softmax("s", rows, cols, DType::bf16, true); };
  const double sms = c.card.sm_count, reference = 24304.0 / 12288;
  auto row_issue = [&](int blocks) { return blocks * 2048 / (c.inductor.softmax_rate / sms); };
  auto w = [&](int blocks) { return (2086.0 + 3668.0 * blocks) / (blocks * 2048 * reference); };
  // The line holds the reference's own count within 1 % and the held-out 4096-column kernels within 8 %.
  CHECK(std::abs(w(6) - 1) <= 0.01);
  CHECK(std::abs((2086.0 + 3668.0 * 2) / 8688 - 1) <= 0.09);   // 4096 x 4096, R0_BLOCK 4096
  CHECK(std::abs((2086.0 + 3668.0 * 7) / 26720 - 1) <= 0.05);  // 8192 x 14336, R0_BLOCK 4096
  // 8 more rows an SM cost 8 rows' issue at the count's weight: 3 blocks (1.08); past 6 blocks the line
  // falls under the reference (0.98 at 7) and the weight stays 1 (no longer row counted with the
  // 2048-column kernel); one block (XBLOCK 2) at (2086 / 2 + 3668) a row past the first resident wave.
  CHECK(t(softmax(4000 + 8 * 132, 4608)) - t(softmax(4000, 4608)) == test::approx(8 * w(3) * row_issue(3)).epsilon(0.02));
  CHECK(t(softmax(3000 + 8 * 132, 14000)) - t(softmax(3000, 14000)) == test::approx(8 * row_issue(7)).epsilon(0.02));
  // Held out (measured, never fitted on): h200-heldout17's 6000 x 3584 65.44 us (-14.9 % before),
  // h200-inductorrow's 4000 x 4608 62.94 us (-10.7 % before).
  CHECK(std::abs(t(softmax(6000, 3584)) / 65.44e-6 - 1) <= 0.05);
  const double w1 = (2086.0 / 2 + 3668) / (2048 * reference);
  CHECK(t(softmax(10000 + 16 * 132, 1536)) - t(softmax(10000, 1536)) == test::approx(16 * w1 * row_issue(1)).epsilon(0.02));
  CHECK(std::abs(t(softmax(10000, 1536)) / 58.65e-6 - 1) <= 0.08);  // h200-heldout17, -17.8 % before
  CHECK(std::abs(t(softmax(4000, 4608)) / 62.94e-6 - 1) <= 0.07);
}

TEST_CASE("compiled: Inductor's one-warp persistent reductions (branch eltwise10)") {
  // triton_heuristics.py, _persistent_reduction_configs (ReductionHint.INNER): a row hint of 256-1024
  // over a row hint of at least 1024 gets one warp a CTA of min(1024 / hint, 8) rows; the row loaded
  // once, its later stages shuffles in the warp, each lane's 32-element chain under the stream
  // (stream_cost.cpp, inductor_one_warp.cpp). No parameter of its own.
  const Roofs c = compiled_harness(&sets().cal);
  auto t = [&](const Op& op) { return price(op, c, Impl::compiled).device_time_s; };
  auto layernorm = [](int64_t rows, int64_t cols) { return ops::layernorm("n", rows, cols, DType::bf16, false); };
  // 1024 rows is the first row hint that takes one warp: 1000 rows (hint 1024) load the row once,
  // 500 (hint 512) keep the multi-warp kernel's sweeps, so they price above 1000 rows.
  CHECK(t(layernorm(500, 768)) > t(layernorm(1000, 768)));
  // Held out (h200-eltwise4's odd cases, all of h200-eltwise5; measured before this branch): layer_norm
  // 2048 x 768 +21.7 -> +4.8 %, softmax 640 x 1000 -20.3 -> +2.9 %, 2048 x 768 -8.8 -> -6.5 %.
  for (Impl p : {Impl::fused, Impl::compiled}) {
    CAPTURE(to_string(p));
    const ProfileSetStats ln4 = row(sets().eltwise4, p, "layernorm", "torch.compile");
    CHECK(ln4.held_out_median_abs <= 0.029);  // 2.8 % (11.2 %)
    CHECK(ln4.held_out_p90_abs <= 0.181);     // 18.0 % (23.0 %)
    const ProfileSetStats sm4 = row(sets().eltwise4, p, "softmax_fused", "torch.compile");
    CHECK(sm4.held_out_p90_abs <= 0.070);  // 6.9 % (8.2 %)
    const ProfileSetStats all4 = row(sets().eltwise4, p, "all elementwise");
    CHECK(all4.held_out_median_abs <= 0.063);  // 6.2 % (6.8 %)
    CHECK(all4.held_out_p90_abs <= 0.190);     // 18.9 % (22.1 %)
    CHECK(row(sets().eltwise5, p, "softmax_fused", "torch.compile").all_median_abs <= 0.087);  // 8.6 % (11.1 %)
    CHECK(row(sets().eltwise5, p, "layernorm", "torch.compile").all_median_abs <= 0.066);      // 6.5 % (7.1 %)
  }
}

TEST_CASE("compiled: Inductor splits a row reduction whose rows cannot fill the card (branch eltwise8)") {
  // torch/_inductor/choices.py, reduction_split_factor: fewer than 2 x SMs rows of more than 8192 columns
  // are reduced in parts (h200-eltwise6/inductor_code.json, 16 x 16384: 2 splits; 3 kernels for
  // rms_norm / layer_norm, 5 for softmax), each kernel priced as what it is, no parameter of its own.
  const Roofs c = compiled_harness(&sets().cal);
  auto t = [&](const Op& op) { return price(op, c, Impl::compiled).device_time_s; };
  auto rms = [](int64_t rows, int64_t cols) { return ops::rmsnorm("n", rows, cols, DType::bf16, false); };
  auto softmax = [](int64_t rows, int64_t cols) { return ops::softmax("s", rows, cols, DType::bf16, true); };
  // Three (five) kernels: at least their floors and one round trip each.
  CHECK(t(rms(16, 16384)) > 3 * (c.kernel_floor_s + c.l2_pass_latency_s));
  CHECK(t(softmax(16, 16384)) > 5 * (c.kernel_floor_s + c.l2_pass_latency_s));
  // Softmax's split reduces twice (max, then the sum of exps): a partial and a combine more.
  CHECK(t(softmax(16, 16384)) > t(rms(16, 16384)) + 2 * c.kernel_floor_s);
  // Held out, measured (h200-eltwise6, odd cases): rms_norm 16 x 16384 6.42 us (+26 % as one kernel),
  // softmax 10.83 us (-29 %).
  CHECK(std::abs(t(rms(16, 16384)) / 6.42e-6 - 1) <= 0.16);
  CHECK(std::abs(t(softmax(16, 16384)) / 10.83e-6 - 1) <= 0.10);
}

TEST_CASE("eager: LlamaRMSNorm's kernels as ATen runs them") {
  const Roofs r = make_roofs(sets().card, &sets().cal, Impl::eager);
  auto kernel = [](const std::vector<Op>& ks, const std::string& suffix) {
    for (const Op& k : ks)
      if (k.name.size() >= suffix.size() && k.name.compare(k.name.size() - suffix.size(), suffix.size(), suffix) == 0)
        return k;
    FAIL("no kernel " << suffix);
    return Op{};
  };
  auto mean_s = [&](int64_t rows) {
    return price(kernel(eager_form(ops::rmsnorm("n", rows, 4096, DType::bf16, false), true), ".mean"), r, Impl::fused)
        .device_time_s;
  };
  // reduce_kernel<512, 1>: one row gets 512 threads (4096 / (512 x 16) = 1 round of loads), 32
  // rows 16 per CTA and 32 threads each (4096 / (32 x 16) = 8 rounds): 7 more DRAM round trips.
  CHECK(mean_s(32) - mean_s(1) == test::approx(7 * r.pass_latency_s));
  // .to(fp32) is the unrolled LoadWithCast kernel: at 8192 x 4096 its cast rate, not the stream.
  const Op up = kernel(eager_form(ops::rmsnorm("n", 8192, 4096, DType::bf16, false), true), ".to_fp32");
  CHECK(price(up, r, Impl::fused).device_time_s == test::approx(r.aten.strided_floor_s + 8192.0 * 4096 / r.aten.cast_rate));
  // The rotary's add: generic beyond one token (the transposed views), vectorized at one.
  auto add = [&](int64_t tokens) { return kernel(eager_form(ops::rotary("r", tokens, 32, 8, 128, DType::bf16), false), "q.add"); };
  CHECK(add(2).strided);
  CHECK_FALSE(add(1).strided);
}

TEST_CASE("eager: a row's chain grows with its columns, rows beyond the resident CTAs run in waves") {
  const Roofs r = make_roofs(sets().card, &sets().cal, Impl::eager);
  auto t = [&](int64_t rows, int64_t cols) { return price(ops::rmsnorm("n", rows, cols, DType::bf16, false), r, Impl::fused).device_time_s; };
  CHECK(t(16, 8192) > 1.5 * t(16, 4096));  // one wave: the chain, not the bytes
  // Still one wave of 16 CTAs an SM at 1000 rows: the issue and the stream join the chain only in part
  // (branch normissue; measured: h200-production 1024 x 4096 8.64 us against 16 x 4096 7.73, +12 %, its
  // repeat +20 %; h200-normwaves 1056 -> 1100 rows +0.1 us).
  CHECK(t(1000, 4096) > t(16, 4096));
  CHECK(t(1000, 4096) < 1.2 * t(16, 4096));
  CHECK(t(1100, 4096) < 1.05 * t(1056, 4096));
  CHECK(t(2 * 2112 + 1, 4096) > 2.5 * (t(16, 4096) - r.aten.norm_floor_s));
  // The card's own roofs (the validation backend's kernel) are not PyTorch's.
  const Roofs card = make_roofs(sets().card, &sets().cal);
  CHECK(price(ops::rmsnorm("n", 16, 8192, DType::bf16, false), card, Impl::fused).device_time_s < t(16, 8192) / 2);
}

TEST_CASE("compiled: attention through cuDNN's kernels and Inductor's kernels, held out") {
  // generate() prefills uncompiled into the static cache, where SDPA runs cuDNN's sm90 kernel.
  const ProfileSetStats p = row(sets().production, Impl::compiled, "attention_prefill_fused", "torch.sdpa.cudnn");
  CAPTURE(p.held_out_median_abs);
  CAPTURE(p.held_out_p90_abs);
  CHECK(p.held_out_cases == 15);
  CHECK(p.held_out_median_abs <= 0.06);  // 5.4 %
  CHECK(p.held_out_p90_abs <= 0.13);     // 12.8 %
  // The memory-efficient kernel stands for no profile.
  for (const ProfileSetStats& s : sets().production) CHECK(s.implementation != "torch.sdpa.efficient");
  // `op --impl compiled|eager` prices decode attention as the profile's step does: cuDNN's kernel,
  // after repeat_kv's two copies under compiled (GQA), with the GQA group in the tile under eager.
  const Op decode = ops::attention_decode("a", 16, 32, 8, 4096, 128, DType::bf16, DType::bf16);
  const std::vector<Op> compiled = compiled_form(decode);
  REQUIRE(compiled.size() == 2);
  CHECK(compiled[1].kernel == KernelId::attention_decode_cudnn);
  CHECK(compiled[1].attention.kv_heads == 32);
  const std::vector<Op> eager = eager_form(decode, true);
  REQUIRE(eager.size() == 1);
  CHECK(eager[0].kernel == KernelId::attention_decode_cudnn);
  CHECK(eager[0].attention.kv_heads == 8);
  const ProfileSetStats c = row(sets().production, Impl::compiled, "all attention");
  const ProfileSetStats d = row(sets().production_datasheet, Impl::compiled, "all attention");
  CHECK(c.held_out_median_abs <= d.held_out_median_abs);
  CHECK(c.held_out_p90_abs <= d.held_out_p90_abs);
  const ProfileSetStats e = row(sets().production, Impl::compiled, "all elementwise");
  CAPTURE(e.held_out_median_abs);
  CHECK(e.held_out_median_abs <= 0.06);
  CHECK(e.held_out_p90_abs <= 0.20);
  // Inductor's rotary is one kernel per tensor when q and k differ in shape (GQA); one for both at
  // heads == kv heads (tests/test_compiled_rotary.cpp).
  CHECK(compiled_form(ops::rotary("r", 16, 32, 8, 128, DType::bf16)).size() == 2);
}

TEST_CASE("fused: the serving engine's kernels, held out") {
  const ProfileSetStats e = row(sets().production, Impl::fused, "all elementwise");
  CHECK(e.held_out_median_abs <= 0.06);
  CHECK(e.held_out_p90_abs <= 0.191);  // 19.0 % (27.2 % while Inductor's two rotary kernels were priced as one)
  const ProfileSetStats g = row(sets().production, Impl::fused, "gemm", "torch.linear");
  CAPTURE(g.held_out_median_abs);
  CAPTURE(g.held_out_p90_abs);
  CHECK(g.held_out_median_abs <= 0.06);
  CHECK(g.held_out_p90_abs <= 0.21);
}

TEST_CASE("eager: Hugging Face decode and prefill steps (hf.json), GPU kernel time held out <= 10 % median") {
  // What compare_hf.py prints: each odd-index step of hf.json against evaluate() with --impl eager.
  YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-production/hf.json");
  const Calibration dragged = test::dragged_wall_calibration();
  std::vector<double> kernel, wall;
  int index = -1;
  for (const auto& s : root["steps"]) {
    ++index;
    if (index % 2 == 0 || !s["ok"].as<bool>()) continue;  // even steps fit host_per_kernel and the cat rate
    Workload w;
    w.phase = s["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
    w.batch = s["batch"].as<int64_t>();
    // hf_decode.py's decode step attends ctx + 1 keys (a cache of ctx, the new token): perfmodel's
    // --ctx counts the new one (branch gemm10); a prefill is ctx tokens.
    w.ctx = s["ctx"].as<int64_t>() + (w.phase == Phase::decode ? 1 : 0);
    w.impl = Impl::eager;
    // This set's hf_decode.py cropped the cache back between steps (no cache_layout recorded): the strided cat.
    w.eager_cache_cropped = !(s["cache_layout"] && s["cache_layout"].as<std::string>() == "contiguous");
    const Evaluation e = evaluate(test::catalogue().model(s["model"].as<std::string>()), w, sets().card, &sets().cal);
    kernel.push_back(std::fabs(e.cost.device_time_s / s["kernel_s"].as<double>() - 1));
    // Walls timed after profiler sessions of the process: under the rate fitted on such walls (hf_wall_errors.hpp).
    const Evaluation d = evaluate(test::catalogue().model(s["model"].as<std::string>()), w, sets().card, &dragged);
    wall.push_back(std::fabs(d.cost.time_s / s["wall_s"].as<double>() - 1));
  }
  REQUIRE(kernel.size() == 10);
  CAPTURE(quantile(kernel, 0.5));
  CAPTURE(quantile(kernel, 0.9));
  CAPTURE(quantile(wall, 0.5));
  CHECK(quantile(kernel, 0.5) <= 0.10);
  CHECK(quantile(kernel, 0.9) <= 0.12);
  CHECK(quantile(wall, 0.5) <= 0.10);
  CHECK(quantile(wall, 0.9) <= 0.20);
}

TEST_CASE("eager: Hugging Face steps over the issue's grid (h200-hf-grid, nothing fitted): kernel time <= 10 % median") {
  // hf_grid.py: Llama-3-8B (never measured before), Qwen2.5-7B and Llama-2-7B, batch 1-128,
  // context 256-8192, the DynamicCache contiguous as generate() leaves it. Steps past a model's
  // positions (Llama-2-7B at 8192) are refused by perfmodel and skipped.
  YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-hf-grid/hf.json");
  const Calibration dragged = test::dragged_wall_calibration();
  std::vector<double> kernel, wall, attention;
  int refused = 0;
  for (const auto& s : root["steps"]) {
    REQUIRE(s["ok"].as<bool>());
    Workload w;
    w.phase = s["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
    w.batch = s["batch"].as<int64_t>();
    w.ctx = s["ctx"].as<int64_t>();
    w.impl = Impl::eager;
    w.eager_cache_cropped = false;
    Model m = test::catalogue().model(s["model"].as<std::string>());
    if (w.ctx > m.max_positions) {
      ++refused;
      continue;
    }
    // The decode step attends ctx + 1 keys, as above; hf_grid.py ran Llama-2-7B's ctx-4096 step so.
    if (w.phase == Phase::decode) m.max_positions = std::max(m.max_positions, ++w.ctx);
    const Evaluation e = evaluate(m, w, sets().card, &sets().cal);
    kernel.push_back(std::fabs(e.cost.device_time_s / s["kernel_s"].as<double>() - 1));
    wall.push_back(std::fabs(evaluate(m, w, sets().card, &dragged).cost.time_s / s["wall_s"].as<double>() - 1));  // dragged walls
    double att = 0;
    for (size_t i = 0; i < e.step.ops.size(); ++i)
      if (e.step.ops[i].kind == OpKind::attention) att += e.cost.ops[i].device_time_s * static_cast<double>(e.step.ops[i].count);
    const double measured_att = s["kernel_by_category_s"]["attention"].as<double>();
    if (measured_att > 1e-3) attention.push_back(std::fabs(att / measured_att - 1));
  }
  CHECK(refused == 2);
  REQUIRE(kernel.size() == 21);
  CAPTURE(quantile(kernel, 0.5));
  CAPTURE(quantile(kernel, 0.9));
  CAPTURE(quantile(wall, 0.5));
  CAPTURE(quantile(wall, 0.9));
  CAPTURE(quantile(attention, 0.5));
  CAPTURE(quantile(attention, 0.9));
  CHECK(quantile(kernel, 0.5) <= 0.10);
  CHECK(quantile(kernel, 0.9) <= 0.20);
  CHECK(quantile(wall, 0.5) <= 0.20);
  // The attention kernels (cuDNN's, as transformers' SDPA call runs them) where they take over 1 ms.
  REQUIRE(attention.size() >= 10);
  CHECK(quantile(attention, 0.5) <= 0.15);
}

TEST_CASE("a graph profile's small kernels priced alone: floor less the harness idle, tables like with like") {
  Calibration alone = sets().cal, twice = sets().cal;
  for (ProfileCalibration& p : alone.profiles)
    if (p.name == "fused") p.harness_idle_s = 0.46e-6;
  for (ProfileCalibration& p : twice.profiles)
    if (p.name == "fused") p.harness_idle_s = 0;
  const Roofs with = make_roofs(sets().card, &alone, Impl::fused), without = make_roofs(sets().card, &twice, Impl::fused);
  REQUIRE(with.harness_idle_s == test::approx(0.46e-6));
  REQUIRE(with.kernel_floor_s > with.harness_idle_s);
  // A one-kernel norm and a chain of kernels (unfused GELU, 8): the idle comes off each launch.
  const Op norm = ops::rmsnorm("n", 1, 4096, DType::bf16, true);
  CHECK(price(norm, without, Impl::fused).time_s - price(norm, with, Impl::fused).time_s == test::approx(0.46e-6).epsilon(1e-6));
  const Op gelu = ops::gelu("g", 8, 4096, DType::bf16, /*fused=*/false);
  REQUIRE(gelu.launches == 8);
  CHECK(price(gelu, without, Impl::fused).time_s - price(gelu, with, Impl::fused).time_s == test::approx(8 * 0.46e-6).epsilon(1e-6));
  // cuDNN's decode: the SDPA kernel, and at batch 1 over 2088 keys the lean_reduction kernel too.
  const Op split = ops::attention_decode_cudnn("a", 1, 32, 32, 2088, 128, DType::bf16, DType::bf16);
  CHECK(price(split, without, Impl::fused).time_s - price(split, with, Impl::fused).time_s == test::approx(0.92e-6).epsilon(1e-6));
  // The single-call tables compare price + the idle after each kernel with the harness time: the
  // same figures as the floors as fitted.
  Measurements prod;
  load_measurements(test::root() + "/validation/results/h200-production/kernels.json", prod);
  const std::vector<ProfileSetStats> rows = summarize_profiles(evaluate_profiles(prod, sets().card, &alone));
  const std::vector<ProfileSetStats> rows_twice = summarize_profiles(evaluate_profiles(prod, sets().card, &twice));
  const ProfileSetStats a = row(rows, Impl::fused, "all elementwise"), b = row(rows_twice, Impl::fused, "all elementwise");
  CHECK(a.all_median_abs == test::approx(b.all_median_abs));
  CHECK(a.all_p90_abs == test::approx(b.all_p90_abs));
  // The calibration file carries the key and writes it back.
  const std::string text = to_yaml(alone);
  CHECK(text.find("harness_idle: 0.46 us") != std::string::npos);
}

TEST_CASE("h200-eltwise14: the walk past two blocks (opt-in), and a held-out set at 5120-12288 columns") {
  // validation/results/h200-eltwise14/h200.calibration.walk4096.yaml = the default with branch
  // eltwise6's walk (looped_row, layernorm_block, softmax_block) priced past 4096 columns only
  // (walk_from_cols 4097): up to 4096 columns the default's price, unchanged.
  // d: the walk-free calibration (the default before branch walkstep made the walk the default).
  const Roofs d = compiled_harness(&sets().nowalk);
  const Roofs w = compiled_harness(&sets().walk4096);
  REQUIRE(w.inductor.walk_from_cols == 4097);
  auto t = [](const Op& op, const Roofs& r) { return price(op, r, Impl::compiled).device_time_s; };
  auto softmax = [](int64_t rows, int64_t cols) { return ops::softmax("s", rows, cols, DType::bf16, true); };
  CHECK(t(softmax(64, 4096), w) == test::approx(t(softmax(64, 4096), d)));
  CHECK(t(softmax(64, 2560), w) == test::approx(t(softmax(64, 2560), d)));
  // Past it one row an SM walks its blocks one after another: a block more adds softmax_block (and
  // its bytes' stream, 0.07 us; 33 rows of more than 8192 columns would split, inductor_splits).
  CHECK(t(softmax(33, 8192), w) - t(softmax(33, 6144), w) == test::approx(w.inductor.softmax_block_s).epsilon(0.12));
  // Branch eltdef: the walk's block times were fitted on row-masked calls (at most 132 rows); a
  // layer_norm whose rows are a multiple of 4096 drops the row mask and its walk is shorter by the
  // issue the mask adds: (3826 + 7 x 1404) - (2707 + 7 x 1088) warp instructions a row at 7 blocks
  // over the masked reference's 1.188 a padded element (inductor_masks.cpp), at the compiled rate.
  // The default's sweeps do not see the masks and each call's issue / stream is the same under
  // both calibrations, so the opt-in's excess over the default differs by that saving alone
  // between 8192 rows (no row mask) and 8191 (a row mask).
  auto layernorm = [](int64_t rows, int64_t cols) { return ops::layernorm("n", rows, cols, DType::bf16, false); };
  const double share = ((3826.0 + 7 * 1404) - (2707.0 + 7 * 1088)) / (14336 * 14595.0 / 12288);
  const double saving = share * 14336 / (w.inductor.layernorm_rate / w.card.sm_count);
  const double excess_unmasked = t(layernorm(8192, 14336), w) - t(layernorm(8192, 14336), d);
  const double excess_masked = t(layernorm(8191, 14336), w) - t(layernorm(8191, 14336), d);
  // Branch walkstep: the walk also drains the SM's last row (its issue exposed, inductor_walk.cpp). The
  // masked 8191 rows are issue-bound (13654 warp instructions a row) and show it at the row's count;
  // the unmasked 8192 (10323 a row) stream and hide it under the DRAM stream.
  const double drained = (3826.0 + 7 * 1404) / (14336 * 14595.0 / 12288) * 14336 / (w.inductor.layernorm_rate / w.card.sm_count);
  CHECK(excess_masked - excess_unmasked == test::approx(saving + drained).epsilon(0.01));
  // The default's held-out guard (8192 x 14336 within 3 % of h200-production's 120.75 us, branch
  // eltwise12) holds under the opt-in too: +3.3 % before branch eltdef, +2.9 % now.
  CHECK(std::abs(t(layernorm(8192, 14336), w) / 120.75e-6 - 1) <= 0.03);
  // validation/results/h200-eltwise14/kernels.json: 30 torch.compile calls measured after the opt-in's
  // mechanism was chosen, none fitted on (all held out); layer_norm / softmax / rms_norm at 10 shapes.
  for (Impl p : {Impl::fused, Impl::compiled}) {
    CAPTURE(to_string(p));
    const ProfileSetStats def = row(sets().eltwise14, p, "all elementwise");
    const ProfileSetStats opt = row(sets().w4_eltwise14, p, "all elementwise");
    CAPTURE(def.all_median_abs);
    CAPTURE(def.all_p90_abs);
    CAPTURE(opt.all_median_abs);
    CAPTURE(opt.all_p90_abs);
    CHECK(def.fitted_cases + def.held_out_cases == 30);
    CHECK(opt.all_median_abs <= 0.095);  // 9.4 % (default 14.2 %)
    CHECK(opt.all_p90_abs <= 0.212);     // 21.1 % (24.6 %): rms_norm, which has no walk, 50 x 7168 +39 %, 1500 x 10240 -24 %
    CHECK(row(sets().w4_eltwise14, p, "softmax_fused", "torch.compile").all_median_abs <= 0.098);  // 9.7 % (21.7 %)
    // The compiled tables' sets with the opt-in, held out as profile_tables.py reads them:
    CHECK(row(sets().w4_eltwise5, p, "all elementwise").all_median_abs <= 0.059);  // 5.8 % (default 8.2 %)
    CHECK(row(sets().w4_eltwise5, p, "all elementwise").all_p90_abs <= 0.184);     // 18.3 % (default 23.6 %)
    CHECK(row(sets().w4_eltwise6, p, "all elementwise").held_out_median_abs <= 0.048);  // 4.7 % (default 7.9 %)
    CHECK(row(sets().w4_eltwise6, p, "all elementwise").held_out_p90_abs <= 0.175);     // 17.4 % (default 19.7 %)
    CHECK(row(sets().w4_eltwise4, p, "all elementwise").held_out_p90_abs <= 0.168);     // 16.7 % (default 18.9 %)
    CHECK(row(sets().w4_eltwise3, p, "all elementwise").all_p90_abs <= 0.162);          // 16.1 % (default 17.4 %)
    CHECK(row(sets().w4_production, p, "all elementwise").held_out_p90_abs <= 0.053);   // 5.2 % (default 5.2 %)
  }
}

TEST_CASE("compiled: rms_norm's resident-row groups queue at many rows an SM (branch inductorsmall)") {
  // lib/src/cost/inductor_rms_queue.cpp: 4 resident 16-warp CTAs an SM, two rows each up to 2048 columns,
  // each group of resident rows a chain of round trips (rmsnorm_group at one loaded block, + a block's).
  // The default since validation/results/h200-rms2049 measured the shape the opt-in failed (see "compiled:
  // Inductor's row reductions as generated"); the keys are the same as in
  // validation/results/h200-inductorsmall/h200.calibration.rmsqueue.yaml.
  const Roofs c = compiled_harness(&sets().cal);
  REQUIRE(c.inductor.rmsnorm_group_s > 0);
  REQUIRE(c.inductor.rmsnorm_rate == 0);  // still no issue rate: the queue, not the padded walk
  auto t = [&](int64_t rows, int64_t cols) {
    return price(ops::rmsnorm("n", rows, cols, DType::bf16, false), c, Impl::compiled).device_time_s;
  };
  const double sms = c.card.sm_count, group = c.inductor.rmsnorm_group_s;
  // Where the queue sets the time (8 rows a group at 1280 columns, far under the bytes' time), 8 more
  // rows an SM add one group's chain, whatever the columns of one block.
  const double one_more = t(8000 + 8 * 132, 1280) - t(8000, 1280);
  CHECK(one_more == test::approx(group).epsilon(0.05));
  CHECK(t(8000 + 8 * 132, 1024 + 256) - t(8000, 1024 + 256) == test::approx(one_more).epsilon(0.01));
  // Past 4096 columns one row a CTA and a block's chain more a further 2048-column block: 4000 x 4608
  // (three blocks) is the queue's, 4 more rows an SM add group + 2 blocks.
  CHECK(t(4000 + 4 * 132, 4608) - t(4000, 4608) ==
        test::approx(group + 2 * c.inductor.rmsnorm_group_block_s).epsilon(0.05));
  // One group an SM or less (8 rows of 2048) is not queued.
  CHECK(t(8 * 132, 2048) - t(4 * 132, 2048) < 0.5 * group);
  (void)sms;
  // Against h200-inductorsmall's times (the fit set; every committed set's rms_norm held out): the
  // queue-bound calls within 8 %, where the stream alone priced 8000 x 1280 -20 %, 6000 x 3072 -21 %,
  // 4000 x 4608 -14 %.
  // validation/results/h200-inductorsmall/kernels.json's measured medians (us).
  CHECK(std::abs(t(8000, 1280) / 16.13e-6 - 1) < 0.08);
  CHECK(std::abs(t(6000, 3072) / 26.78e-6 - 1) < 0.08);
  CHECK(std::abs(t(4000, 4608) / 25.31e-6 - 1) < 0.08);
}

TEST_CASE("walkdefault: the walk past 4096 columns on main's calibration (opt-in), and the one guard it fails") {
  // validation/results/h200-walkdefault/h200.calibration.walk.yaml = hardware/h200.calibration.yaml plus
  // the four keys of branch eltwise14's walk (looped_row, layernorm_block, softmax_block, walk_from_cols
  // 4097): the file the default would be with the walk. Up to 4096 columns the default's price.
  static const Calibration wd =
      load_calibration(test::root() + "/validation/results/h200-walkdefault/h200.calibration.walk.yaml");
  // Branch walkstep made these keys the default (with the drain, inductor_walk.cpp): d is the walk-free
  // calibration the default was before it.
  const Roofs d = compiled_harness(&sets().nowalk);
  const Roofs w = compiled_harness(&wd);
  REQUIRE(w.inductor.walk_from_cols == 4097);
  REQUIRE(w.inductor.looped_row_s == test::approx(1.9e-6));
  auto t = [](const Op& op, const Roofs& r) { return price(op, r, Impl::compiled).device_time_s; };
  auto softmax = [](int64_t rows, int64_t cols) { return ops::softmax("s", rows, cols, DType::bf16, true); };
  auto layernorm = [](int64_t rows, int64_t cols) { return ops::layernorm("n", rows, cols, DType::bf16, false); };
  CHECK(t(softmax(64, 4096), w) == test::approx(t(softmax(64, 4096), d)));
  CHECK(t(layernorm(2048, 768), w) == test::approx(t(layernorm(2048, 768), d)));
  // Past 4096 columns at few rows an SM the walk, not the sweeps: h200-eltwise5's 8 x 8192 softmax
  // (5.40 us, held out of the walk's fit) -26.9 % default, within 3 % with the walk.
  CHECK(std::abs(t(softmax(8, 8192), w) / 5.40e-6 - 1) <= 0.03);
  // h200-eltwise4's held-out compiled layer_norm under the opt-in: 64 x 2560 +0.8, 3072 x 7168 +1.4,
  // 2048 x 768 +4.8, 1536 x 18944 -6.6 %: median 3.09 %, over the 2.9 % the default's guard holds
  // ("one-warp persistent reductions" above): reported, not pinned (a test of the opt-in's figure would
  // hard-code an output); when it is <= 2.9 % the walk's keys can go into the default.
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-eltwise4/kernels.json", m);
  const std::vector<ProfileSetStats> e4 = summarize_profiles(evaluate_profiles(m, sets().card, &wd));
  const ProfileSetStats ln4 = row(e4, Impl::compiled, "layernorm", "torch.compile");
  CHECK(ln4.held_out_cases == 4);
  MESSAGE("walk opt-in, h200-eltwise4 held-out compiled layer_norm median " << 100 * ln4.held_out_median_abs << " %");
  CHECK(ln4.held_out_p90_abs <= 0.181);  // the default's guard on the p90 holds: 6.6 % (default 11.9 %)
  CHECK(row(e4, Impl::compiled, "all elementwise").held_out_p90_abs <= 0.190);
  // validation/results/h200-walkdefault/kernels.json: 16 torch.compile calls measured after this was
  // written (layer_norm 3072 / 1536 rows, softmax 3072 rows, 4-10 whole 2048-column blocks), none fitted
  // on: the walk 4.0 / 7.4 % (median / p90, all 16; accuracy.cpp's p90), the default's sweeps 5.4 / 10.9 %.
  Measurements n;
  load_measurements(test::root() + "/validation/results/h200-walkdefault/kernels.json", n);
  const std::vector<ProfileSetStats> nw = summarize_profiles(evaluate_profiles(n, sets().card, &wd));
  const std::vector<ProfileSetStats> nd = summarize_profiles(evaluate_profiles(n, sets().card, &sets().nowalk));
  const ProfileSetStats aw = row(nw, Impl::compiled, "all elementwise"), ad = row(nd, Impl::compiled, "all elementwise");
  CAPTURE(aw.all_median_abs);
  CAPTURE(aw.all_p90_abs);
  CAPTURE(ad.all_median_abs);
  CAPTURE(ad.all_p90_abs);
  CHECK(aw.fitted_cases + aw.held_out_cases == 16);
  CHECK(aw.all_median_abs <= 0.041);
  CHECK(aw.all_p90_abs <= 0.075);
  CHECK(ad.all_median_abs > aw.all_median_abs);
  CHECK(ad.all_p90_abs > aw.all_p90_abs);
}

TEST_CASE("walkstep: the walk drains the SM's last layer_norm row past its first round (the default)") {
  // validation/results/h200-walkstep (CTA timelines of Inductor's looped layer_norm): the 4 resident CTAs
  // of an SM start together and end staggered; after the first round each slot runs a row every 4 rows'
  // issue, and the stagger drains at the end, the SM's last row's issue exposed: a share rising from none
  // at 4.2 blocks to all from 6.5 (inductor_walk.cpp, fitted on that set only). The default walks past
  // 4096 columns now.
  const Roofs c = compiled_harness(&sets().cal);
  REQUIRE(c.inductor.walk_from_cols == 4097);
  auto t = [&](const Op& op) { return price(op, c, Impl::compiled).device_time_s; };
  auto layernorm = [](int64_t rows, int64_t cols) { return ops::layernorm("n", rows, cols, DType::bf16, false); };
  auto softmax = [](int64_t rows, int64_t cols) { return ops::softmax("s", rows, cols, DType::bf16, true); };
  const double sms = c.card.sm_count;
  auto row_issue = [&](int blocks) { return blocks * 2048 / (c.inductor.layernorm_rate / sms); };
  // 8 blocks, row mask only: the row-mask line's count (3826 + 8 x 1404 = 15058 warp instructions a row;
  // Nsight Compute counted 14387 at 1536 x 16384, h200-walkstep/ncu_table.txt, not the reference's
  // 19460: the count jumps between 8 and 9 blocks, inductor_masks.cpp); 6 rows an SM are issue-bound.
  const double w8 = (3826.0 + 8 * 1404) / (8 * 2048 * 14595.0 / 12288);
  CHECK(std::abs((3826.0 + 8 * 1404) / 14387 - 1) <= 0.05);
  CHECK(t(layernorm(7 * 132, 16384)) - t(layernorm(6 * 132, 16384)) == test::approx(w8 * row_issue(8)).epsilon(0.03));
  // 8 blocks with both masks (16383 columns: 3971 + 8 x 2448 a row, issue-bound from 4 rows an SM): the
  // 5th row an SM (a second round) costs its issue and the drained row's; the 6th its issue alone.
  const double wb8 = (3971.0 + 8 * 2448) / (8 * 2048 * 14595.0 / 12288);
  const double fifth = t(layernorm(5 * 132, 16383)) - t(layernorm(4 * 132, 16383));
  const double sixth = t(layernorm(6 * 132, 16383)) - t(layernorm(5 * 132, 16383));
  CHECK(sixth == test::approx(wb8 * row_issue(8)).epsilon(0.03));
  CHECK(fifth == test::approx(2 * wb8 * row_issue(8)).epsilon(0.03));
  // 3 blocks (6144 columns, walked: past 4096): no drain below 4.2 blocks.
  const double w3 = t(layernorm(5 * 132, 6144)) - t(layernorm(4 * 132, 6144));
  CHECK(w3 == test::approx(t(layernorm(6 * 132, 6144)) - t(layernorm(5 * 132, 6144))).epsilon(0.03));
  // 6 blocks with both masks (12287 columns: the reference's weight up to 7 blocks, issue-bound from 4
  // rows an SM) drain (6 - 4.2) / 2.3 of the row.
  const double fifth6 = t(layernorm(5 * 132, 12287)) - t(layernorm(4 * 132, 12287));
  const double sixth6 = t(layernorm(6 * 132, 12287)) - t(layernorm(5 * 132, 12287));
  CHECK(sixth6 == test::approx(row_issue(6)).epsilon(0.03));
  CHECK(fifth6 - sixth6 == test::approx((6 - 4.2) / 2.3 * row_issue(6)).epsilon(0.03));
  // Softmax was not timed so: no drain.
  CHECK(t(softmax(5 * 132, 16384)) - t(softmax(4 * 132, 16384)) ==
        test::approx(t(softmax(6 * 132, 16384)) - t(softmax(5 * 132, 16384))).epsilon(0.03));
  // Held out (measured, never fitted on): h200-eltwise4's 1536 x 18944 61.42 us (-6.6 % under the walk
  // without the drain) and h200-production's stream-bound 8192 x 14336 120.75 us (its guard, 3 %).
  CHECK(std::abs(t(layernorm(1536, 18944)) / 61.42e-6 - 1) <= 0.03);
  CHECK(std::abs(t(layernorm(8192, 14336)) / 120.75e-6 - 1) <= 0.03);
  // h200-eltwise4's held-out compiled layer_norm median, the guard that held the walk back (3.09 %
  // without the drain), is within the default's 2.9 % ("one-warp persistent reductions" above): 1.10 %.
  CHECK(row(sets().eltwise4, Impl::compiled, "layernorm", "torch.compile").held_out_median_abs <= 0.029);
}
