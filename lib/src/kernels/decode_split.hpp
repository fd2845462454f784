#pragma once
// cuDNN's decode split count inside a CUDA graph (branches cudnnsplit and maskocc, issue 10).
#include <cstdint>

namespace perfmodel {

// The masked (StaticCache) decode SDPA's split count: the kernel's grid is (splits, heads, batch) with
// splits the largest power of two that is at most the whole 128-key tiles and keeps the split CTAs
// (ctas x splits, ctas = batch x heads) within two an SM; no split under 5 tiles (rounded up) and,
// the caller's rule, none once the CTAs fill half the SMs. Branch maskocc (validation/results/
// h200-maskocc, 33 batch-1 grids over 8-96 heads x 948-2096 keys and 2 at batch 2): 948 keys (7 whole
// tiles) split 4 ways at every head count, 2096 keys 16 ways at 8 and 16 heads, 8 at 24-32, 4 at
// 40-64; head dim 64 caps at two an SM too (64 heads x 1072 keys: 4), though its kernel holds four.
// Every compiled step's grid follows it (h200-compiled2, h200-heldout19..22; tests/test_cudnn_split.cpp).
// Before: the key count alone, at most 8 (h200-graphroles' 32-head calls), and branch graphsplit's
// slot cap over it.
//
// Branch splitgrid: the unmasked call (eager transformers' enable_gqa SDPA) takes the same count, with
// `ctas` its (sequence, KV head) units, and never more than 64 splits (validation/results/h200-splitgrid,
// 34 grids: 2 units over 25000-110000 keys split 64 ways, 1 unit over 30000 keys 64, where the slots
// allow 128 and 256; head dim 256's grid x is twice the count, two CTAs a split).
constexpr int64_t kMaxSplits = 64;

inline int64_t cudnn_graph_splits(int64_t kv_len, int64_t ctas, int64_t sms) {
  if ((kv_len + 127) / 128 < 5) return 1;
  const int64_t whole_tiles = kv_len / 128;
  int64_t s = 1;
  while (s * 2 <= whole_tiles && ctas * s * 2 <= 2 * sms && s * 2 <= kMaxSplits) s *= 2;
  return s;
}

}  // namespace perfmodel
