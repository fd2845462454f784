// torch._grouped_mm as PyTorch eager runs it (transformers 5's grouped_mm experts): CUTLASS's sm90
// grouped GEMM (GemmUniversal over a GroupProblemShape, cluster 2 x 1) after
// prepare_grouped_gemm_data. PyTorch's GroupMM.cu (dispatch_bf16_grouped_kernel_on_tile_size)
// picks the kernel from the MEAN rows over ALL the weight's experts (the routed rows / E, not
// over the touched ones) and N: M <= 128 or N <= 128 runs KernelPtrArrayTmaWarpSpecializedPingpong
// with 64 x 128 tiles, anything larger KernelPtrArrayTmaWarpSpecializedCooperative with 128 x 256
// (h200-moe5: the kernel names at T = 128-4096 for three models follow this rule exactly). The
// 2 x 1 cluster's two CTAs take adjacent M tiles of one expert, so an expert with more than one
// M tile occupies an even number (a third tile brings its idle partner: DeepSeek-V2-Lite's 192
// rows on the pingpong kernel cost four 64-row tiles, h200-moe5 forced_pingpong). The MMA term
// runs at a kernel's own share of the GEMM peak: the pingpong kernel's two consumer warpgroups
// alternate on 64-row tiles (0.65 of the peak compute-bound, Mixtral's 512 rows per expert
// forced onto it), the cooperative kernel's split one 128-row tile (0.97). Tiles follow each
// expert's rows, which a router makes binomial, not balanced (expected_row_tiles).
// The kernel is persistent: at most one CTA per SM walks the tiles of
// every expert one after another, its producer warp running ahead across tiles, so a tile's
// pipeline fill overlaps the previous tile's K-loop and is paid once per CTA (in the floor: a
// per-tile fill fitted to 0 on the kernel cases, h200-moe-fused/README.md).
// A streaming tile takes two terms, summed (a CTA keeps a fixed number of bytes in flight, so
// its stream is latency-bound alone and slows as the card's DRAM queue fills):
//   - its own K-loop: the weight slab it fetches at one CTA's unloaded rate (Little's law: stages
//     in flight / DRAM latency). With two or more 64-row tiles per expert, the 2 x 1 cluster's
//     CTAs take adjacent row tiles of one column tile and each fetches half the slab (TMA
//     multicast);
//   - the card's stream: the wave's bytes (its CTAs' tiles) at the kernel's DRAM rate.
// Or its MMA work at the SM's share of the GEMM peak. Waves of 132 SMs follow the tiles per
// expert; few CTAs (decode's few touched experts) leave the per-CTA term alone: Mixtral's T = 1
// down projection walks K = 14336 on 64 CTAs at ~45 GB/s each, Qwen3's full card at ~23.
// Full pairs (h200-moe6): CUTLASS's group scheduler rounds an expert's M tiles up to the cluster
// (sm90_tile_scheduler_group.hpp: problem_blocks_m = round_up(ctas_along_m, 2)), so 1-64 rows run
// the same CTA pairs as 128, the partner's A rows out of bounds. At the same DRAM bytes (Nsight
// Compute: 1.88-1.90 GB at 8, 64 and 128 rows on Mixtral's gate_up) pairs whose rows fill them
// keep DRAM 78-81 % busy, pairs with 64 rows or fewer 57-63 %: 128 rows run 1.28x faster than 8
// at Mixtral's shapes, 96 nearly as fast, 65 as slow as 64. The pingpong kernel's tiles in full
// pairs therefore stream the op's bytes at `grouped_mm_full_pair_stream` with no per-CTA term. A
// router's rows do not: h200-moe5's random-router cases at a mean of 128 rows per expert run at
// the partial-pair rate (Qwen3's 1.36x the balanced time), so only exact rows (the same on every
// expert) earn the credit; why a mixture of full and partial pairs does not was not isolated.
#include <algorithm>
#include <cmath>

#include "kernel_costs.hpp"

