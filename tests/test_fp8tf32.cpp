// Branch fp8tf32 (validation/results/h200-fp8tf32): two GEMM mechanisms priced on the H200.
//  - cuBLASLt's tensor-wise FP8 kernels at mid rows on small N: one SM's operand fill on a small tile's
//    K walk (fp8_tensor_sm_fill, quant_gemm_cost.cpp tensor_fp8_walk_s), a floor under the MMA and the
//    weight stream's overlap;
//  - cuBLAS's sm90 xmma tf32 kernels: their own fixed time past nvjet's (a profile gemm block's
//    xmma_tf32_fixed, gemm_cost.cpp).
// Each check names the measurement it stands on and fails without the mechanism.
#include <doctest/doctest.h>

#include <tuple>

#include "perfmodel/calibration.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/xmma_tf32.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {
const Calibration& h200_calibration() {
  static const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return cal;
}

double fp8_tensor_s(int64_t m, int64_t n, int64_t k, const Calibration& cal) {
  const Roofs r = make_roofs(test::catalogue().card("h200"), &cal);
  return price(ops::gemm_scaled("scaled_mm", m, n, k, DType::bf16, DType::fp8, Scaling::tensor), r, Impl::fused).time_s;
}
}  // namespace

TEST_CASE("tensor-wise FP8: a small tile's K walk binds at mid rows on small N (h200-heldout18, h200-fp8mm14)") {
  const Calibration& cal = h200_calibration();
  REQUIRE(cal.quant.fp8_tensor.sm_fill_bps > 0);
  Calibration no_walk = cal;
  no_walk.quant.fp8_tensor.sm_fill_bps = 0;
  // h200-heldout18 (never fitted on): Qwen2.5-1.5B's down at 200 rows, 1536 x 8960, ran the 64x40 tile
  // (120 CTAs, 70 K steps of 13 KB each at 108 GB/s an SM) in 12.79 us, 12.33 us past the harness's
  // 0.46 us idle; the stream-and-MMA price alone was 9.07 us (-26 %).
  const double walked = fp8_tensor_s(200, 1536, 8960, cal);
  CHECK(walked == doctest::Approx(12.33e-6).epsilon(0.08));
  CHECK(fp8_tensor_s(200, 1536, 8960, no_walk) < 0.8 * 12.33e-6);
  // h200-fp8mm14's probe (odd case, held out): the same weight at 256 rows, 64x64 tiles, 14.10 us measured.
  CHECK(fp8_tensor_s(256, 1536, 8960, cal) == doctest::Approx(14.10e-6 - 0.46e-6).epsilon(0.08));
  // Where the weight stream (16 rows) or the MMA (4096 rows) binds, the walk is below both: no change.
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{16, 4096, 14336}, {16, 28672, 4096},
                               {4096, 8192, 28672}, {1024, 28672, 4096}}) {
    CAPTURE(m);
    CHECK(fp8_tensor_s(m, n, k, cal) == doctest::Approx(fp8_tensor_s(m, n, k, no_walk)).epsilon(1e-9));
  }
}

TEST_CASE("sm90 xmma tf32: the kernel's own fixed time on a stream-bound call (h200-heldout18)") {
  const Roofs r = make_roofs(test::catalogue().card("h200"), &h200_calibration(), Impl::fused);
  CHECK(r.gemm_xmma_tf32_fixed_s == doctest::Approx(2.0e-6));
  // SmolLM2-1.7B's q|k|v at M 20 (F.linear, tf32): 96 tiles of 64x64, one wave, the 50 MB fp32 weight
  // streamed; 18.05 us measured past the harness idle (never fitted on). nvjet's fixed cost alone priced
  // 14.72 us (-18 %).
  const OpCost c = price(ops::gemm("smol_qkv", 20, 6144, 2048, DType::fp32, DType::fp32, Precision::tf32), r, Impl::fused);
  REQUIRE(c.tiling.has_value());
  CHECK(c.tiling->tile.name() == "64x64");
  CHECK(c.time_s == doctest::Approx(18.05e-6).epsilon(0.09));
  CHECK(c.time_s > 16.0e-6);
}
