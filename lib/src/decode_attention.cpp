#include "perfmodel/decode_attention.hpp"

#include <algorithm>

#include "perfmodel/occupancy.hpp"

namespace perfmodel {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

DecodeSplit plan_decode_split(int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len, int64_t head_dim,
                              const Card& card) {
  const int sm_count = card.sm_count;
  DecodeSplit d;
  const bool mma = heads / std::max<int64_t>(1, kv_heads) >= 4;
  const int64_t tile = mma ? 64 : 32, min_chunk = mma ? 128 : 64;
  const int64_t base = std::max<int64_t>(1, batch * kv_heads);
  d.splits = std::max<int64_t>(1, std::min(ceil_div(3 * static_cast<int64_t>(sm_count), base), ceil_div(kv_len, min_chunk)));
  d.chunk = ceil_div(ceil_div(kv_len, d.splits), tile) * tile;
  d.splits = ceil_div(kv_len, d.chunk);
  d.tiles_per_cta = ceil_div(d.chunk, tile);
  d.ctas = base * d.splits;
  // 128 threads per CTA. Tensor-core path: 126 registers (head_dim 128) or 78 (64), K/V tiles
  // double-buffered in shared memory, 2 stages x (K, V) x 64 keys x (head_dim + 8) x 2 bytes.
  // CUDA-core path: 64 registers (groups of 1) or 96 (groups of 2), 4-8 KiB of shared memory.
  KernelResources k;
  k.threads_per_block = 128;
  if (mma) {
    k.registers_per_thread = head_dim > 64 ? 126 : 78;
    k.shared_memory_per_block = 2.0 * 2 * 64 * static_cast<double>(head_dim + 8) * 2;
  } else {
    k.registers_per_thread = heads / std::max<int64_t>(1, kv_heads) >= 2 ? 96 : 64;
    k.shared_memory_per_block = 8448;
  }
  if (k.registers_per_thread <= card.limits.max_registers_per_thread &&
      k.shared_memory_per_block <= card.limits.shared_memory_per_block && card.limits.max_warps_per_sm > 0)
    d.resident_per_sm = std::max(1, occupancy(card, k, 1).blocks_per_sm);
  return d;
}

}  // namespace perfmodel
