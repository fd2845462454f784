// gemm_tiling.hpp: CTA tiles, waves and wave quantization (seed 001 slides 39 and 44), the
// tile that fits shared memory and the tiled matmul's loads (seed 000 practice).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "perfmodel/calibration.hpp"
#include "perfmodel/cublaslt_split.hpp"
#include "perfmodel/gemm_tiling.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/xmma_tf32.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("the 1792 / 1793 wave cliff on 108 SMs with 256x128 tiles") {
  const double peak = 312e12;
  // 1792: ceil(1792/256) x ceil(1792/128) = 7 x 14 = 98 tiles, one wave, 98 / 108 busy.
  const TilePlan a = plan_tile(1792, 1792, 1792, 1, Tile{256, 128}, 108, peak);
  CHECK(a.tiles == 98);
  CHECK(a.ctas_per_sm == 1);
  CHECK(a.waves == 1);
  CHECK(a.wave_efficiency == test::approx(98.0 / 108));
  // 1793: 8 x 15 = 120 tiles, two waves, 120 / 216 = 56 % busy.
  const TilePlan b = plan_tile(1793, 1793, 1793, 1, Tile{256, 128}, 108, peak);
  CHECK(b.tiles == 120);
  CHECK(b.waves == 2);
  CHECK(b.wave_efficiency == test::approx(120.0 / 216));
  // The busiest SM runs one tile at 1792 and two at 1793: each tile is 2 x 256 x 128 x K FLOPs at
  // the SM's share of the peak (peak / 108); the 256x128 tile's reuse 32768 / 384 = 85 > 64, so
  // full MMA efficiency.
  CHECK(a.tile_efficiency == test::approx(1.0));
  CHECK(a.compute_time_s == test::approx(2.0 * 256 * 128 * 1792 / (peak / 108)));
  CHECK(b.compute_time_s == test::approx(2 * 2.0 * 256 * 128 * 1793 / (peak / 108)));
  CHECK(b.compute_time_s / a.compute_time_s == test::approx(2.0).epsilon(0.001));
  CHECK(Tile{256, 128}.name() == "256x128");
}

TEST_CASE("smaller tiles share an SM and lose MMA efficiency") {
  // 128x128: 2 CTAs per SM (256·128 / 128·128); reuse 16384 / 256 = 64 -> efficiency 1.
  const TilePlan p = plan_tile(4096, 4096, 4096, 1, Tile{128, 128}, 108, 312e12);
  CHECK(p.ctas_per_sm == 2);
  CHECK(p.tiles == 32 * 32);
  CHECK(p.waves == 5);  // ceil(1024 / 216)
  CHECK(p.tile_efficiency == test::approx(1.0));
  // 64x64: 8 CTAs per SM; reuse 4096 / 128 = 32 -> efficiency 0.5.
  const TilePlan q = plan_tile(4096, 4096, 4096, 1, Tile{64, 64}, 108, 312e12);
  CHECK(q.ctas_per_sm == 8);
  CHECK(q.tile_efficiency == test::approx(0.5));
  // Batched GEMMs multiply the tiles.
  CHECK(plan_tile(256, 128, 64, 3, Tile{256, 128}, 108, 1e12).tiles == 3);
}

TEST_CASE("split-K slices K and multiplies the tiles") {
  const TilePlan p = plan_tile(256, 128, 4096, 1, Tile{256, 128}, 108, 312e12, 4);
  CHECK(p.split_k == 4);
  CHECK(p.tiles == 4);
  // One tile per SM of a quarter of K: 2 x 256 x 128 x 1024 FLOPs at peak / 108.
  CHECK(p.compute_time_s == test::approx(2.0 * 256 * 128 * 1024 / (312e12 / 108)));
}

TEST_CASE("best_tile never does worse than any default tile, and splits skinny GEMMs") {
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1793, 1793, 1793},
                         {4096, 4096, 4096},
                         {1, 4096, 4096},
                         {16384, 1152, 384}}) {
    CAPTURE(m);
    CAPTURE(n);
    const TilePlan best = best_tile(m, n, k, 1, 108, 312e12);
    for (const Tile& t : default_tiles())
      CHECK(best.compute_time_s <= plan_tile(m, n, k, 1, t, 108, 312e12).compute_time_s * (1 + 1e-9));
  }
  // A decode GEMM (M = 1) has far fewer output tiles than SMs: split-K kicks in.
  CHECK(best_tile(1, 4096, 4096, 1, 108, 312e12).split_k > 1);
  // The default tiles include the 256x128 of the seed.
  bool has = false;
  for (const Tile& t : default_tiles()) has = has || (t.m == 256 && t.n == 128);
  CHECK(has);
}

TEST_CASE("the tile that fits shared memory and the tiled matmul's loads") {
  // Three t x t tiles in bf16 within 100 KiB: 3 x 128² x 2 = 98,304 <= 102,400 < 3 x 256² x 2.
  CHECK(max_square_tile(100 * 1024, 2) == 128);
  CHECK(max_square_tile(98304, 2) == 128);
  CHECK(max_square_tile(98303, 2) == 64);
  CHECK(max_square_tile(228 * 1024, 2) == 128);  // H100's 228 KiB: 256 needs 384 KiB
  // 2n³/t for several t; the ratio to the naive 2n³ is t.
  for (int64_t t : {1, 2, 8, 64, 128}) {
    CAPTURE(t);
    CHECK(tiled_matmul_loads(1024, t) == test::approx(2.0 * 1024 * 1024 * 1024 / t));
    CHECK(naive_matmul_loads(1024) / tiled_matmul_loads(1024, t) == test::approx(static_cast<double>(t)));
  }
  // Seed 000: the 128 tile gives t / 2 = 64 FLOP/B against DRAM (2n³ FLOPs over 2n³/t x 2 B x ...):
  // FLOPs 2n³ / bytes (2n³/128 x 2 B) = 64.
  const double n = 4096;
  CHECK(2 * n * n * n / (tiled_matmul_loads(4096, 128) * 2) == test::approx(64.0));
}

