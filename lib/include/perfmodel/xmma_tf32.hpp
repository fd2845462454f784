#pragma once
// cuBLAS's tf32 GEMMs on Hopper (branch tf32rule, validation/results/h200-tf3217): F.linear on fp32 with
// allow_tf32 runs `sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize{tm}x{tn}x32` kernels (tm along the
// tokens, tn along the weight rows), not nvjet. Each tile walks all of K; the grid runs in whole waves
// unless the kernel is the `execute_segment_k_on` one (a workspace Memset before it), which streams its
// partial last wave. cuBLAS's tile choice does not minimise the time a wave model gives: it ranks tiles
// with a pull toward large ones (xmma_tf32_plan says how, and what is fitted).
#include <cstdint>
#include <vector>

#include "perfmodel/gemm_tiling.hpp"

namespace perfmodel {

// The tiles cuBLAS's sm90 tf32 xmma kernels come in (kernel names of h200-tf3217, h200-heldgemm17).
const std::vector<Tile>& xmma_tf32_tiles();

// MMA pace of an xmma tf32 tile relative to the calibrated tf32 peak: 1.04 for the two-warpgroup
// 128x256 / 256x128, 1 for the other tiles of 128 token rows or 256 weight rows, 0.58 for the 64-row
// tiles of at most 128 columns.
double xmma_tf32_pace(const Tile& t);

// The smallest M the rule prices: below it cuBLAS runs cutlass split-K kernels or 64x64 tiles fed
// by the weight stream (left to the general plan).
inline constexpr int64_t kXmmaMinRows = 17;

// The plan cuBLAS runs for a tf32 GEMM: the tile its ranking takes, in whole waves or with the partial
// last wave streamed (TilePlan::stream_k), compute_time_s at `peak_flops` x the tile's pace.
TilePlan xmma_tf32_plan(int64_t m, int64_t n, int64_t k, int64_t batch, int sm_count, double peak_flops);

}  // namespace perfmodel
