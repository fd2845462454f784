// The last wave's C write after its K loop (branch shortk; opt-in: validation/results/h200-shortk/h200.calibration.yaml,
// `epilogue_tail: 1` with smallk's `tile_refill: 1` in the fused and eager gemm blocks). A tile's epilogue writes
// its C tile after its K loop; the earlier waves' writes run under the later tiles' loops, the last wave's do not.
// Under max(compute, stream) a one-wave grid at short K (K 256-1024: compute and the stream near equal, C as large
// as the operands) was priced 15-35 % fast (h200-shortk's 36 one-wave calls, -18 to -39 % on main).
#include <doctest/doctest.h>

#include "perfmodel/calibration.hpp"
#include "perfmodel/gemm_tiling.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("PlanCosts::epilogue_tail_of: the last wave's share of the C write, unsplit plans only") {
  PlanCosts c;
  TilePlan p;
  p.tiles = 96;  // one wave on 132 SMs
  c.write_s = 2e-6;
  c.sm_count = 132;
  CHECK(c.epilogue_tail_of(p) == 0.0);  // not priced unless a block opts in
  c.epilogue_tail = true;
  CHECK(c.epilogue_tail_of(p) == doctest::Approx(2e-6));  // one wave: all of C after the loop
  p.tiles = 264;                                          // two waves: the last one's half
  CHECK(c.epilogue_tail_of(p) == doctest::Approx(1e-6));
  c.memory_s = 5e-6;  // the stream keeps its whole length: only its tail moves out of the max
  CHECK(c.stream_of(p) + c.epilogue_tail_of(p) == doctest::Approx(5e-6));
  p.split_k = 2;  // a split plan writes partials; its reduce writes C
  CHECK(c.epilogue_tail_of(p) == 0.0);
}

namespace {
double priced(const Calibration& cal, int64_t m, int64_t n, int64_t k) {
  const Card h200 = test::catalogue().card("h200");
  const Op op = ops::gemm("g", m, n, k, DType::bf16, DType::bf16, Precision::bf16);
  return price(op, make_roofs(h200, &cal, Impl::fused), Impl::fused).time_s;
}
}  // namespace

TEST_CASE("the opt-in epilogue tail and refill at short K (validation/results/h200-shortk)") {
  const Calibration committed = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Calibration optin = load_calibration(test::root() + "/validation/results/h200-shortk/h200.calibration.yaml");
  // 1280 x 2048 x 512 (held out: crc32 % 3 == 0), nvjet_sm90_tst_128x160_64x5 one wave (110 CTAs): 7.93 us a
  // replayed call, 7.47 us of kernel (less the harness's 0.46 us idle). Committed 5.46 us (-27 %).
  CHECK(priced(committed, 1280, 2048, 512) < 0.8 * 7.47e-6);
  CHECK(priced(optin, 1280, 2048, 512) == doctest::Approx(7.47e-6).epsilon(0.08));
  // Stream-bound decode GEMMs (C a few rows) are left alone: 16 x 2048 x 384, 1 x 8192 x 512.
  CHECK(priced(optin, 16, 2048, 384) == doctest::Approx(priced(committed, 16, 2048, 384)).epsilon(0.01));
  CHECK(priced(optin, 1, 8192, 512) == doctest::Approx(priced(committed, 1, 8192, 512)).epsilon(0.01));
}