TEST_CASE("pricing a GEMM with a forced tile uses that tile's waves") {
  const Card a100 = test::catalogue().card("a100");
  const Roofs roofs = make_roofs(a100, nullptr);
  const Tile t{256, 128};
  const Op g1792 = ops::gemm("g", 1792, 1792, 1792, DType::bf16, DType::bf16, Precision::bf16);
  const Op g1793 = ops::gemm("g", 1793, 1793, 1793, DType::bf16, DType::bf16, Precision::bf16);
  const OpCost c1 = price(g1792, roofs, Impl::fused, &t);
  const OpCost c2 = price(g1793, roofs, Impl::fused, &t);
  REQUIRE(c1.tiling.has_value());
  REQUIRE(c2.tiling.has_value());
  CHECK(c1.tiling->tiles == 98);
  CHECK(c1.tiling->waves == 1);
  CHECK(c2.tiling->tiles == 120);
  CHECK(c2.tiling->waves == 2);
  // One more row and column nearly doubles the predicted time; the roofline does not see it.
  CHECK(c2.time_s / c1.time_s > 1.8);
  CHECK(c2.roofline_time_s / c1.roofline_time_s == test::approx(1793.0 * 1793 * 1793 / (1792.0 * 1792 * 1792)));
}

TEST_CASE("stream-K candidates: a tile the split-K search passes over wins once idle SMs share its K") {
  // 200 x 4608 x 3584 on 132 SMs: 128x128 gives 72 tiles (one partial wave). Split-K prefers
  // 256x128 split 2 (72 slices); streaming the 72 tiles' K over all 132 SMs is faster still.
  const double peak = 800e12, fixup_rate = 64.0 * 1.98e9;
  const TilePlan split = best_tile(200, 4608, 3584, 1, 132, peak);
  const TilePlan plan = best_plan(200, 4608, 3584, 1, 132, peak, fixup_rate);
  CHECK(plan.stream_k);
  CHECK(plan.tile.m == 128);
  CHECK(plan.tile.n == 128);
  CHECK(plan.compute_time_s < split.compute_time_s);
  // 72 tiles x 2 x 128 x 128 x 3584 FLOPs over 132 SMs, plus one fp32 partial tile out and in.
  const double tile_s = 2.0 * 128 * 128 * 3584 / (peak / 132);
  CHECK(plan.compute_time_s == test::approx(72 * tile_s / 132 + 2.0 * 128 * 128 * 4 / fixup_rate));
  // Each SM walks 72/132 of one tile's K.
  CHECK(plan.k_per_cta == test::approx(3584.0 * 72 / 132));
  // Without stream-K (fixup_rate 0) the split-K plan stands.
  CHECK(best_plan(200, 4608, 3584, 1, 132, peak, 0).split_k == split.split_k);
}

TEST_CASE("cheapest_plan: the least priced plan over one candidate set for every M (issue 14)") {
  const double peak = 800e12, fixup_rate = 64.0 * 1.98e9;
  PlanCosts costs;
  costs.fixed_s = 1.8e-6;
  costs.per_1024_k_s = 0.5e-6;
  costs.split_k_s = 1.4e-6;
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 4096, 4096},
                         {128, 1536, 384},
                         {200, 4608, 3584},
                         {4096, 4096, 4096}}) {
    CAPTURE(m);
    costs.memory_s = 2.0 * (m * k + n * k + m * n) / 4e12;
    const TilePlan best = cheapest_plan(m, n, k, 1, 132, peak, fixup_rate, costs);
    // Priced by hand: fixed + per-K walk + the split's reduction + max(compute, memory).
    const double split_cost = best.split_k > 1 ? costs.split_k_s : 0.0;
    CHECK(costs.priced_s(best) == test::approx(costs.fixed_s + costs.per_1024_k_s * best.k_per_cta / 1024 + split_cost +
                                               std::max(best.compute_time_s, costs.memory_s)));
    // No tile and split of the set prices lower (an unsplit grid that leaves SMs idle is split
    // instead when K allows it: not in the set).
    const int64_t max_split = std::min<int64_t>(k / 256, 132);
    for (const Tile& t : default_tiles())
      for (int64_t s = 1; s <= max_split; s *= 2) {
        const TilePlan p = plan_tile(m, n, k, 1, t, 132, peak, s);
        if (s == 1 && max_split > 1 && p.tiles < 132) continue;
        CHECK(costs.priced_s(best) <= costs.priced_s(p) * (1 + 1e-12));
      }
  }
  // A decode GEMV keeps a split-K plan and its reduction (cuBLAS's splitKreduce): its tiles alone
  // leave most SMs idle, and with no full wave there is nothing for stream-K to stream behind.
  costs.memory_s = 2.0 * 4096 * 4096 / 4e12;
  const TilePlan gemv = cheapest_plan(1, 4096, 4096, 1, 132, peak, fixup_rate, costs);
  CHECK(gemv.split_k > 1);
  CHECK_FALSE(gemv.stream_k);
  // The prefill case that dropped: baby-gpt's c_proj (K = 1536) at M = 128 priced above M = 256
  // (25.9 and 17.3 us) while the plan was picked by compute time. Now the price can drop as M
  // grows only where an unsplit grid first fills the SMs, and by no more than the split's
  // reduction it no longer pays (gemm_tiling.cpp; here once, at M = 5520, by 0.84 us).
  double last = 0;
  int drops = 0;
  for (int64_t m = 16; m <= 8192; m += 16) {
    CAPTURE(m);
    costs.memory_s = 2.0 * (m * 1536 + 384 * 1536 + m * 384) / 4e12;
    const double t = costs.priced_s(cheapest_plan(m, 384, 1536, 1, 132, peak, fixup_rate, costs));
    CHECK(t >= last - costs.split_k_s);
    drops += t < last * (1 - 1e-12);
    last = t;
  }
  CHECK(drops <= 1);
}

