// torch._grouped_mm as PyTorch eager runs it (transformers 5's grouped_mm experts): CUTLASS's sm90
// grouped GEMM (GemmUniversal over a GroupProblemShape, KernelPtrArrayTmaWarpSpecializedPingpong,
// tile 64 x 128, cluster 2 x 1: the kernel names in h200-moe/hf.json) after
// prepare_grouped_gemm_data. The kernel is persistent: at most one CTA per SM walks the tiles of
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
#include <algorithm>
#include <cmath>

#include "kernel_costs.hpp"

namespace perfmodel {

namespace {
constexpr int64_t kTileM = 64, kTileN = 128;  // PyTorch's bf16 sm90 grouped-GEMM configuration
}

GroupedMmTiles grouped_mm_tiles(const Op& op, int64_t sm_count) {
  GroupedMmTiles t;
  const int64_t rows = op.gemm.m;  // rows per touched expert (grouped_gemm.cpp)
  t.tiles = op.gemm.batch * ((rows + kTileM - 1) / kTileM) * ((op.gemm.n + kTileN - 1) / kTileN);
  t.ctas = std::max<int64_t>(1, std::min(t.tiles, sm_count));
  t.waves = (t.tiles + t.ctas - 1) / t.ctas;
  t.rows_per_tile = std::min(rows, kTileM);
  t.cols_per_tile = std::min(op.gemm.n, kTileN);
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
  const int64_t row_tiles = std::max<int64_t>(1, (op.gemm.m + kTileM - 1) / kTileM);  // per touched expert
  const double fetched =
      tile_bytes * static_cast<double>(row_tiles) / static_cast<double>(std::min<int64_t>(2, row_tiles));
  const double tile_flops = 2.0 * static_cast<double>(g.rows_per_tile) * static_cast<double>(g.cols_per_tile) *
                            static_cast<double>(op.gemm.k);
  const double sm_peak = effective_peak(r, op.precision) / r.card.sm_count;
  const double waves = static_cast<double>(g.waves);
  KernelTimes t;
  t.fixed_s = a.grouped_mm_floor_s;
  t.memory_s =
      waves * (fetched / a.grouped_mm_cta_rate + tile_bytes * static_cast<double>(g.ctas) / a.grouped_mm_stream);
  t.compute_s = waves * tile_flops / sm_peak;
  TilePlan plan;  // what `perfmodel ops` reports: the 64 x 128 tiles and their waves
  plan.tile = {kTileM, kTileN};
  plan.tiles = g.tiles;
  plan.waves = g.waves;
  plan.wave_efficiency = static_cast<double>(g.tiles) / (waves * static_cast<double>(r.card.sm_count));
  plan.compute_time_s = t.compute_s;
  plan.k_per_cta = static_cast<double>(op.gemm.k);
  t.tiling = plan;
  return t;
}

}  // namespace perfmodel
