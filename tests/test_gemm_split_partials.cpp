// A split-K GEMM's own write of its fp32 partials (branch gemmtile; opt-in: validation/results/h200-gemmtile/
// h200.calibration.yaml, `split_partials: 1` in the fused gemm block). cuBLASLt's split plan runs the GEMM kernel
// (nvjet_..._splitK) and then splitKreduce: the fused block priced the reduce's reads of the partials (M x N x 4 B a
// split, branch block11) but not the GEMM's writes of them. Every CTA of a split grid ends its K slice at once, so
// those writes are a tail after the loop; the reduce kernel reads them next, so they go to L2 (calibrate's
// l2_bandwidth, not fitted) while they fit what L2 keeps. Split plans at M 128-512 were priced 5-13 % fast on
// h200-gemm-small (cuBLASLt's own splitK kernels there: l3_70b_tp8 q 256 -7.4 %, l2_7b fp16 down 256 -9.9 %).
#include <doctest/doctest.h>

#include "perfmodel/calibration.hpp"
#include "perfmodel/gemm_tiling.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("PlanCosts::split_partials_write_of: split plans only, L2 first, DRAM past what L2 keeps") {
  PlanCosts c;
  TilePlan p;
  p.split_k = 2;
  CHECK(c.split_partials_write_of(p) == 0.0);  // not priced unless a block opts in
  c.split_partial_bytes = 1e6;
  c.l2_write_rate = 6e12;
  c.dram_write_rate = 3e12;
  c.l2_capacity = 35e6;
  CHECK(c.split_partials_write_of(p) == doctest::Approx(2e6 / 6e12));
  c.l2_capacity = 1.5e6;  // 2 MB of partials, 1.5 of them in L2
  CHECK(c.split_partials_write_of(p) == doctest::Approx(1.5e6 / 6e12 + 0.5e6 / 3e12));
  CHECK(c.fixed_of(p) == doctest::Approx(c.split_partials_write_of(p)));  // fixed_of adds it to the split plan
  p.split_k = 1;  // an unsplit plan writes its C once (the stream prices it)
  CHECK(c.split_partials_write_of(p) == 0.0);
}

namespace {
double priced(const Calibration& cal, int64_t m, int64_t n, int64_t k, DType dt = DType::bf16,
              Precision pr = Precision::bf16) {
  const Card h200 = test::catalogue().card("h200");
  const Op op = ops::gemm("g", m, n, k, dt, dt, pr);
  return price(op, make_roofs(h200, &cal, Impl::fused), Impl::fused).time_s;
}
}  // namespace

TEST_CASE("the opt-in partial write on cuBLASLt's split plans (validation/results/h200-gemmtile)") {
  const Calibration committed = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Calibration optin = load_calibration(test::root() + "/validation/results/h200-gemmtile/h200.calibration.yaml");
  // Llama-2-7B down at 128 rows: both price cuBLASLt's 128x64 split in 2 (its nvjet_..._128x64_64x8_..._splitK);
  // the opt-in adds exactly its partials' write, 128 x 4096 x 4 B x 2 at l2_bandwidth (6131 GB/s): 0.684 us.
  const double add = 128.0 * 4096 * 4 * 2 / 6131.13e9;
  CHECK(priced(optin, 128, 4096, 11008) - priced(committed, 128, 4096, 11008) == doctest::Approx(add).epsilon(0.01));
  // Llama-3-70B TP-8 q at 256 rows (h200-gemm-small, fit side: nvjet 64x64 split, 13.49 us a call less the
  // harness idle): committed -7.4 %, opt-in within 3 %.
  CHECK(priced(committed, 256, 1024, 8192) < 0.94 * 13.486e-6);
  CHECK(priced(optin, 256, 1024, 8192) == doctest::Approx(13.486e-6).epsilon(0.03));
  // Held out (odd index): fp16 Llama-2-7B down at 256 rows, 40.98 us: -9.9 % -> -6.6 %.
  CHECK(priced(optin, 256, 4096, 11008, DType::fp16, Precision::fp16) >
        priced(committed, 256, 4096, 11008, DType::fp16, Precision::fp16) + 1e-6);
  // Unsplit plans are not moved: a one-wave 1024-row and a 64-row unsplit call.
  CHECK(priced(optin, 1024, 4096, 4096) == doctest::Approx(priced(committed, 1024, 4096, 4096)).epsilon(1e-9));
}

TEST_CASE("nvjet_stages: the stage count in nvjet's kernel names (all 189 committed tile shapes follow it)") {
  // weight rows x tokens as the names give them; the stage count is the name's `_64xS` (`_128xS` for fp8).
  CHECK(nvjet_stages(Tile{256, 152}) == 4);  // nvjet_sm90_tst_256x152_64x4 (h200-heldout21 ms24 gate 1500)
  CHECK(nvjet_stages(Tile{128, 200}) == 5);  // ..._128x200_64x5_..._splitK
  CHECK(nvjet_stages(Tile{128, 208}) == 5);  // ..._128x208_64x5 (the closest to a boundary: 5.02)
  CHECK(nvjet_stages(Tile{128, 216}) == 4);  // ..._128x216_64x4
  CHECK(nvjet_stages(Tile{320, 128}) == 3);  // ..._320x128_64x3
  CHECK(nvjet_stages(Tile{448, 64}) == 3);   // h200-production's Llama-3-8B gate|up at 128
  CHECK(nvjet_stages(Tile{512, 80}) == 2);   // h200-heldout21's Mistral-Large TP-8 gate|up at 700
  CHECK(nvjet_stages(Tile{512, 64}) == 2);
  CHECK(nvjet_stages(Tile{128, 8}) == 12);
  CHECK(nvjet_stages(Tile{80, 64}) == 11);
  CHECK(nvjet_stages(Tile{48, 64}) == 15);
  CHECK(nvjet_stages(Tile{64, 64}) == 13);
  CHECK(nvjet_stages(Tile{64, 40}) == 16);   // capped (16.2)
  CHECK(nvjet_stages(Tile{128, 120}) == 6);  // fp8: nvjet_sm90_qqtst_128x120_128x6
}
