#pragma once
// Flash-decoding (split-KV) attention for one new token per sequence: the KV cache of each
// (sequence, KV head) is cut into `splits` chunks so the grid fills the GPU (about three CTAs
// per SM); each CTA walks its chunk in tiles of keys (one dependent load-and-compute step per
// tile); a combine kernel then merges the splits' partial results, one split after another.
// The split heuristic is the one FlashAttention's and FlashInfer's split-KV kernels use, and
// the validation backend's kernel follows it (validation/src/attention.cu).
#include <cstdint>

#include "perfmodel/card.hpp"

namespace perfmodel {

struct DecodeSplit {
  int64_t splits = 1;          // chunks per (sequence, KV head)
  int64_t chunk = 0;           // keys per chunk
  int64_t tiles_per_cta = 0;   // key tiles one CTA walks
  int64_t ctas = 0;            // batch x kv_heads x splits
  int resident_per_sm = 3;     // CTAs an SM holds at once (occupancy of the kernel's resources)
  // Instructions one warp of a CTA issues: a fixed part (Q load, set-up, the warps' merge, the
  // writes) and one per key tile. Counted with Nsight Compute (smsp__inst_executed) on the
  // validation kernels (sm_90, nvcc 13.0), solved from CTAs of 2 to 16 tiles:
  // validation/results/h200-ncu/decode_kernels.csv.
  double warp_instructions_fixed = 0, warp_instructions_per_tile = 0;
};

// GQA groups of 4+ query heads use tensor-core tiles of 64 keys (at least 128 keys per chunk);
// smaller groups use 32-key tiles (at least 64 keys per chunk).
// Residency comes from the occupancy calculator on the kernels' resources as the compiler
// reports them (nvcc -Xptxas -v, sm_90, validation/src/attention.cu).
DecodeSplit plan_decode_split(int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len, int64_t head_dim,
                              const Card& card);

// The plan a library that sizes the split for the shape runs (FlashInfer's decode planner
// balances chunks over the SMs instead of fixing three CTAs per SM): among chunks of whole key
// tiles, the one with the least modelled time, split kernel plus combine (and its launch).
// plan_decode_split's heuristic is one of the candidates. Because the candidates of a larger
// batch or a longer context are open to the smaller shape too, the time never drops as the
// batch or the context grows (issue 14: 1.697 ms at batch 1 against 1.447 ms at batch 2, Qwen2.5-
// 0.5B at 24576 tokens on the H200, where the heuristic's 192 two-tile splits cost more to
// combine than 96 four-tile ones). `stream_floor_s`: the longer of the op's KV stream at the
// card's effective bandwidth and its compute time, which bound every plan's split kernel as
// price() bounds it, so the search scores a plan as it is then priced.
struct DecodeCosts;
DecodeSplit best_decode_split(int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len, int64_t head_dim,
                              const Card& card, double kv_bytes, double read_bandwidth, const DecodeCosts& c,
                              double pass_latency_s, double kernel_floor_s, double stream_floor_s = 0);

// The kernel's per-CTA costs (calibrated on the decode ramp, docs/calibration.md). A CTA's warps
// run a dependent chain of instructions: each issues one every `cpi` cycles when its CTA is alone
// on the SM, and `cpi_per_cta` cycles more for every further CTA sharing the SM's pipes (Nsight
// Compute read 4.1, 6.0 and 7.6 cycles per instruction at 1, 2 and 3 CTAs per SM).
struct DecodeCosts {
  double cpi = 0;           // cycles per warp instruction, CTA alone on its SM
  double cpi_per_cta = 0;   // ... plus this per further CTA on the SM
  double cta_fixed_s = 0;   // a CTA's wait for its first K/V tile beyond the chain
  double combine_split_s = 0;  // the combine's cost per split merged
  // How a wave's KV stream and its CTAs' chains overlap: the wave takes
  // (stream^n + chain^n)^(1/n); n = 0 means perfectly (max). A CTA double-buffers two K/V tiles,
  // so when its loads and its dependent tile steps take about as long, each stalls the other.
  double overlap = 0;
};

// Device time of the split kernel beyond its launch floor: wave by wave (as many CTAs per SM as
// its occupancy allows), the longer of streaming the wave's share of the KV bytes and the busiest
// SM's CTA chain: fixed + (instructions per warp) x (cpi + cpi_per_cta x (CTAs on it - 1)) / clock.
double decode_split_time(const DecodeSplit& d, double kv_bytes, double read_bandwidth, const Card& card,
                         const DecodeCosts& c);
// The combine kernel beyond its launch floor: two dependent sweeps (the splits' maxima and sums,
// then their weighted outputs) and the splits merged one by one; 0 with a single split.
double decode_combine_time(const DecodeSplit& d, double pass_latency_s, const DecodeCosts& c);

}  // namespace perfmodel