TEST_CASE("per-CTA K loop (Little's law): few CTAs walk K slowly, so short K runs unsplit and long K splits") {
  // cuBLASLt as PyTorch calls it (h200-gemm-small's kernel names): N = 512 at K = 2048 is one
  // unsplit nvjet kernel, at K = 3584 a split-K kernel and splitKreduce. Costs of the order the
  // profile fit finds: a few us fixed, a few us for the reduction kernel, ~2 us per 1024 of K.
  // The peak is set far up so that the padded tiles' compute (which at M = 1 and 800 TFLOP/s
  // alone favours split-K) stays out of the comparison: this tests the K loop's part of the price.
  const double peak = 1e16, fixup_rate = 64.0 * 1.98e9;
  PlanCosts costs;
  costs.fixed_s = 3e-6;
  costs.split_k_s = 4e-6;
  costs.cta_walk_per_1024_k_s = 2e-6;
  costs.memory_s = 2.0 * 512 * 2048 / 4e12;
  const TilePlan short_k = cheapest_plan(1, 512, 2048, 1, 132, peak, fixup_rate, costs);
  CHECK(short_k.split_k == 1);
  // Its K loop is the busiest SM's one tile walking all of K: 2 x 2 us, above the 0.5 us stream.
  CHECK(short_k.tiles <= 132);
  CHECK(short_k.cta_walk_s == test::approx(2048.0 / 1024 * 2e-6));
  CHECK(costs.priced_s(short_k) ==
        test::approx(costs.fixed_s + std::max({short_k.compute_time_s, costs.memory_s, short_k.cta_walk_s})));
  costs.memory_s = 2.0 * 512 * 8192 / 4e12;
  const TilePlan long_k = cheapest_plan(1, 512, 8192, 1, 132, peak, fixup_rate, costs);
  CHECK(long_k.split_k > 1);
  CHECK(long_k.cta_walk_s < short_k.cta_walk_s);
  // Without the K loop priced (the card's own kernels), the unsplit grid is not offered.
  costs.cta_walk_per_1024_k_s = 0;
  CHECK(cheapest_plan(1, 512, 2048, 1, 132, peak, fixup_rate, costs).split_k > 1);
  CHECK(cheapest_plan(1, 512, 2048, 1, 132, peak, fixup_rate, costs).cta_walk_s == 0);
}

TEST_CASE("skinny tiles: a K step's pace scales with the tile's operand rows, offered only where that is priced") {
  // cuBLASLt at M <= 64 runs 64x8 / 128x8 / 64x16 tiles (h200-gemm-chain's TinyLlama projections:
  // N = 2048, K = 2048 unsplit on 32 CTAs of 64x8 in 5.6 us). Costs of the order the fit finds.
  const double peak = 1e16, fixup_rate = 64.0 * 1.98e9;
  PlanCosts costs;
  costs.fixed_s = 1.3e-6;
  costs.split_k_s = 3.5e-6;
  costs.cta_walk_per_1024_k_s = 3.8e-6;
  costs.memory_s = 2.0 * 2048 * 2048 / 4.3e12;
  // Every tile at one pace: no skinny tile is a candidate.
  const TilePlan same = cheapest_plan(1, 2048, 2048, 1, 132, peak, fixup_rate, costs);
  CHECK(same.tile.m >= 64);
  costs.cta_walk_latency_share = 0.35;
  const TilePlan skinny = cheapest_plan(1, 2048, 2048, 1, 132, peak, fixup_rate, costs);
  CHECK(skinny.tile.m < 64);
  CHECK(skinny.split_k == 1);
  // Its pace: 0.35 + 0.65 x (tm + tn) / 256 of a 128x128 tile's, per 1024 of the K it walks.
  const double rows = static_cast<double>(skinny.tile.m + skinny.tile.n) / 256.0;
  CHECK(skinny.cta_walk_s == test::approx(std::ceil(skinny.tiles / 132.0) * 2.0 * 3.8e-6 * (0.35 + 0.65 * rows)));
  CHECK(costs.priced_s(skinny) < costs.priced_s(same));
  // A 128x128 tile keeps its pace; a 256x128 one walks slower.
  TilePlan wide = plan_tile(1024, 1024, 2048, 1, Tile{256, 128}, 132, peak);
  const double pace_wide = costs.cta_walk_of(wide, 132);
  costs.cta_walk_latency_share = -1;
  CHECK(pace_wide > costs.cta_walk_of(wide, 132));
  // Past 2048 of K per CTA cuBLASLt splits instead (N = 512, K = 3584: split-K + splitKreduce).
  costs.cta_walk_latency_share = 0.35;
  costs.memory_s = 2.0 * 512 * 8192 / 4.3e12;
  const TilePlan long_k = cheapest_plan(1, 512, 8192, 1, 132, peak, fixup_rate, costs);
  CHECK((long_k.tile.m >= 64 || long_k.k_per_cta <= 2048));
  // Not at M past the skinny tiles' rows.
  CHECK(cheapest_plan(256, 2048, 2048, 1, 132, peak, fixup_rate, costs).tile.m >= 64);
}


