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
};

// GQA groups of 4+ query heads use tensor-core tiles of 64 keys (at least 128 keys per chunk);
// smaller groups use 32-key tiles (at least 64 keys per chunk).
// Residency comes from the occupancy calculator on the kernels' resources as the compiler
// reports them (nvcc -Xptxas -v, sm_90, validation/src/attention.cu).
DecodeSplit plan_decode_split(int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len, int64_t head_dim,
                              const Card& card);

}  // namespace perfmodel
