// cuBLAS's CUTLASS sm80 split-K tf32 GEMMs (cutlass_tf32_split.hpp). Measured: validation/results/
// h200-tf32split (96 F.linear calls, M 8-64, weights 0.5-12 M elements, 2026-12-03); fit on its even
// cases and h200-tf3217's 32 x 2048 x 2048; h200-heldout17 / 19 / 20's CUTLASS calls are the check.
#include "perfmodel/cutlass_tf32_split.hpp"

#include <algorithm>

namespace perfmodel {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// The xmma 64x64 grid cuBLAS takes whatever the weight's size: N / 64 tiles from 64 on (half the
// H200's SMs). h200-tf32split: 4096 x 1024 runs xmma from M 24 (CUTLASS at M 8 / 16), 3584 x 3072 and
// 8192 x 1024 always; N 2560 (40 tiles) and below run CUTLASS at M <= 32 up to 2^23 elements; N 3072
// (48 tiles) is mixed (CUTLASS at M <= 32, xmma at 48 / 64): the boundary lies in 49-64 tiles.
constexpr int64_t kXmmaMinGridTiles = 64;

// The largest weight (N x K elements) CUTLASS split-K runs: 2^23. Past it cuBLAS takes the xmma kernel
// with its K streamed (segment_k_on: h200-heldout19 13 x 2560 x 8192, h200-tf3217 32 x 3072 x 6144);
// h200-tf32split's 1024 x 8192 and 2048 x 4096 (2^23) run CUTLASS, 2560 x 4096 (1.25 x 2^23) runs
// CUTLASS at M <= 32 and xmma at 48 / 64 (the rule's misses: 3 calls).
constexpr int64_t kCutlassMaxWeight = int64_t{1} << 23;

// A slice is at least 4 of the kernel's 32-deep K stages: the split count that fills the SMs is
// floor(SMs / tiles) (the splitKreduce's growth with M: +0.34 us predicted / +0.37 measured at
// 1024 x 1024 from M 16 to 64, 8 slices; +0.68 / +0.61 at 1024 x 8192, 16 slices).
constexpr int64_t kMinSliceK = 128;

// The 128-row tile from K 4096 on (h200-tf32split: 512 x 8192, 1024 x 4096, 1024 x 8192, 2048 x 4096,
// 2560 x 4096; h200-heldout20 1024 x 5120), 64 rows below (K 512-3072; 768 x 3072 at M 48 / 64 is the
// exception). It sets the slice count, hence the reduce's partials.
constexpr int64_t kWideTileMinK = 4096;

// sm80's mma.sync m16n8k8 tf32 on Hopper: the 64-row xmma tiles' pace (xmma_tf32.cpp, 0.58) is an upper
// bound; these products are bound by the weight stream, so the pace only matters for the plan's compute.
constexpr double kMmaSyncPace = 0.5;

// Fitted: median of (measured - the price without it) over the even-index CUTLASS calls of
// h200-tf32split and h200-tf3217's 32 x 2048 x 2048 (fused profile), validation/scripts/production/
// tf32split_fit.py. The default where a profile gemm block gives no `cutlass_tf32_fixed` (the fused block
// gives this value, the eager block 0.8 us under its 3.5 us split_k_reduce).
constexpr double kCutlassSplitFixedS = 2.4e-6;
}  // namespace

bool cutlass_tf32_split_runs(int64_t m, int64_t n, int64_t k) {
  if (m < 8 || m > 64) return false;
  if (ceil_div(n, 64) >= kXmmaMinGridTiles) return false;
  return n * k <= kCutlassMaxWeight;
}

TilePlan cutlass_tf32_split_plan(int64_t m, int64_t n, int64_t k, int64_t batch, int sm_count, double peak_flops) {
  const Tile tile{64, k >= kWideTileMinK ? 128 : 64};  // tokens x weight rows, as Tile is
  const int64_t grid = ceil_div(m, tile.m) * ceil_div(n, tile.n) * std::max<int64_t>(1, batch);
  const int64_t by_sms = std::max<int64_t>(1, sm_count / std::max<int64_t>(1, grid));
  const int64_t by_k = std::max<int64_t>(1, k / kMinSliceK);
  const int64_t split = std::min(by_sms, by_k);
  TilePlan p = plan_tile(m, n, k, batch, tile, sm_count, peak_flops, split);
  p.ctas_per_sm = 1;
  p.tile_efficiency = kMmaSyncPace;
  const double per_sm = static_cast<double>(ceil_div(p.tiles, sm_count));
  p.compute_time_s = per_sm * 2.0 * static_cast<double>(tile.m * tile.n) * p.k_per_cta / (peak_flops / sm_count * kMmaSyncPace);
  return p;
}

double cutlass_tf32_split_fixed_s() { return kCutlassSplitFixedS; }

}  // namespace perfmodel
