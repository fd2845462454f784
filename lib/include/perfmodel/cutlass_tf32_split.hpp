#pragma once
// cuBLAS's CUTLASS sm80 split-K tf32 GEMMs on Hopper (branch tf32split, validation/results/h200-tf32split):
// at a few token rows and a small weight, F.linear on fp32 with allow_tf32 runs
// `cutlass_80_tensorop_s1688gemm_{64x64|128x64}_{32|16}x{4..6}_tn_align4` (weight rows x token rows,
// K stages of 32 or 16, 4-6 deep) followed by `cublasLt::splitKreduce_kernel`, not the sm90 xmma
// kernel (xmma_tf32.hpp): the weight's K is cut over the SMs the xmma grid would leave idle, and the
// reduce kernel sums the fp32 partials.
#include <cstdint>

#include "perfmodel/gemm_tiling.hpp"

namespace perfmodel {

// cuBLAS runs the CUTLASS split-K kernel (on a stream-K capable card, tf32): 8 <= M <= 64 (one 64-row
// token tile), the xmma 64x64 grid (N / 64 tiles) under kXmmaMinGridTiles, and a weight of at most
// kCutlassMaxWeight elements (past it the xmma kernel streams its K: `execute_segment_k_on`).
bool cutlass_tf32_split_runs(int64_t m, int64_t n, int64_t k);

// The plan: a tile of 64 token rows by 64 weight rows (128 from K 4096 on), the K split into
// floor(SMs / tiles) slices (at least kMinSliceK deep), one CTA per slice. compute_time_s is the
// busiest SM's slices at the calibrated tf32 peak x the mma.sync pace; the price (gemm_cost) adds the
// weight stream, the CTA walk of one slice, the splitKreduce kernel and kCutlassSplitFixedS.
TilePlan cutlass_tf32_split_plan(int64_t m, int64_t n, int64_t k, int64_t batch, int sm_count, double peak_flops);

// The CUTLASS kernel's own time past the block's fixed (launch floor, prologue, epilogue) and the
// reduce kernel's price: its multistage pipeline's fill through cp.async (sm80: no TMA) and the fp32
// partial tile written to the workspace. Fitted on the even cases of h200-tf32split's CUTLASS calls
// (cutlass_tf32_split.cpp says how).
double cutlass_tf32_split_fixed_s();

}  // namespace perfmodel
