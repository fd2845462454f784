// harness_clock.hpp: the clock of the production harness's median sample under the power cap
// (validation/results/h200-heldgemm17).
#include <doctest/doctest.h>

#include <cmath>

#include "perfmodel/harness_clock.hpp"
#include "perfmodel/kernel.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/ops.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {
PowerCap h200_cap() {
  PowerCap p;
  p.limit_w = 700;
  p.idle_w = 120.573;
  p.tensor_w = 954.738;  // hardware/h200.calibration.yaml
  p.burst_window_s = 47e-3;
  return p;
}

KernelCase gemm_case(int64_t samples, int64_t launches, int64_t sets) {
  KernelCase c;
  c.kernel = KernelId::gemm;
  c.m = c.n = c.k = 8192;
  c.samples = samples;
  c.launches_per_sample = launches;
  c.buffer_sets = sets;
  return c;
}

OpCost compute_bound(double t) {
  OpCost c;
  c.time_s = t;
  c.compute_time_s = t;
  return c;
}
}  // namespace

TEST_CASE("load before the median sample: warm-up, probe, capture, one replay, half the samples") {
  // One set: 3 + 3 + 1 + L warm calls, then samples / 2 x L.
  CHECK(harness_load_before_median_s(gemm_case(10, 1, 1), 2e-3) == test::approx((3 + 3 + 1 + 1 + 5) * 2e-3));
  // 40 sets: min(3, 40) + min(40, 20) + 1 + L.
  CHECK(harness_load_before_median_s(gemm_case(10, 40, 40), 1e-5) == test::approx((3 + 20 + 1 + 40 + 200) * 1e-5));
  CHECK(harness_load_before_median_s(gemm_case(0, 0, 0), 1e-3) == 0.0);  // not recorded
}

TEST_CASE("a compute-bound call sampled past the burst window runs at the cap's clock; within it, at full clock") {
  const PowerCap p = h200_cap();
  const Op op = ops::gemm("g", 8192, 8192, 8192, DType::bf16, DType::bf16, Precision::bf16);
  // 2.1 ms a call, 10 samples of one: (8 + 5) x 2.1 = 27 ms < 47 ms (h200-heldout16's Phi-3
  // gate/up at M 16384, measured at its burst rate).
  CHECK(harness_clock_scale(p, gemm_case(10, 1, 1), {op}, {compute_bound(2.1e-3)}) == 1.0);
  // 7 ms a call: (8 + 5) x 7 = 91 ms: sustained, phi^3 = (700 - 120.6) / 954.7.
  const double phi = harness_clock_scale(p, gemm_case(10, 1, 1), {op}, {compute_bound(7e-3)});
  CHECK(phi == test::approx(std::cbrt((700 - 120.573) / 954.738)).epsilon(1e-6));
  CHECK(harness_call_time_s(p, gemm_case(10, 1, 1), {op}, {compute_bound(7e-3)}) == test::approx(7e-3 / phi));
  // No burst window in the calibration: never throttled.
  PowerCap unknown = p;
  unknown.burst_window_s = 0;
  CHECK(harness_clock_scale(unknown, gemm_case(10, 1, 1), {op}, {compute_bound(7e-3)}) == 1.0);
}

TEST_CASE("a memory-bound call under the cap keeps its clock however long it runs (h200-heldgemm17's GEMV and copy)") {
  const PowerCap p = h200_cap();
  const Op op = ops::gemm("gemv", 1, 28672, 8192, DType::bf16, DType::bf16, Precision::bf16);
  OpCost c;
  c.time_s = 106e-6;
  c.memory_time_s = 100e-6;
  c.compute_time_s = 1e-6;
  CHECK(harness_clock_scale(p, gemm_case(700, 8, 1), {op}, {c}) == 1.0);
}

TEST_CASE("an unaligned GEMM's align1 kernel draws for its MMAs, not its scalar loads (h200-heldout21's GPT-2 XL LM head)") {
  const PowerCap p = h200_cap();
  // n = 50257: rows not 16-byte aligned, cuBLAS's cutlass_75 align1 kernel (gemm_unaligned_cost.cpp),
  // priced by its scalar loads' issue. 3300 rows: 531 GFLOP in 5.5 ms, every sample at 1980 MHz.
  const Op op = ops::gemm("lm_head", 3300, 50257, 1600, DType::bf16, DType::bf16, Precision::bf16);
  OpCost c = compute_bound(5.5e-3);
  c.nominal_peak = 989e12;
  CHECK(harness_clock_scale(p, gemm_case(10, 1, 1), {op}, {c}) == 1.0);
  // The same time on an aligned shape is MMA-bound: capped.
  const Op aligned = ops::gemm("g", 3300, 50256, 1600, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(harness_clock_scale(p, gemm_case(10, 1, 1), {aligned}, {c}) < 1.0);
}
