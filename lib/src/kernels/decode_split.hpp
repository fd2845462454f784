#pragma once
// cuDNN's decode split count inside a CUDA graph (branch cudnnsplit, issue 10).
#include <cstdint>

namespace perfmodel {

// The masked (StaticCache) decode SDPA's split count, by key count alone: the kernel's grid is
// (splits, heads, batch) with splits the largest power of two of whole 128-key tiles, at most 8,
// and no split under 5 tiles (h200-graphroles: 1 at 256 keys, 4 at 560, 8 at 1072, 2096, 4144,
// head dims 64 and 128; h200-compiled2: 4 at 560 keys (128 CTAs), 8 at 1072 (224) and 2096 (256)).
// At batch 4 and more (128 CTAs and up, half the SMs or more busy) cuDNN does not split at all:
// the caller's rule.
inline int64_t cudnn_graph_splits(int64_t kv_len) {
  const int64_t tiles = (kv_len + 127) / 128;
  if (tiles < 5) return 1;
  int64_t s = 1;
  while (s * 2 <= tiles && s < 8) s *= 2;
  return s;
}

// Branch graphsplit: the key rule's count halved until the split CTAs (ctas x splits, ctas = batch x
// heads) fit the kernel's resident slots (two an SM at head dim 128: 264 on the H200). Every committed
// compiled batch-1 grid follows it: 56 heads at 948 keys run 4 splits (224 CTAs), 48 at 1148 4, 64 at 2048
// 4, 32 at 1072-2096 8 (h200-heldout19..22, h200-compiled2; tests/test_cudnn_split.cpp).
inline int64_t cudnn_graph_splits(int64_t kv_len, int64_t ctas, int64_t slots) {
  int64_t s = cudnn_graph_splits(kv_len);
  while (s > 1 && ctas * s > slots) s /= 2;
  return s;
}

}  // namespace perfmodel