TEST_CASE("cuBLASLt's split-K rule and the reduce's partials (branch block11, validation/results/h200-block11)") {
  // A profile's block with split_k_min_slice: a tile whose grid leaves SMs idle is split only
  // min(SMs / grid, K / depth) ways (not a power of two: TinyLlama's down, 64x8 tiles, 32 of them
  // at K 5632, runs 3 ways), and the reduction reads each split's fp32 partials.
  const double peak = 800e12, fixup_rate = 64.0 * 1.98e9;
  PlanCosts costs;
  costs.fixed_s = 2.0e-6;
  costs.split_k_s = 1.64e-6;
  costs.cta_walk_per_1024_k_s = 3.8e-6;
  costs.cta_walk_latency_share = 0.35;
  costs.split_k_min_slice = 1536;
  costs.split_k_per_split_s = 2048 * 4.0 / 4.66e12;  // M = 1 x N = 2048 fp32 partials at the read rate
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 2048, 5632},
                         {1, 4096, 14336},
                         {8, 3584, 3584},
                         {64, 2048, 5632},
                         {128, 4096, 4096}}) {
    CAPTURE(m);
    CAPTURE(n);
    costs.memory_s = 2.0 * (m * k + n * k + m * n) / 4e12;
    const TilePlan p = cheapest_plan(m, n, k, 1, 132, peak, fixup_rate, costs);
    if (p.split_k > 1) {
      const int64_t grid = p.tiles / p.split_k;
      CHECK(p.split_k == cublaslt_split(grid, k, 132, 1536));
      CHECK(costs.fixed_of(p) == test::approx(costs.fixed_s + costs.split_k_s + costs.split_k_per_split_s * p.split_k));
    }
  }
  // With 1 x 64 tiles of N = 2048 (32 CTAs), K 5632 allows 3 splits of at least 1536 deep.
  const TilePlan three = plan_tile(1, 2048, 5632, 1, Tile{8, 64}, 132, peak, 3);
  CHECK(three.tiles == 96);
  // Without the depth, the splits are the powers of two (the committed blocks, gemm5's).
  costs.split_k_min_slice = 0;
  costs.split_k_per_split_s = 0;
  const TilePlan old = cheapest_plan(1, 2048, 5632, 1, 132, peak, fixup_rate, costs);
  CHECK((old.split_k & (old.split_k - 1)) == 0);
}

TEST_CASE("cuBLASLt's split count with the 4-CTA cluster cap (branch compiled17, h200-block11 fit, h200-compiled2 held out)") {
  // Measured counts (kernel name's tile, grid / tiles; validation/scripts/production/compiled17_splits.py):
  // grid of G tiles over K, D = 1280.
  struct Case {
    int64_t grid, k, splits;
  };
  for (const Case c : {Case{32, 5632, 3},    // TinyLlama's down, 64x8 4x1 splitK, 96 CTAs (block11)
                       Case{64, 4096, 2},    // Llama-3-8B's o, 64x8 2x1, 128 CTAs (block11)
                       Case{32, 14336, 4},   // Llama-3-8B's down, 128x8 2x1, 128 CTAs (block11)
                       Case{14, 18944, 8},   // Qwen2.5-7B's down, 256x8 4x1, 112 CTAs (block11)
                       Case{19, 18944, 5},   // ... at M 16, 192x16, 100 CTAs (block11)
                       Case{56, 3584, 2},    // Qwen2.5-7B's o, 112 CTAs (block11)
                       Case{32, 2048, 1},    // TinyLlama's o, unsplit (block11)
                       Case{16, 4096, 3},    // Llama-3-8B's k / v, 48 CTAs (h200-compiled2, held out)
                       Case{8, 3584, 2},     // Qwen2.5-7B's k / v, 16 CTAs (h200-compiled2, held out)
                       Case{32, 11008, 3}})  // Llama-2-7B's down, 128x8 4x1, 96 CTAs (h200-compiled2, held out)
  {
    CAPTURE(c.grid);
    CAPTURE(c.k);
    CHECK(cublaslt_split(c.grid, c.k, 132, 1280) == c.splits);
  }
  // block11's rule (no cluster cap) split TinyLlama's down 4 ways at D 1280: the cap is what keeps 3.
  CHECK(std::min<int64_t>(132 / 32, 5632 / 1280) == 4);
}

