// calibration_fit.hpp: the committed H200 calibration is what its raw measurements fit to, and the
// thread-chain fit recovers a chain planted in synthetic measurements.
#include <doctest/doctest.h>

#include <cmath>

#include "perfmodel/calibration_fit.hpp"
#include "perfmodel/instructions.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/l2_residency.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

std::vector<std::string> h200_raw() {
  const std::string dir = test::root() + "/validation/results/h200/";
  return {dir + "calibration-raw.json", dir + "calibration-chains-raw.json", dir + "calibration-power-raw.json",
          dir + "calibration-attention-raw.json", dir + "calibration-l2-raw.json",
          dir + "calibration-eager-raw.json", dir + "calibration-switch-raw.json"};
}

}  // namespace

TEST_CASE("the committed H200 calibration refits from its raw measurements (two files merged)") {
  const Card h200 = test::catalogue().card("h200");
  const RawCalibration raw = load_raw_calibration(h200_raw());
  CHECK(raw.kernel_floor_s > 0);  // from the full run; the chains-only run has none
  const Calibration fit = fit_calibration(raw, h200);
  const Calibration committed = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  // The YAML keeps six significant digits.
  auto same = [](double a, double b) { return a == test::approx(b).epsilon(1e-5); };
  CHECK(same(fit.read_bandwidth.value(), committed.read_bandwidth.value()));
  CHECK(same(fit.pass_latency_s.value(), committed.pass_latency_s.value()));
  CHECK(same(fit.l2_pass_latency_s.value(), committed.l2_pass_latency_s.value()));
  CHECK(same(fit.issue_efficiency.value(), committed.issue_efficiency.value()));
  CHECK(same(fit.power.limit_w, committed.power.limit_w));
  CHECK(same(fit.power.idle_w, committed.power.idle_w));
  CHECK(same(fit.power.tensor_w, committed.power.tensor_w));
  CHECK(same(fit.sustained_clock_scale.value(), committed.sustained_clock_scale.value()));
  CHECK(same(fit.attention_peak.value(), committed.attention_peak.value()));
  CHECK(same(fit.attention_softmax_share.value(), committed.attention_softmax_share.value()));
  CHECK(fit.attention_cta_fixed_s.value() == test::approx(committed.attention_cta_fixed_s.value()).epsilon(1e-4));
  CHECK(fit.attention_softmax_share.value() > 0.1);
  CHECK(fit.l2_cyclic_capacity.value() == test::approx(committed.l2_cyclic_capacity.value()).epsilon(1e-5));
  CHECK(fit.decode.overlap == committed.decode.overlap);
  CHECK(fit.decode.cta_fixed_s.value() == test::approx(committed.decode.cta_fixed_s.value()).epsilon(1e-5));
  CHECK(fit.decode.cpi.value() == test::approx(4.1));  // Nsight Compute's reading, not fitted
  CHECK(fit.kernel_switch_s.value() == test::approx(committed.kernel_switch_s.value()).epsilon(1e-5));
  CHECK(fit.eager_dispatch_s.value() == test::approx(committed.eager_dispatch_s.value()).epsilon(1e-5));
  // Between a quarter and all of the L2: a cycled set of 41 MB (the 5 x 2048 copy) kept part.
  CHECK(fit.l2_cyclic_capacity.value() > h200.l2_bytes / 4);
  CHECK(fit.l2_cyclic_capacity.value() < h200.l2_bytes);  // d = 64 runs well above half the d = 128 tile time
  // The sustained GEMM ran slower than its burst: the cap binds on the H200.
  CHECK(fit.sustained_clock_scale.value() < 0.95);
  CHECK(fit.power.tensor_w > fit.power.limit_w - fit.power.idle_w);
  for (int i = 0; i < kKernelIdCount; ++i) {
    CAPTURE(to_string(static_cast<KernelId>(i)));
    CHECK(fit.thread_chain_s[i].has_value() == committed.thread_chain_s[i].has_value());
    if (fit.thread_chain_s[i]) CHECK(*fit.thread_chain_s[i] == test::approx(*committed.thread_chain_s[i]).epsilon(1e-4));
  }
  // Every small kernel of the suite has a measured chain; GEMMs and attention have none.
  for (KernelId k : {KernelId::copy, KernelId::silu_mul, KernelId::rmsnorm, KernelId::softmax_fused, KernelId::rotary,
                     KernelId::kv_append, KernelId::embedding})
    CHECK(fit.thread_chain_s[static_cast<int>(k)].value_or(-1) >= 0);
  CHECK(!fit.thread_chain_s[static_cast<int>(KernelId::gemm)]);
}

