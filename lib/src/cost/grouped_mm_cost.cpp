// torch._grouped_mm as PyTorch eager runs it (transformers 5's grouped_mm experts): CUTLASS's sm90
// grouped GEMM (GemmUniversal over a GroupProblemShape, KernelPtrArrayTmaWarpSpecializedPingpong,
// tile 64 x 128 x 64, cluster 2 x 1: the kernel names in h200-moe/hf.json) after
// prepare_grouped_gemm_data. The kernel is persistent: at most one CTA per SM walks the tiles of
// every expert one after another. At decode a few touched experts give fewer tiles than SMs
// (Qwen3 T = 1: 8 experts x 12 column tiles = 96 CTAs): the weights stream at the rate those CTAs
// reach, not the card's (h200-moe README, item 3). Per wave of tiles: a streaming tile's fixed
// latency (pipeline fill, epilogue) plus its share of the op's DRAM bytes at min(one CTA's rate,
// the card's stream shared by the CTAs), or its MMA work at the SM's share of the GEMM peak.
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
  const AtenKernels& a = r.aten;
  if (!a.grouped_mm_measured() || force_tile || op.gemm.batch < 1) return gemm_cost(op, r, force_tile);
  const GroupedMmTiles g = grouped_mm_tiles(op, r.card.sm_count);
  // What one tile streams from DRAM: the op's bytes over its tiles (an expert's weight slab is
  // read once; its further row tiles hit it in L2).
  const double tile_bytes = op.bytes() / static_cast<double>(g.tiles);
  const double rate = std::min(a.grouped_mm_cta_rate, r.read_bandwidth * r.gemm_stream_efficiency / g.ctas);
  const double tile_flops = 2.0 * static_cast<double>(g.rows_per_tile) * static_cast<double>(g.cols_per_tile) *
                            static_cast<double>(op.gemm.k);
  const double sm_peak = effective_peak(r, op.precision) / r.card.sm_count;
  const double waves = static_cast<double>(g.waves);
  KernelTimes t;
  t.fixed_s = a.grouped_mm_floor_s;
  // A streaming tile waits its pipeline's fill and epilogue; an MMA-bound one hides them
  // (ping-pong warp groups).
  t.memory_s = waves * (a.grouped_mm_tile_latency_s + tile_bytes / rate);
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