TEST_CASE("a split grid of 4-CTA clusters streams a fixed tail longer, the 2-CTA grid over every SM not (branch splitk)") {
  // Which grid cuBLASLt's split runs on (kernel names of validation/results/h200-block11: `_4x1_..._splitK` on
  // at most 112 CTAs, `_2x1_..._splitK` on 128).
  CHECK(cublaslt_split_grid(32, 5632, 132, 1280).clustered);     // TinyLlama's down, 64x8 4x1, 96 CTAs
  CHECK(cublaslt_split_grid(56, 3584, 132, 1280).clustered);     // Qwen2.5-7B's o, 4x1, 112 CTAs
  CHECK(cublaslt_split_grid(14, 18944, 132, 1280).clustered);    // Qwen2.5-7B's down, 256x8 4x1, 112 CTAs
  CHECK_FALSE(cublaslt_split_grid(64, 4096, 132, 1280).clustered);   // Llama-3-8B's o, 64x8 2x1, 128 CTAs
  CHECK_FALSE(cublaslt_split_grid(32, 14336, 132, 1280).clustered);  // Llama-3-8B's down, 128x8 2x1, 128 CTAs
  CHECK(cublaslt_split_grid(32, 2048, 132, 1280).splits == 1);       // TinyLlama's o: unsplit, no tail
  CHECK_FALSE(cublaslt_split_grid(32, 2048, 132, 1280).clustered);
  // The tail is a fixed time, not a rate: the same on 17 MB of weight as on 136 MB (h200-gemm-small's
  // Llama-3-70B TP8 q and h200-gemm-chain's Qwen2.5-7B down: +1 to +2 us over the stream price alike).
  CHECK(kClusterSplitTailS > 0.5e-6);
  CHECK(kClusterSplitTailS < 2.0e-6);
  const double peak = 800e12, fixup_rate = 64.0 * 1.98e9;
  PlanCosts costs;
  costs.fixed_s = 2.0e-6;
  costs.split_k_s = 1.64e-6;
  costs.cta_walk_per_1024_k_s = 3.8e-6;
  costs.cta_walk_latency_share = 0.35;
  costs.split_k_min_slice = 1280;
  costs.split_k_per_split_s = 2048 * 4.0 / 4.66e12;
  // TinyLlama's down at M = 1 (2048 x 5632, 23 MB at ~4 TB/s): split 3 ways on the clusters; the stream
  // binds (96 CTAs) and carries the tail.
  costs.memory_s = 2.0 * 2048 * 5632 / 4.0e12;
  const TilePlan down = cheapest_plan(1, 2048, 5632, 1, 132, peak, fixup_rate, costs);
  REQUIRE(down.split_k == 3);
  CHECK(down.cluster_split);
  CHECK(costs.stream_of(down) == test::approx(costs.memory_s + kClusterSplitTailS));
  CHECK(costs.time_of(down) == test::approx(costs.fixed_of(down) + costs.memory_s + kClusterSplitTailS));
  // The plan is chosen without the tail (cuBLASLt's heuristic does not see it): its choice price has none.
  CHECK(costs.priced_s(down) == test::approx(costs.fixed_of(down) + costs.memory_s));
  // Llama-3-8B's k / v at M = 1 (1024 x 4096): 3 ways on the clusters too, but 48 CTAs: their walk covers
  // most of the tail (h200-production: priced -1.9 % without it).
  costs.memory_s = 2.0 * 1024 * 4096 / 4.0e12;
  const TilePlan kv = cheapest_plan(1, 1024, 4096, 1, 132, peak, fixup_rate, costs);
  REQUIRE(kv.split_k == 3);
  CHECK(kv.cluster_split);
  CHECK(kv.cta_walk_s > costs.memory_s);
  CHECK(costs.time_of(kv) == test::approx(costs.fixed_of(kv) + std::max(kv.cta_walk_s, costs.memory_s + kClusterSplitTailS)));
  CHECK(costs.time_of(kv) - (costs.fixed_of(kv) + kv.cta_walk_s) < 0.5 * kClusterSplitTailS);
  // Llama-3-8B's o at M = 1 (4096 x 4096): 2 ways on every SM's 2-CTA grid, no tail.
  costs.memory_s = 2.0 * 4096 * 4096 / 4.0e12;
  const TilePlan o = cheapest_plan(1, 4096, 4096, 1, 132, peak, fixup_rate, costs);
  REQUIRE(o.split_k == 2);
  CHECK_FALSE(o.cluster_split);
  CHECK(costs.stream_of(o) == test::approx(costs.memory_s));
  // The router (N = 8): 1 weight-row tile, no 4-CTA cluster (cuBLASLt's 8x64 1x1 / 1x2), no tail.
  costs.memory_s = 2.0 * (128.0 * 4096 + 8.0 * 4096) / 4e12;
  CHECK_FALSE(cheapest_plan(128, 8, 4096, 1, 132, peak, fixup_rate, costs).cluster_split);
}

TEST_CASE("nvjet's 16-stage walk: a fill, then the load port's pace (branch compiled17)") {
  PlanCosts costs;
  costs.cta_walk_per_1024_k_s = 3.8e-6;
  costs.cta_walk_latency_share = 0.35;
  const double peak = 800e12;
  const TilePlan o = plan_tile(1, 2048, 2048, 1, Tile{8, 64}, 132, peak);         // TinyLlama's o, 32 CTAs, 2048 deep
  const TilePlan kv = plan_tile(1, 1024, 4096, 1, Tile{8, 64}, 132, peak, 3);     // Llama-3-8B's k / v, 3 splits, 1365 deep
  const TilePlan wide = plan_tile(1, 2048, 2048, 1, Tile{128, 128}, 132, peak);
  const double o_pace = costs.cta_walk_of(o, 132), kv_pace = costs.cta_walk_of(kv, 132), wide_pace = costs.cta_walk_of(wide, 132);
  // Without the split rule (gemm5's blocks) the pace alone: 2 x 3.8 x (0.35 + 0.65 x 72 / 256) us.
  CHECK(o_pace == test::approx(2 * 3.8e-6 * (0.35 + 0.65 * 72.0 / 256)));
  costs.split_k_min_slice = 1280;
  // The first 1024 of K a fill, the rest at the load port's share of the pace.
  const double port = 3.8e-6 * 0.65 * 72.0 / 256;
  CHECK(costs.cta_walk_of(o, 132) == test::approx(3.8e-6 * kNvjetFillShare + port));
  CHECK(costs.cta_walk_of(kv, 132) == test::approx(3.8e-6 * kNvjetFillShare + port * (std::ceil(4096.0 / 3) - 1024) / 1024));  // plan_tile rounds the slice up
  // What the kernels show (h200-compiled2, less the block's 2.01 us fixed): the 2048-deep walk under the
  // pace alone (5.66 us), the 1365-deep one over it (5.19 us): a fill, then a faster pace.
  CHECK(costs.cta_walk_of(o, 132) < o_pace);
  CHECK(costs.cta_walk_of(kv, 132) > kv_pace);
  // A walk shorter than the fill is all fill.
  const TilePlan short_k = plan_tile(1, 2048, 512, 1, Tile{8, 64}, 132, peak);
  CHECK(costs.cta_walk_of(short_k, 132) == test::approx(0.5 * 3.8e-6 * kNvjetFillShare));
  // Tiles of more operand rows (fewer stages) keep the pace alone.
  CHECK(costs.cta_walk_of(wide, 132) == test::approx(wide_pace));
}