namespace perfmodel {

namespace {

// An expert's M tiles for r rows: ceil(r / tile_m), past one tile an even number (cluster pairs).
double pair_tiles(int64_t r, int64_t tile_m) {
  const int64_t t = (r + tile_m - 1) / tile_m;
  return static_cast<double>(t > 1 ? t + t % 2 : t);
}

// The expected M tiles of a touched expert when a uniform router sends each of T tokens to it
// with probability k / E: its rows are Binomial(T, k / E), conditioned on at least one. A step's
// rows straddle the tile boundaries (h200-moe5: a random router's 469-546 rows per Mixtral
// expert cost 1.29x the balanced 512, its third 256-row pair on half the experts); at decode
// (a few rows, one tile) this is 1. Sums the pmf within 12 standard deviations of the mean.
double expected_row_tiles(int64_t tokens, int64_t top_k, int64_t experts, int64_t rows, int64_t tile_m) {
  const double T = static_cast<double>(tokens);
  const double p = static_cast<double>(top_k) / static_cast<double>(experts);
  if (tokens < 1 || top_k < 1 || experts < 1 || !(p < 1)) return pair_tiles(rows, tile_m);
  const double mean = T * p, sd = std::sqrt(T * p * (1 - p));
  const int64_t lo = std::max<int64_t>(1, static_cast<int64_t>(std::floor(mean - 12 * sd)));
  const int64_t hi = std::min<int64_t>(tokens, static_cast<int64_t>(std::ceil(mean + 12 * sd)));
  // At most ~4096 evaluations (a huge prefill's wide spread is sampled at an even stride).
  const int64_t stride = std::max<int64_t>(1, (hi - lo) / 4096);
  const double log_t = std::lgamma(T + 1), log_p = std::log(p), log_q = std::log1p(-p);
  double mass = 0, tiles = 0;
  for (int64_t r = lo; r <= hi; r += stride) {
    const double x = static_cast<double>(r);
    const double w = std::exp(log_t - std::lgamma(x + 1) - std::lgamma(T - x + 1) + x * log_p + (T - x) * log_q);
    mass += w;
    tiles += w * pair_tiles(r, tile_m);
  }
  return mass > 0 ? tiles / mass : pair_tiles(rows, tile_m);
}

// The share of an expert's tiles that stream as a full pair, for r rows on the pingpong kernel:
// its one pair (2 x 64 rows) counts in full from 3/4 of its rows real, not below 1/2, linearly
// between (h200-moe6's rows sweep: 96 rows stream within 6 % of 128, 65 within 4 % of 64). Experts
// of two or more pairs (192-1024 rows: h200-moe5's forced-pingpong cases, MMA-heavy) keep the two
// terms and the fitted MMA share: the credit moved their 256-384-row cases from -3 % to -17 %.
double full_pair_share(int64_t r, int64_t tile_m) {
  if (pair_tiles(r, tile_m) != 2) return 0;  // one tile (its partner out of bounds), or several pairs
  const double fill = static_cast<double>(r) / (2.0 * static_cast<double>(tile_m));
  return std::clamp((fill - 0.5) / 0.25, 0.0, 1.0);
}

// Whether every expert's rows are the op's rows exactly: no router (a plain grouped GEMM), or
// the balanced construction (each of `tokens` rows picking all experts, p = 1).
bool exact_rows(const Op& op) {
  return op.moe.tokens < 1 || op.moe.top_k < 1 || op.moe.experts < 1 || op.moe.top_k >= op.moe.experts;
}

}  // namespace

GroupedMmTiles grouped_mm_tiles(const Op& op, int64_t sm_count) {
  GroupedMmTiles t;
  const int64_t rows = op.gemm.m;  // rows per touched expert (grouped_gemm.cpp)
  // GroupMM.cu's M: the routed rows over every expert of the weight (op.moe), else per group.
  const double mean_rows = op.moe.experts > 0 ? static_cast<double>(op.moe.tokens) * static_cast<double>(op.moe.top_k) /
                                                    static_cast<double>(op.moe.experts)
                                              : static_cast<double>(rows);
  t.cooperative = mean_rows > 128 && op.gemm.n > 128;
  t.tile_m = t.cooperative ? 128 : 64;
  t.tile_n = t.cooperative ? 256 : 128;
  t.row_tiles = expected_row_tiles(op.moe.tokens, op.moe.top_k, op.moe.experts, rows, t.tile_m);
  if (!t.cooperative && exact_rows(op)) t.full_pair_share = full_pair_share(rows, t.tile_m);
  t.tiles = static_cast<int64_t>(std::ceil(static_cast<double>(op.gemm.batch) * t.row_tiles - 1e-9)) *
            ((op.gemm.n + t.tile_n - 1) / t.tile_n);
  t.ctas = std::max<int64_t>(1, std::min(t.tiles, sm_count));
  t.waves = (t.tiles + t.ctas - 1) / t.ctas;
  t.rows_per_tile = std::min(rows, t.tile_m);
  t.cols_per_tile = std::min(op.gemm.n, t.tile_n);
  return t;
}

KernelTimes grouped_gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  // The fused profile's engine runs vLLM's fused_moe kernel (fused_moe_cost.cpp).
  if (r.fused_moe.measured() && !force_tile && op.gemm.batch >= 1 && op.gemm.m >= 1) return fused_moe_gemm_cost(op, r);
  const AtenKernels& a = r.aten;
  if (!a.grouped_mm_measured() || force_tile || op.gemm.batch < 1 || op.gemm.m < 1) return gemm_cost(op, r, force_tile);
  const GroupedMmTiles g = grouped_mm_tiles(op, r.card.sm_count);
  // What one tile streams from DRAM: the op's bytes over its tiles (an expert's weight slab is
  // read once; its further row tiles hit it in L2 or share it by multicast).
  const double tile_bytes = op.bytes() / static_cast<double>(g.tiles);
  const double row_tiles = std::max(1.0, g.row_tiles);  // per touched expert
  const double fetched = tile_bytes * row_tiles / std::min(2.0, row_tiles);
  const double tile_flops = 2.0 * static_cast<double>(g.rows_per_tile) * static_cast<double>(g.cols_per_tile) *
                            static_cast<double>(op.gemm.k);
  const double share = g.cooperative ? a.grouped_mm_cooperative_mma_share : a.grouped_mm_pingpong_mma_share;
  const double sm_peak = effective_peak(r, op.precision) * share / r.card.sm_count;
  const double waves = static_cast<double>(g.waves);
  KernelTimes t;
  t.fixed_s = a.grouped_mm_floor_s;
  t.fixed_parts = {{"grouped GEMM floor (prepare_grouped_gemm_data and the persistent kernel's fill)", t.fixed_s, "aten"}};
  t.memory_s =
      waves * (fetched / a.grouped_mm_cta_rate + tile_bytes * static_cast<double>(g.ctas) / a.grouped_mm_stream);
  if (g.full_pair_share > 0 && a.grouped_mm_full_pair_stream > 0)  // full pairs: the stream alone
    t.memory_s = (1 - g.full_pair_share) * t.memory_s + g.full_pair_share * op.bytes() / a.grouped_mm_full_pair_stream;
  t.compute_s = waves * tile_flops / sm_peak;
  TilePlan plan;  // what `perfmodel ops` reports: the kernel's tiles and their waves
  plan.tile = {g.tile_m, g.tile_n};
  plan.tiles = g.tiles;
  plan.waves = g.waves;
  plan.wave_efficiency = static_cast<double>(g.tiles) / (waves * static_cast<double>(r.card.sm_count));
  plan.compute_time_s = t.compute_s;
  plan.k_per_cta = static_cast<double>(op.gemm.k);
  t.tiling = plan;
  return t;
}

}  // namespace perfmodel
