// nvjet's one-wave fill tiles: which side in steps of 8 pays the pace cap (branch smallk).
// The cap (kNvjetFillPaceCap, branch nvjettile) was fitted on `_TNN` tiles, tokens on the 64-row
// warpgroups and the weight rows in steps of 8 (h200-gemm-small's Mistral q|k|v 96x128, Qwen2-1.5B gate|up
// 144x128). The `_TNT` tiles, weight rows on the warpgroups and tokens in steps of 8, run at the knee's
// pace: capped, every one at M > 128 in h200-heldout18 priced 11-15 % over (Yi-6B k|v 5000 x 512 x 4096 on
// 128x152: 31.9 us against 28.7 measured), while the TNN 144x128 was -12.5 % uncapped.
#include <doctest/doctest.h>

#include "perfmodel/calibration.hpp"
#include "perfmodel/gemm_tiling.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("nvjet's TNT fill tiles (tokens in steps of 8) run uncapped; TNN ones (weight rows) capped") {
  const Card h200 = test::catalogue().card("h200");
  const Calibration committed = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs fused = make_roofs(h200, &committed, Impl::fused);

  // h200-heldout18's Yi-6B k|v, 5000 x 512 x 4096: nvjet_sm90_tst_128x152_64x6_2x1_v_bz_TNT, 28.7 us
  // (kernel time, the accuracy path's measured). Tokens x weight rows here: 152x128, 33 x 4 = 132 CTAs.
  const Op yi = ops::gemm("yi6_kv", 5000, 512, 4096, DType::bf16, DType::bf16, Precision::bf16);
  const OpCost tnt = price(yi, fused, Impl::fused);
  REQUIRE(tnt.tiling.has_value());
  CHECK(tnt.tiling->tile.name() == "152x128");
  CHECK(tnt.tiling->tile_efficiency > kNvjetFillPaceCap);  // capped it was exactly the cap: 31.9 us, +11 %
  CHECK(tnt.time_s == doctest::Approx(28.7e-6).epsilon(0.06));

  // h200-gemm-small's Mistral q|k|v, 256 x 6144 x 4096 on the TNN 96x128 (128x96 here): still capped.
  const Op mistral = ops::gemm("mistral_qkv", 256, 6144, 4096, DType::bf16, DType::bf16, Precision::bf16);
  const OpCost tnn = price(mistral, fused, Impl::fused);
  REQUIRE(tnn.tiling.has_value());
  CHECK(tnn.tiling->tile.name() == "128x96");
  CHECK(tnn.tiling->tile_efficiency == test::approx(kNvjetFillPaceCap));
}