TEST_CASE("cuBLASLt's narrow nvjet tiles with the split rule (branch gemm14, validation/results/h200-gemm14)") {
  // h200-gemm-small's kernel names (weight rows x tokens): the router (N = 8) runs 8x64 tiles split
  // 2 ways at M = 64-512, N = 512 runs 64x24 / 64x48 at M = 128-512, N = 2048 24x64 / 48x64 at
  // M = 64-128. Where the block gives the split rule they are candidates (tokens x weight rows here).
  const double peak = 800e12, fixup_rate = 64.0 * 1.98e9;
  PlanCosts costs;
  costs.fixed_s = 2.0e-6;
  costs.split_k_s = 1.64e-6;
  costs.cta_walk_per_1024_k_s = 3.8e-6;
  costs.cta_walk_latency_share = 0.35;
  costs.split_k_min_slice = 1536;
  costs.memory_s = 2.0 * (128.0 * 4096 + 8.0 * 4096) / 4e12;
  // The router at M = 128: one 64-token x 8-row tile a CTA pair, split 2 ways (cuBLASLt's 8x64 splitK).
  const TilePlan router = cheapest_plan(128, 8, 4096, 1, 132, peak, fixup_rate, costs);
  CHECK(router.tile.m == 64);
  CHECK(router.tile.n == 8);
  CHECK(router.split_k == 2);
  // Its walk paces 72 operand rows a K step where the nearest default tile (64x64) paces 128.
  const TilePlan square = plan_tile(128, 8, 4096, 1, Tile{64, 64}, 132, peak, 2);
  CHECK(costs.cta_walk_of(router, 132) < costs.cta_walk_of(square, 132));
  // Without the rule (gemm5's blocks) no narrow tile is offered.
  costs.split_k_min_slice = 0;
  const TilePlan old = cheapest_plan(128, 8, 4096, 1, 132, peak, fixup_rate, costs);
  CHECK(old.tile.n >= 64);
}

TEST_CASE("nvjet's MMA pace on tiles of at least 64x64 with the split rule (branch gemm15, validation/results/h200-gemm15)") {
  // gemm15_tile_eff.py: nvjet's 128x64 tiles run their MMA at 0.71-0.82 of the peak, 64x64 at 0.49-0.61
  // (kernel-only, one CTA an SM); the law reuse / 64 gives 0.67 and 0.50. Where the block gives the
  // split rule the knee is 57 (fitted on fit_gemm.py's fit half); without it, the law.
  const double peak = 800e12, fixup_rate = 64.0 * 1.98e9;
  PlanCosts costs;
  costs.fixed_s = 2.0e-6;
  costs.split_k_s = 1.64e-6;
  costs.cta_walk_per_1024_k_s = 3.8e-6;
  costs.cta_walk_latency_share = 0.35;
  costs.split_k_min_slice = 1536;
  costs.memory_s = 2.0 * 2048 * 2048 / 4e12;
  // h200-gemm-small's M = 512, N = 2048, K = 2048: cuBLASLt's 128x64 tile, 128 CTAs, 8.75 us.
  const TilePlan p = cheapest_plan(512, 2048, 2048, 1, 132, peak, fixup_rate, costs);
  CHECK(p.tile.m * p.tile.n == 128 * 64);
  CHECK(p.tile_efficiency == test::approx(128.0 * 64 / 192 / 57));
  CHECK(p.compute_time_s == test::approx(2.0 * 128 * 64 * 2048 / (peak / 132) / p.tile_efficiency));
  // The narrow tiles keep the law (their walk, not the MMA, prices them); 128x128 stays at 1.
  costs.memory_s = 2.0 * (128.0 * 4096 + 8.0 * 4096) / 4e12;
  const TilePlan router = cheapest_plan(128, 8, 4096, 1, 132, peak, fixup_rate, costs);
  CHECK(router.tile_efficiency == test::approx(64.0 * 8 / 72 / 64));
  // Without the rule (gemm5's blocks): the law.
  costs.split_k_min_slice = 0;
  costs.memory_s = 2.0 * 2048 * 2048 / 4e12;
  const TilePlan old = cheapest_plan(512, 2048, 2048, 1, 132, peak, fixup_rate, costs);
  CHECK(old.tile_efficiency == test::approx(std::min(1.0, static_cast<double>(old.tile.m * old.tile.n) / (old.tile.m + old.tile.n) / 64)));
}

// cuBLAS's fallback for rows not 16-byte aligned (gemm_unaligned_cost.cpp): GPT-2's tied LM head
// (vocab 50257) measured in validation/results/h200-unaligned16. Fitted on M = 1, 8, 512; the
// align1 kernels' M = 24 (the decode batch of h200-heldout16/hf) is held out here.
TEST_CASE("an unaligned output row is priced as cuBLAS's align1 fallback, not nvjet (h200-unaligned16)") {
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs roofs = make_roofs(test::catalogue().card("h200"), &cal);
  auto seconds = [&](int64_t m, int64_t n) {
    return price(ops::gemm("lm_head", m, n, 768, DType::bf16, DType::bf16, Precision::bf16), roofs, Impl::fused).time_s;
  };
  // Measured: 105.9 us unaligned, 23.4 us padded to 50304 (nvjet 384x24).
  CHECK(seconds(24, 50257) == doctest::Approx(105.9e-6).epsilon(0.10));
  CHECK(seconds(24, 50257) > 3.0 * seconds(24, 50304));
  // Aligned rows keep the TMA kernels' price (the padded vocabulary is unchanged by the fallback).
  CHECK(seconds(24, 50304) < 40e-6);
}