TEST_CASE("the thread-chain fit recovers a planted chain, per iteration of the thread's loop") {
  const Card h200 = test::catalogue().card("h200");
  RawCalibration raw = load_raw_calibration(h200_raw());
  // Keep the roofs' points, drop the measured chains, and plant synthetic ones: what the model
  // gives the launch with no chain, plus 0.5 us per iteration (RMSNorm 4096 wide: 2 iterations).
  std::erase_if(raw.points, [](const RawPoint& p) { return p.what == "thread_chain"; });
  Calibration base = fit_calibration(raw, h200);
  base.thread_chain_s.fill(0.0);
  const Roofs roofs = make_roofs(h200, &base);
  for (KernelId k : {KernelId::rmsnorm, KernelId::silu_mul}) {
    KernelCase c;
    c.kernel = k;
    c.rows = 3, c.cols = 4096;
    c.l2_resident = true;
    const Op op = to_op_on(c, h200.l2_bytes / 2);
    CHECK(op.l2_hit == 1);
    RawPoint p;
    p.what = "thread_chain";
    p.kernel = c;
    p.seconds = price(op, roofs, Impl::fused).time_s + 0.5e-6 * static_cast<double>(thread_iterations(k, 4096, DType::bf16));
    raw.points.push_back(p);
  }
  CHECK(thread_iterations(KernelId::rmsnorm, 4096, DType::bf16) == 2);
  CHECK(thread_iterations(KernelId::silu_mul, 4096, DType::bf16) == 1);
  const Calibration fit = fit_calibration(raw, h200);
  CHECK(fit.thread_chain_s[static_cast<int>(KernelId::rmsnorm)].value() == test::approx(0.5e-6));
  CHECK(fit.thread_chain_s[static_cast<int>(KernelId::silu_mul)].value() == test::approx(0.5e-6));
  CHECK(!fit.thread_chain_s[static_cast<int>(KernelId::rotary)]);  // no point: not measured
}

TEST_CASE("a harness case's L2 hits: all when asked, else the share of its cycled sets that survives") {
  const double cap = 30e6;
  KernelCase c;
  CHECK(harness_l2_hit(c, cap) == 0);  // rotation not recorded
  c.rotated_bytes = 16.4e6;            // 1000 sets of an 8 KiB copy: inside the capacity
  CHECK(harness_l2_hit(c, cap) == 1);
  c.rotated_bytes = 60e6;              // twice the capacity: 20 % survive a cycle
  CHECK(harness_l2_hit(c, cap) == test::approx(0.2032).epsilon(1e-3));
  c.rotated_bytes = 125.8e6;           // > 2 x L2: almost nothing survives
  CHECK(harness_l2_hit(c, cap) < 0.02);
  c.l2_resident = true;                // one buffer set, re-run
  CHECK(harness_l2_hit(c, cap) == 1);
}

TEST_CASE("cyclic L2 hits: the fixed point h = exp(-x (1 - h)) of random replacement") {
  for (double x : {1.2, 1.5, 2.0, 3.0, 5.0}) {
    const double h = cyclic_l2_hit(x * 1e6, 1e6);
    CAPTURE(x);
    CHECK(h < 1);
    CHECK(h == test::approx(std::exp(-x * (1 - h))).epsilon(1e-9));
  }
  CHECK(cyclic_l2_hit(0.5e6, 1e6) == 1);
  CHECK(cyclic_l2_hit(1e6, 0) == 0);
}
