#pragma once
// cuBLASLt's nvjet kernels on Hopper: their split-K count, read off kernel names and grids (branch compiled17;
// validation/scripts/production/compiled17_splits.py: fitted on validation/results/h200-block11, held out on
// h200-compiled2's traces). gemm_tiling.cpp's cheapest_plan runs it where a profile's block gives
// split_k_min_slice.
#include <cstdint>

namespace perfmodel {

// A grid of 4-CTA clusters (`nvjet_..._4x1_..._splitK`) reaches at most this share of the SMs (112 of 132:
// Qwen2.5-7B's down, 14 tiles x 8 and 19 x 5 where 6 would be 114; TinyLlama's down 32 x 3, not 4).
inline constexpr int64_t kClusterGridNumerator = 112;
inline constexpr int64_t kClusterGridDenominator = 132;
// cuBLASLt widens to a 2-CTA cluster grid over every SM only where that shortens each CTA's K slice by at
// least this much (Llama-3-8B's down: 14336 / 3 - 14336 / 4 = 1195, taken; Llama-2-7B's 11008 / 3 -
// 11008 / 4 = 917, not taken). 1024: one ring of nvjet's 16 stages of 64.
inline constexpr double kWiderGridMinGainK = 1024;

// nvjet's 16-stage tiles (64 weight rows by 8-32 token rows) put their first 16 x 64 of K in flight at
// once: that fill costs this share of a 128x128 tile's walk of 1024 (cta_walk_per_1024_k), whatever the
// tile; after it the stages hide the latency and the walk paces at the load port (gemm_tiling.cpp,
// PlanCosts::cta_walk_of). Fitted (least rms log error over 0.65, 0.70, 0.75, 0.80, 0.85, 0.88, 0.92,
// 0.96, 1.0) on the fit side of the fused block's GEMM sets (137 cases: h200-production and
// h200-gemm-small even, h200-gemm-chain's Llama-3-8B and Qwen2.5-7B); the odd cases and the Llama-2-7B
// and TinyLlama chains held out. Measured walks it stands for (h200-compiled2 kernels less the block's
// 2.01 us): 3.2 us at 1365 deep, 3.65 at 2048.
inline constexpr double kNvjetFillShare = 0.85;

// The split count for a grid of `grid` CTA tiles over K: the most splits with each slice at least
// `min_slice` deep in a 4-CTA cluster grid, or over every SM where that gains kWiderGridMinGainK; 1 where
// that is under 2.
int64_t cublaslt_split(int64_t grid, int64_t k, int sm_count, int64_t min_slice);

}  // namespace perfmodel