TEST_CASE("cuBLAS's sm90 xmma tf32 tiles: its tile choice, whole waves or a streamed last wave (branch tf32rule, h200-tf3217)") {
  const double peak = 414.4e12;  // the calibrated H200 tf32 peak (hardware/h200.calibration.yaml)
  struct Case {
    int64_t m, n, k, tm, tn;
    bool streamed;
  };
  // Kernel names of validation/results/h200-tf3217 (tilesize{tm}x{tn}, tm along the tokens; segment_k_on:
  // the partial wave streamed): one wave of 80 128x256 tiles run whole where 160 128x128 streamed would be
  // faster; 160 tiles of 128x256 streamed; 1152 tiles of 128x128; 128 tiles of 64x128 at N = K = 2048.
  for (const Case c : {Case{640, 4096, 4096, 128, 256, false}, Case{900, 5120, 14336, 128, 256, true},
                       Case{2000, 9216, 3072, 128, 128, false}, Case{512, 2048, 2048, 64, 128, false},
                       // past M 512 no 64-row tile: 140 tiles of 128x256 streamed, not 260 of 64x256 whole
                       Case{777, 5120, 14336, 128, 256, true}}) {
    CAPTURE(c.m);
    CAPTURE(c.n);
    const TilePlan p = xmma_tf32_plan(c.m, c.n, c.k, 1, 132, peak);
    CHECK(p.tile.m == c.tm);
    CHECK(p.tile.n == c.tn);
    CHECK(p.stream_k == c.streamed);
  }
  // The 64-row tiles of at most 128 columns run at about half the pace (one m64nN wgmma chain), 128x64 not.
  CHECK(xmma_tf32_pace(Tile{64, 128}) < 0.7);
  CHECK(xmma_tf32_pace(Tile{128, 64}) == test::approx(1.0));
  // Whole waves: one wave of 80 tiles costs a whole tile time, not 80 / 132 of one.
  const TilePlan one = xmma_tf32_plan(640, 4096, 4096, 1, 132, peak);
  CHECK(one.compute_time_s == test::approx(2.0 * 128 * 256 * 4096 / (peak / 132 * xmma_tf32_pace(Tile{128, 256}))));

  // Priced on the H200 (tf32 F.linear): 500 x 5120 x 5120 ran 80 tiles of 128x256 whole in 101.7 us
  // (h200-heldout17, never fitted on); the nvjet-fitted chooser priced 128x128 streamed at 67.9 us.
  const Card h200 = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs r = make_roofs(h200, &cal);
  const OpCost c = price(ops::gemm("qw14b_o", 500, 5120, 5120, DType::fp32, DType::fp32, Precision::tf32), r, Impl::fused);
  REQUIRE(c.tiling.has_value());
  CHECK(c.tiling->tile.name() == "128x256");
  CHECK_FALSE(c.tiling->stream_k);
  CHECK(c.time_s == doctest::Approx(101.7e-6).epsilon(0.10));
}

