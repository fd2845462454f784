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

// A split grid on the 4-CTA clusters (at most 112 CTAs, 4 or more weight-row tiles) streams its operands
// this much longer than the block's stream price, a fixed time whatever its bytes; where its CTAs' walk
// binds (few CTAs: Llama-3-8B's k / v, 48) the walk hides it (PlanCosts::stream_of; branch splitk, issue 10).
// Per kernel (validation/results/h200-block11/iso.jsonl, the main kernel against the price less the
// reduce): the 4x1 split grids of 96-112 CTAs run 3-9.5 % (0.3-0.8 us) over it, the 2x1 grids of 128 CTAs
// +0 % (Llama-3-8B's o); the reduce is priced within 0.1 us at M <= 32 and the graph idle around the pair
// is 1.14 us (the accuracy's 1.06): neither is the miss. Whole calls (h200-gemm-small, h200-gemm-chain):
// +0.7 to +2 us on 17-135 MB of weight alike, so a time, not a rate. Our reading, not measured per
// counter: a cluster is placed, started and retired as one, so the grid's stream ramps up and drains on
// whole clusters. Fitted (least rms log error over 0-2 us) on the fused block's fit side (137 GEMMs, as
// kNvjetFillShare), the tail priced on the plan chosen without it (PlanCosts::priced_s): 1.4 us, rms log
// 7.75 -> 6.51 %, within 0.05 % from 1.1 to 1.6 us (branch splitk priced it in the choice too: 1.7 us,
// 6.69 %; validation/scripts/production/splitk_tail.py --fit, run on a build that read the tail from
// SPLITK_TAIL).
inline constexpr double kClusterSplitTailS = 1.4e-6;
// The CTAs of that cluster, along the weight rows' tiles.
inline constexpr int64_t kClusterCtas = 4;

// The split count for a grid of `grid` CTA tiles over K: the most splits with each slice at least
// `min_slice` deep in a 4-CTA cluster grid, or over every SM where that gains kWiderGridMinGainK; 1 where
// that is under 2.
int64_t cublaslt_split(int64_t grid, int64_t k, int sm_count, int64_t min_slice);

// The same count, and whether it runs on the 4-CTA cluster grid (true) or the 2-CTA grid over every SM.
struct CublasltSplit {
  int64_t splits = 1;
  bool clustered = false;
};
CublasltSplit cublaslt_split_grid(int64_t grid, int64_t k, int sm_count, int64_t min_slice);

}  // namespace perfmodel
