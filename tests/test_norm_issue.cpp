// Branch normissue (issue 10): ATen's vectorized_layer_norm_kernel (eager F.rms_norm / F.layer_norm) in
// waves of 16 CTAs an SM, its chain, the SM's issue (Nsight's instructions a row at norm_issue_ipc) and the
// stream with the normalize's re-read joined as a p-norm (lib/src/cost/aten_kernel_cost.cpp,
// norm_overlap_kernel; validation/results/h200-normissue). fit_normissue.py fitted the one exponent on
// h200-normwaves' first lease and h200-production's even calls; everything here is held out.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/profile_calibration.hpp"
#include "perfmodel/stats.hpp"
#include "eager_norm_support.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const Calibration& main_cal() { return test::card_calibration(); }
const Calibration& aten_form() { return test::aten_form_calibration(); }

std::vector<double> norm_errors(const std::string& suite, const Calibration& cal) { return test::eager_norm_errors(suite, cal); }

OpCost eager_norm(const Calibration& cal, int64_t rows, int64_t cols, bool rms = true) {
  const Roofs r = make_roofs(test::catalogue().card("h200"), &cal, Impl::eager);
  const Op op = rms ? ops::rmsnorm("n", rows, cols, DType::bf16, false) : ops::layernorm("n", rows, cols, DType::bf16, false);
  return price(op, r, Impl::eager);
}

}  // namespace

TEST_CASE("the card's calibration carries the law; its edges are the kernel's") {
  const ProfileCalibration* eager = find_profile(main_cal().profiles, "eager");
  REQUIRE(eager != nullptr);
  CHECK(eager->aten.norm_ctas_per_sm == 16);
  CHECK(eager->aten.norm_issue_ipc == doctest::Approx(3.5));  // Nsight: layer_norm at 33792 rows, 3.33-3.54
  CHECK(eager->aten.norm_overlap > 1);
  auto t = [](int64_t rows) { return eager_norm(main_cal(), rows, 2560).device_time_s; };
  // Measured (h200-normwaves, rms_norm x 2560): 1056 -> 1100 rows +0.1 us, 2112 -> 2200 +2.3 us.
  CHECK(t(1100) / t(1056) - 1 < 0.05);
  CHECK(t(2200) / t(2112) - 1 > 0.15);
  CHECK(eager_norm(aten_form(), 1100, 2560).device_time_s / eager_norm(aten_form(), 1056, 2560).device_time_s - 1 > 0.4);
}

TEST_CASE("the largest limit names the bound") {
  // 8192 x 14336 re-reads its rows from DRAM (h200-production: 196.5 us, 705 MB): the stream.
  CHECK(eager_norm(main_cal(), 8192, 14336).bound == Bound::memory);
  // layer_norm over 30000 narrow rows: ~1750 instructions a row, the issue (h200-normissue 30000 x 640).
  CHECK(eager_norm(main_cal(), 30000, 640, false).bound == Bound::compute);
  // One wave of short rows: the chain and the floor.
  const OpCost one = eager_norm(main_cal(), 16, 4096);
  CHECK(one.compute_time_s > one.memory_time_s);
}

TEST_CASE("held out: the grid measured before the law, the other leases and the hidden sets") {
  struct Guard {
    const char* suite;
    double median, p90;  // as measured at landing, a little over
  };
  // fit_normissue.py's table (validation/results/h200-normissue/fit_normissue.txt): 3.7 / 9.6, 3.4 / 8.5, 3.8 / 10.0 %
  // (interpolated quantiles); fit_aten.py's form 11.9 / 32.1, 16.3 / 38.4, 12.5 / 26.8 %. The second lease's 56 shapes
  // (the fit lease's twins) were 2.7 / 7.0 % with the two-wave issue rate (3.0): the steady rate (3.5) and its p (2.6)
  // cost them what the other sets gain (every held-out call 4.3 / 12.3 -> 4.1 / 10.7 %).
  for (const Guard& g : {Guard{"h200-normissue/kernels.json", 0.04, 0.10}, Guard{"h200-normwaves/second/kernels.json", 0.036, 0.09},
                         Guard{"h200-normwaves/second/kernels_rows.json", 0.04, 0.105}}) {
    CAPTURE(g.suite);
    const std::vector<double> now = norm_errors(g.suite, main_cal()), old = norm_errors(g.suite, aten_form());
    REQUIRE(now.size() >= 56);
    MESSAGE(g.suite, ": fit_aten form ", quantile(old, 0.5), " / ", quantile(old, 0.9), ", normissue ", quantile(now, 0.5),
            " / ", quantile(now, 0.9));
    CHECK(quantile(now, 0.5) <= g.median);
    CHECK(quantile(now, 0.9) <= g.p90);
    CHECK(quantile(now, 0.9) < quantile(old, 0.9));
  }
  for (int set : {17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 29}) {  // 29: measured after the law landed
    const std::string suite = "h200-heldout" + std::to_string(set) + "/kernels.json";
    CAPTURE(suite);
    const std::vector<double> now = norm_errors(suite, main_cal()), old = norm_errors(suite, aten_form());
    REQUIRE(now.size() == 16);
    MESSAGE(suite, ": fit_aten form ", quantile(old, 0.5), " / ", quantile(old, 0.9), ", normissue ", quantile(now, 0.5),
            " / ", quantile(now, 0.9));
    CHECK(quantile(now, 0.5) <= quantile(old, 0.5) + 1e-9);  // every hidden set's median as good or better
    CHECK(quantile(now, 0.9) <= 0.14);                         // interpolated p90, worst 13.7 % (h200-heldout21)
  }
}