TEST_CASE("nvjet's one-wave tiles: the token side in steps of 8 that fills the SMs (branch nvjettile)") {
  // Kernel names, weight rows x tokens (tokens x weight rows here): h200-heldout18's Qwen2.5-1.5B q at
  // 777 x 1536 ran 128x72 (12 x 11 = 132 CTAs); Qwen2.5-32B TP2's o at 250 x 5120 ran 80x128 (64 x 2 = 128);
  // h200-gemm-small's Mistral q|k|v at 256 x 6144 ran 96x128 (64 x 2 = 128). Each is one of the candidates.
  auto has = [](const std::vector<Tile>& ts, Tile t) {
    return std::any_of(ts.begin(), ts.end(), [&](const Tile& o) { return o.m == t.m && o.n == t.n; });
  };
  CHECK(has(nvjet_fill_tiles(777, 1536, 1, 132), Tile{72, 128}));
  CHECK(has(nvjet_fill_tiles(250, 5120, 1, 132), Tile{128, 80}));
  CHECK(has(nvjet_fill_tiles(256, 6144, 1, 132), Tile{128, 96}));
  auto grid = [](int64_t m, int64_t n, Tile t) { return (m + t.m - 1) / t.m * ((n + t.n - 1) / t.n); };
  for (const Tile& t : nvjet_fill_tiles(777, 1536, 1, 132)) {
    CAPTURE(t.name());
    // One side whole warpgroups (64 rows), the other a multiple of 8; one wave.
    CHECK((t.m % 64 == 0 || t.n % 64 == 0));
    CHECK(t.m % 8 == 0);
    CHECK(t.n % 8 == 0);
    CHECK(grid(777, 1536, t) <= 132);
    // The step-8 side is the narrowest: one step less and the grid passes a wave.
    if (t.n % 64 == 0 && t.m % 64 != 0) CHECK(grid(777, 1536, Tile{t.m - 8, t.n}) > 132);
    if (t.m % 64 == 0 && t.n % 64 != 0) CHECK(grid(777, 1536, Tile{t.m, t.n - 8}) > 132);
  }
  // Batched grids count every matrix; a weight side whose grid alone passes the SMs offers nothing.
  CHECK(nvjet_fill_tiles(777, 1536, 200, 132).empty());

  // Priced on the H200: h200-gemm-small's Mistral q|k|v, 256 x 6144 x 4096, 21.70 us on nvjet's 96x128 tile
  // (128 CTAs). The committed fused block offers the fill tiles (its knee's pace capped at kNvjetFillPaceCap);
  // the eager block since branch eagertile too (branch nvjettile's opt-in, now the default); with the key
  // cleared, the fixed set (before nvjettile both priced 128x128 / 256x128 grids: fused +13.6 %).
  const Card h200 = test::catalogue().card("h200");
  const Calibration committed = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Op op = ops::gemm("mistral_qkv", 256, 6144, 4096, DType::bf16, DType::bf16, Precision::bf16);
  const OpCost fused = price(op, make_roofs(h200, &committed, Impl::fused), Impl::fused);
  REQUIRE(fused.tiling.has_value());
  CHECK(fused.tiling->tile.name() == "128x96");
  CHECK(fused.tiling->tiles == 128);
  CHECK(fused.tiling->tile_efficiency == test::approx(kNvjetFillPaceCap));
  CHECK(fused.time_s == doctest::Approx(21.70e-6).epsilon(0.08));
  const OpCost eager = price(op, make_roofs(h200, &committed, Impl::eager), Impl::eager);
  REQUIRE(eager.tiling.has_value());
  CHECK(eager.tiling->tile.name() == "128x96");
  Roofs no_fill = make_roofs(h200, &committed, Impl::eager);
  no_fill.gemm_nvjet_fill_tiles = 0;
  const OpCost fixed = price(op, no_fill, Impl::eager);
  REQUIRE(fixed.tiling.has_value());
  CHECK(fixed.tiling->tile.m % 64 == 0);
  CHECK(fixed.tiling->tile.n % 64 == 0);
  CHECK(eager.time_s < fixed.time_s);
  // The card-level block (no walk priced) keeps the default tiles.
  PlanCosts bare;
  const TilePlan p = cheapest_plan(256, 6144, 4096, 1, 132, 800e12, 64.0 * 1.98e9, bare);
  CHECK(p.tile.m % 64 == 0);
  CHECK(p.tile.n % 64 == 0);
}

// A split plan's splitKreduce is one small elementwise kernel: a floor and one sweep. A calibration measures
// them apart (the H200's kernel_floor 0.51 us, the smallest kernel; pass_latency 0.91 us, the memory ramp's
// excess over it); uncalibrated, kernel_floor is the card's launch_overhead, the smallest elementwise kernel
// whole (hardware/*.yaml: "measured 1.0-1.5 us on the lent H200"), its sweep already in. Branch monotone2: the
// sweep counted twice priced GPT-2 XL's 16-row c_attn (4800 x 1600, split 4) 1.0 us over its 128-row stream-K
// hybrid on the uncalibrated B200, and its prefill step at ctx 16 over ctx 128 (tests/test_properties.cpp).
TEST_CASE("a split-K plan's reduce: the kernel floor alone uncalibrated, floor + one sweep where both are measured") {
  const Op qkv = ops::gemm("c_attn", 16, 4800, 1600, DType::bf16, DType::bf16, Precision::bf16);
  const Card b200 = test::catalogue().card("b200");
  const Roofs datasheet = make_roofs(b200, nullptr);
  const OpCost split = price(qkv, datasheet, Impl::fused);
  REQUIRE(split.tiling.has_value());
  REQUIRE(split.tiling->split_k > 1);
  const double walk = datasheet.gemm_fixed_per_k_s * split.tiling->k_per_cta / 1024.0;
  CHECK(split.overhead_time_s ==
        test::approx(datasheet.kernel_floor_s + datasheet.gemm_fixed_s + walk + datasheet.kernel_floor_s));
  // A calibrated card whose profile has no GEMM block prices GEMMs on the card keys and no reduce key:
  // floor + sweep. The H200's three profiles all carry one since branch compdef; its compiled block
  // removed here stands for such a profile.
  const Card h200 = test::catalogue().card("h200");
  Calibration cal = load_calibration(test::catalogue().calibration_path("h200"));
  for (ProfileCalibration& p : cal.profiles)
    if (p.name == "compiled") p.gemm = ProductionGemm{};
  const Roofs compiled = make_roofs(h200, &cal, Impl::compiled);
  REQUIRE(compiled.gemm_split_k_s < 0);
  const OpCost c = price(qkv, compiled, Impl::compiled);
  REQUIRE(c.tiling.has_value());
  REQUIRE(c.tiling->split_k > 1);
  CHECK(c.overhead_time_s == test::approx(compiled.kernel_floor_s + compiled.gemm_fixed_s +
                                          compiled.gemm_fixed_per_k_s * c.tiling->k_per_cta / 1024.0 +
                                          compiled.kernel_floor_s + compiled.pass_latency_s));
  // GPT-2 XL's c_attn and c_fc on the B200: the 16-row split plan within a floor of the 128-row hybrid (it
  // was floor + sweep over it; the rest, 0.2-0.3 us, is the split's own K-loop and stream, left: branch monotone2).
  for (int64_t n : {4800, 6400}) {
    CAPTURE(n);
    const double t16 = price(ops::gemm("g", 16, n, 1600, DType::bf16, DType::bf16, Precision::bf16), datasheet, Impl::fused).time_s;
    const double t128 = price(ops::gemm("g", 128, n, 1600, DType::bf16, DType::bf16, Precision::bf16), datasheet, Impl::fused).time_s;
    CHECK(t16 - t128 < 0.5 * datasheet.kernel_floor_s);
  }
}
