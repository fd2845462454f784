// nvjet's stage ring refilled for every tile after an SM's first (branch smallk; opt-in:
// validation/results/h200-smallk/h200.calibration.yaml, `tile_refill: 1` in the fused and eager gemm blocks).
// nvjet's stages fill the shared memory (`_64x4` on 256x152: 4 x 52 KB; `_64x5` on 192x128: 5 x 40 KB),
// so the C tile's epilogue staging takes the ring and the next tile's first loads wait a memory latency
// (pass_latency, measured by calibrate, not fitted). At K = 576 a 256x152 tile's MMA is ~7 us and the
// refill ~0.9 us of it; at K = 4096 2 %.
#include <doctest/doctest.h>

#include "perfmodel/calibration.hpp"
#include "perfmodel/gemm_tiling.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("PlanCosts::tile_refill_of: one refill per tile after an SM's first") {
  PlanCosts c;
  TilePlan p;
  p.tiles = 420;  // Qwen2-1.5B gate|up 512 x 17920 on 192x128: 3 x 140 tiles, 4 an SM on 132 SMs
  CHECK(c.tile_refill_of(p) == 0.0);  // not priced unless a block opts in
  c.tile_refill_s = 1e-6;
  c.sm_count = 132;
  CHECK(c.tile_refill_of(p) == doctest::Approx(3e-6));
  p.tiles = 132;  // one wave: its fill is the fixed cost's
  CHECK(c.tile_refill_of(p) == 0.0);
  CHECK(c.fixed_of(p) == doctest::Approx(c.fixed_s));
}

TEST_CASE("the opt-in tile refill on a short-K multi-tile nvjet GEMM (h200-gemm-small)") {
  const Card h200 = test::catalogue().card("h200");
  const Calibration committed = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Calibration optin = load_calibration(test::root() + "/validation/results/h200-smallk/h200.calibration.yaml");
  // h200-gemm-small's Qwen2-1.5B gate|up, 512 x 17920 x 1536 (fit half): nvjet_sm90_tst_192x128_64x5 coopB,
  // 42.6 us kernel time; committed -10.2 %, with the refill -3.3 %.
  const Op op = ops::gemm("q2_gateup", 512, 17920, 1536, DType::bf16, DType::bf16, Precision::bf16);
  const OpCost before = price(op, make_roofs(h200, &committed, Impl::fused), Impl::fused);
  const OpCost after = price(op, make_roofs(h200, &optin, Impl::fused), Impl::fused);
  REQUIRE(after.tiling.has_value());
  CHECK(after.tiling->tiles > h200.sm_count);
  CHECK(after.time_s > before.time_s);
  CHECK(after.time_s == doctest::Approx(42.6e-6).epsilon(0.06));
  // A one-wave grid pays none (Mistral q|k|v 256 x 6144 x 4096 on 128 CTAs of 96x128).
  const Op one = ops::gemm("mistral_qkv", 256, 6144, 4096, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(price(one, make_roofs(h200, &optin, Impl::fused), Impl::fused).time_s ==
        doctest::Approx(price(one, make_roofs(h200, &committed, Impl::fused), Impl::fused).time_s));
}
