// Branch tf32split (validation/results/h200-tf32split): cuBLAS's CUTLASS sm80 split-K tf32 kernel +
// splitKreduce at a few rows on a small weight (cutlass_tf32_split.hpp). The priced checks are calls of
// the check sets (h200-heldout17 / 19 / 20, never fitted on), measured past the harness idle (0.46 us);
// each fails without the mechanism (main priced them -18 % to +141 %).
#include <doctest/doctest.h>

#include "perfmodel/calibration.hpp"
#include "perfmodel/cutlass_tf32_split.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {
OpCost tf32_linear(int64_t m, int64_t n, int64_t k) {
  static const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs r = make_roofs(test::catalogue().card("h200"), &cal, Impl::fused);
  return price(ops::gemm("tf32", m, n, k, DType::fp32, DType::fp32, Precision::tf32), r, Impl::fused);
}
}  // namespace

TEST_CASE("CUTLASS split-K tf32: which calls cuBLAS routes to it (kernel names of every committed tf32 call)") {
  // CUTLASS: h200-tf3217 32 x 2048 x 2048, h200-heldout17 12 x 2048 x 2048, h200-heldout19 13 x 2560 x 960,
  // h200-heldout20 21 x 1536 x 576 and 21 x 1024 x 5120, h200-tf32split 1024 x 8192 (2^23 elements).
  CHECK(cutlass_tf32_split_runs(32, 2048, 2048));
  CHECK(cutlass_tf32_split_runs(12, 2048, 2048));
  CHECK(cutlass_tf32_split_runs(13, 2560, 960));
  CHECK(cutlass_tf32_split_runs(21, 1536, 576));
  CHECK(cutlass_tf32_split_runs(21, 1024, 5120));
  CHECK(cutlass_tf32_split_runs(64, 1024, 8192));
  // xmma: a large weight (h200-heldout19 13 x 2560 x 8192 segment-K, h200-tf3217 32 x 3072 x 6144), a grid
  // of 64+ 64-row tiles (h200-production 16 x 4096 x 4096, h200-tf32split 32 x 8192 x 1024), past 64 rows
  // (one token tile), and at M 1 (gemv kernels, h200-heldgemm17).
  CHECK_FALSE(cutlass_tf32_split_runs(13, 2560, 8192));
  CHECK_FALSE(cutlass_tf32_split_runs(32, 3072, 6144));
  CHECK_FALSE(cutlass_tf32_split_runs(16, 4096, 4096));
  CHECK_FALSE(cutlass_tf32_split_runs(32, 8192, 1024));
  CHECK_FALSE(cutlass_tf32_split_runs(100, 2048, 2048));
  CHECK_FALSE(cutlass_tf32_split_runs(1, 2048, 2048));
}

TEST_CASE("CUTLASS split-K tf32: the plan fills the SMs with K slices of the named tile") {
  // 21 x 1024 x 5120 ran cutlass_80_tensorop_s1688gemm_128x64_32x6: 8 tiles of 128 weight rows, 16 slices.
  const TilePlan p = cutlass_tf32_split_plan(21, 1024, 5120, 1, 132, 400e12);
  CHECK(p.tile.name() == "64x128");
  CHECK(p.split_k == 16);
  CHECK(p.tiles == 128);
  CHECK(p.k_per_cta == doctest::Approx(320));
  // 12 x 2048 x 2048 ran the 64x64 tile: 32 tiles, 4 slices of 512.
  const TilePlan q = cutlass_tf32_split_plan(12, 2048, 2048, 1, 132, 400e12);
  CHECK(q.tile.name() == "64x64");
  CHECK(q.split_k == 4);
}

TEST_CASE("CUTLASS split-K tf32: priced on the check sets' calls") {
  // h200-heldout20 Mistral-NeMo k|v at 21 rows: 11.22 us (main: 27.0 us, the xmma 64x64 plan, +141 %).
  const OpCost kv = tf32_linear(21, 1024, 5120);
  REQUIRE(kv.tiling.has_value());
  CHECK(kv.tiling->split_k == 16);
  CHECK(kv.time_s == doctest::Approx(11.22e-6).epsilon(0.08));
  // h200-heldout19 SmolLM2-360M gate at 13 rows: 8.39 us (main: nvjet's plan, -26 %).
  CHECK(tf32_linear(13, 2560, 960).time_s == doctest::Approx(8.39e-6).epsilon(0.08));
  // h200-heldout17 Llama-3.2-1B q at 12 rows: 9.74 us (main: -18 %).
  CHECK(tf32_linear(12, 2048, 2048).time_s == doctest::Approx(9.74e-6).epsilon(0.08));
  // h200-heldout20 SmolLM2-135M gate at 21 rows: 6.80 us.
  CHECK(tf32_linear(21, 1536, 576).time_s == doctest::Approx(6.80e-6).epsilon(0.08));
}

TEST_CASE("CUTLASS split-K tf32: the reduce reads every slice's partials, so the price grows with M") {
  // h200-tf32split 1024 x 1024 (8 slices): 6.95 us at M 16, 7.32 at M 64 past the idle (+0.37 us).
  const double m16 = tf32_linear(16, 1024, 1024).time_s;
  const double m64 = tf32_linear(64, 1024, 1024).time_s;
  CHECK(m64 - m16 == doctest::Approx(0.37e-6).epsilon(0.3));
  // The xmma side of the rule is unchanged: 32 x 4096 x 4096 still prices its 64x64 grid unsplit.
  const OpCost x = tf32_linear(32, 4096, 4096);
  REQUIRE(x.tiling.has_value());
  CHECK(x.tiling->split_k == 1);
  CHECK(x.tiling->tile.name() == "64x64");
}

TEST_CASE("CUTLASS split-K tf32: each profile's gemm block carries its own fit of the kernel's fixed time") {
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Card& card = test::catalogue().card("h200");
  // fused: 2.4 us (the compiled-in default); eager: 0.8 us, its split_k_reduce being 3.5 us, not 1.64.
  CHECK(make_roofs(card, &cal, Impl::fused).gemm_cutlass_tf32_fixed_s == doctest::Approx(2.4e-6));
  CHECK(make_roofs(card, &cal, Impl::eager).gemm_cutlass_tf32_fixed_s == doctest::Approx(0.8e-6));
  CHECK(cutlass_tf32_split_fixed_s() == doctest::Approx(2.4e-6));
  // Under either block the check sets' NeMo k|v (21 x 1024 x 5120, 11.22 us) is priced within 8 %.
  const Op kv = ops::gemm("kv", 21, 1024, 5120, DType::fp32, DType::fp32, Precision::tf32);
  CHECK(price(kv, make_roofs(card, &cal, Impl::eager), Impl::eager).time_s == doctest::Approx(11.22e-6).epsilon(0.08));
}
