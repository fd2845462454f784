// cuBLAS's sm90 xmma tf32 GEMMs: its tile choice and when it streams the partial wave (xmma_tf32.hpp).
// Fitted on the even-index cases of validation/results/h200-tf3217 (48 named kernels); the odd half,
// h200-heldout16 and h200-heldout17 are the check (validation/results/h200-tf32rule/README.md).
#include "perfmodel/xmma_tf32.hpp"

#include <cmath>

namespace perfmodel {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// The 64-token-row tiles of 64 or 128 weight rows run one warpgroup of m64nN wgmmas per K step and reach
// about 0.58 of the calibrated tf32 peak (busiest SM's whole tiles over the measured time less a 4 us
// fixed cost: 64x64 0.52-0.64, 64x128 0.55-0.67 on the fit half's compute-bound cases), where 128x64
// (0.90-0.98), 64x256 (0.79-1.05), 128x128 (0.70-1.07) and the 2-warpgroup 128x256 / 256x128 (0.95-1.12)
// run at the peak. Not the reuse law (tm tn / (tm + tn)): 128x64 and 64x128 have the same reuse.
constexpr double kXmmaNarrowPace = 0.58;

// The two-warpgroup tiles (128x256, 256x128: warpgroupsize2x1x1 in the name) run a little past the
// calibrated peak, which was measured on another kernel: 1.04 of it, the fit half's best (median
// 8.3 -> 8.1 %, p90 22.6 -> 21.8 % over 1.0; grid 1.00-1.06). Their unthrottled rates: 1.01-1.12.
constexpr double kTwoWarpgroupPace = 1.04;

// cuBLAS streams the last wave (segment-K) only when it is a small share of the SMs behind at least one
// full wave: h200-tf3217's segment_k_on grids leave 6-45 % of a wave (140, 144, 160, 168, 192 tiles),
// its whole-wave ones past one wave 36-94 % (180, 224, 240, 252, 256).
constexpr double kStreamMaxPartialShare = 0.5;

// A streamed partial wave runs 1.2x its ideal share of the SMs (fixup through the workspace, the
// streamed CTAs' K split): measured / ideal 1.03-1.34 on the fit half's segment_k_on grids.
constexpr double kStreamedOverhead = 1.2;

// cuBLAS's ranking (2 numbers fitted on the even half's tile names and times: most of hit share - median
// - p90/2 of the time error, grid over both): each tile costs its waves (or its streamed share of the SMs
// x kRankedStream) x its tile's MMA work (tm tn K), over (tile area / 128x256)^kLargeTilePull. It does not
// weigh the pace above (ranking by it fits worse: check-set p90 26 % on h200-heldout17 against 13 %), and
// the pull toward large tiles is why cuBLAS runs 80 tiles of 128x256 in one wave at 500 x 5120 x 5120
// (h200-heldout17, 101.7 us) where 160 streamed 128x128 tiles would be faster.
constexpr double kLargeTilePull = 0.325;

// cuBLAS offers its 64-token-row tiles only to short M: the fit half runs them at M <= 400 and never at
// 640-4096 (where the ranking alone would take 64x256 at 400-777 x 5120 x 14336 and 400 x 9216 x 3072).
// Past this M they are not candidates; 512 (the sweep's next M past 400) and 1024 tie on the fit half
// (8.0 / 21.8 %, 32 of 48 tiles), 384 fits worse (31 of 48).
constexpr int64_t kMaxRowsFor64RowTiles = 512;
constexpr double kRankedStream = 1.4;

}  // namespace

const std::vector<Tile>& xmma_tf32_tiles() {
  // Ties go to the earlier tile: 128x256 is the one cuBLAS runs most (h200-tf3217: 36 of 97 calls), and
  // 64x128 before 128x64 (h200-tf3217 at M 400 / 512 on N = K = 2048, h200-heldout17 at M 500).
  static const std::vector<Tile> tiles{{128, 256}, {256, 128}, {128, 128}, {64, 256},
                                       {256, 64},  {64, 128},  {128, 64},  {64, 64}};
  return tiles;
}

double xmma_tf32_pace(const Tile& t) {
  if (t.m * t.n >= 128 * 256) return kTwoWarpgroupPace;
  return (t.m >= 128 || t.n >= 256) ? 1.0 : kXmmaNarrowPace;
}

TilePlan xmma_tf32_plan(int64_t m, int64_t n, int64_t k, int64_t batch, int sm_count, double peak_flops) {
  TilePlan best;
  bool have = false;
  double best_rank = 0;
  for (const Tile& t : xmma_tf32_tiles()) {
    if (t.m == 64 && m > kMaxRowsFor64RowTiles) continue;
    TilePlan p = plan_tile(m, n, k, batch, t, sm_count, peak_flops);
    const double pace = xmma_tf32_pace(t);
    const double tile_time = 2.0 * static_cast<double>(t.m * t.n) * static_cast<double>(k) / (peak_flops / sm_count * pace);
    p.tile_efficiency = pace;
    p.ctas_per_sm = 1;  // one xmma CTA an SM (the rates above are per SM, whole tiles)
    const int64_t full = p.tiles / sm_count;
    const int64_t rem = p.tiles - full * sm_count;
    const bool stream = full >= 1 && rem > 0 && static_cast<double>(rem) < kStreamMaxPartialShare * sm_count;
    const double share = static_cast<double>(p.tiles) / sm_count;
    const double waves = static_cast<double>(ceil_div(p.tiles, sm_count));
    p.waves = static_cast<int64_t>(waves);
    p.stream_k = stream;
    p.compute_time_s = (stream ? share * kStreamedOverhead : waves) * tile_time;
    p.wave_efficiency = share * tile_time / p.compute_time_s;
    const double pull = std::pow(static_cast<double>(t.m * t.n) / (128.0 * 256.0), kLargeTilePull);
    const double rank = (stream ? share * kRankedStream : waves) * static_cast<double>(t.m * t.n) / pull;
    if (!have || rank < best_rank * (1 - 1e-9)) {
      best = p;
      best_rank = rank;
      have = true;
    }
  }
  return best;
}

}  // namespace perfmodel
