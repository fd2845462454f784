#include "perfmodel/decode_attention.hpp"

#include <algorithm>
#include <cmath>

#include "../cost/overlap.hpp"
#include "perfmodel/occupancy.hpp"

namespace perfmodel {

namespace {
// Without a + b - 1, which overflows for sizes near 2^63.
int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }
}  // namespace

namespace {

struct KernelShape {
  int64_t tile = 32, min_chunk = 64, base = 1;
};

KernelShape kernel_shape(int64_t batch, int64_t heads, int64_t kv_heads) {
  KernelShape k;
  const bool mma = heads / std::max<int64_t>(1, kv_heads) >= 4;
  k.tile = mma ? 64 : 32;
  k.min_chunk = mma ? 128 : 64;
  k.base = std::max<int64_t>(1, batch * kv_heads);
  return k;
}

// The plan's split: `chunk` keys (whole tiles) per CTA, the last chunk possibly partial.
void set_chunk(DecodeSplit& d, const KernelShape& k, int64_t kv_len, int64_t chunk) {
  d.chunk = chunk;
  d.splits = std::max<int64_t>(1, ceil_div(kv_len, chunk));
  // A chunk longer than the cache walks only the cache's tiles.
  d.tiles_per_cta = ceil_div(std::max<int64_t>(1, std::min(chunk, kv_len)), k.tile);
  d.ctas = k.base * d.splits;
}

}  // namespace

DecodeSplit plan_decode_split(int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len, int64_t head_dim,
                              const Card& card) {
  const int sm_count = card.sm_count;
  DecodeSplit d;
  const KernelShape ks = kernel_shape(batch, heads, kv_heads);
  const bool mma = ks.tile == 64;
  const int64_t splits = std::max<int64_t>(
      1, std::min(ceil_div(3 * static_cast<int64_t>(sm_count), ks.base), ceil_div(kv_len, ks.min_chunk)));
  set_chunk(d, ks, kv_len, ceil_div(ceil_div(kv_len, splits), ks.tile) * ks.tile);
  // 128 threads per CTA. Tensor-core path: 126 registers (head_dim 128) or 78 (64), K/V tiles
  // double-buffered in shared memory, 2 stages x (K, V) x 64 keys x (head_dim + 8) x 2 bytes.
  // CUDA-core path: 64 registers (groups of 1) or 96 (groups of 2), 4-8 KiB of shared memory.
  KernelResources k;
  k.threads_per_block = 128;
  const int64_t group = heads / std::max<int64_t>(1, kv_heads);
  if (mma) {
    k.registers_per_thread = head_dim > 64 ? 126 : 78;
    k.shared_memory_per_block = 2.0 * 2 * 64 * static_cast<double>(head_dim + 8) * 2;
    // groups of 4 fill fewer MMA rows' softmax work than groups of 8..16
    if (head_dim > 64) {
      d.warp_instructions_fixed = group >= 8 ? 996 : 652;
      d.warp_instructions_per_tile = group >= 8 ? 635 : 619;
    } else {
      d.warp_instructions_fixed = 712;
      d.warp_instructions_per_tile = 359;
    }
  } else {
    k.registers_per_thread = group >= 2 ? 96 : 64;
    k.shared_memory_per_block = 8448;
    // 32-key tiles; head_dim 128 (the CUDA-core path's counts scale with head_dim)
    const double scale = static_cast<double>(head_dim) / 128.0;
    d.warp_instructions_fixed = (group >= 2 ? 484 : 400) * scale;
    d.warp_instructions_per_tile = (group >= 2 ? 545 : 350) * scale;
  }
  if (k.registers_per_thread <= card.limits.max_registers_per_thread &&
      k.shared_memory_per_block <= card.limits.shared_memory_per_block && card.limits.max_warps_per_sm > 0)
    d.resident_per_sm = std::max(1, occupancy(card, k, 1).blocks_per_sm);
  return d;
}

double decode_split_time(const DecodeSplit& d, double kv_bytes, double read_bandwidth, const Card& card,
                         const DecodeCosts& c) {
  if (d.ctas <= 0 || card.sm_count <= 0 || card.cuda_clock_hz <= 0) return 0;
  const double sms = static_cast<double>(card.sm_count);
  const double instructions = d.warp_instructions_fixed + static_cast<double>(d.tiles_per_cta) * d.warp_instructions_per_tile;
  const double slots = static_cast<double>(d.resident_per_sm) * sms;
  const double per_cta_bytes = kv_bytes / static_cast<double>(d.ctas);
  auto wave = [&](double ctas) {
    const double on_busiest_sm = std::ceil(ctas / sms);
    const double chain = c.cta_fixed_s + instructions * (c.cpi + c.cpi_per_cta * (on_busiest_sm - 1)) / card.cuda_clock_hz;
    const double stream = ctas * per_cta_bytes / read_bandwidth;
    return overlapped(stream, chain, c.overlap);
  };
  const double full = std::floor(static_cast<double>(d.ctas) / slots);
  const double rest = static_cast<double>(d.ctas) - full * slots;
  return full * wave(slots) + (rest > 0 ? wave(rest) : 0.0);
}

double decode_combine_time(const DecodeSplit& d, double pass_latency_s, const DecodeCosts& c) {
  if (d.splits <= 1) return 0;
  return 2 * pass_latency_s + static_cast<double>(d.splits) * c.combine_split_s;
}

DecodeSplit best_decode_split(int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len, int64_t head_dim,
                              const Card& card, double kv_bytes, double read_bandwidth, const DecodeCosts& c,
                              double pass_latency_s, double kernel_floor_s, double stream_floor_s) {
  DecodeSplit best = plan_decode_split(batch, heads, kv_heads, kv_len, head_dim, card);
  if (!(read_bandwidth > 0) || card.sm_count <= 0) return best;
  auto cost = [&](const DecodeSplit& d) {
    return std::max(stream_floor_s, decode_split_time(d, kv_bytes, read_bandwidth, card, c)) +
           (d.splits > 1 ? kernel_floor_s + decode_combine_time(d, pass_latency_s, c) : 0.0);
  };
  double best_cost = cost(best);
  const KernelShape ks = kernel_shape(batch, heads, kv_heads);
  const int64_t tiles = ceil_div(std::max<int64_t>(1, kv_len), ks.tile);
  // Past a few waves of CTAs more splits only add CTAs' fixed chains and combine work, so the
  // search stops there; the bound shrinks as the batch grows, so a larger batch's plan is
  // always among a smaller batch's candidates (monotone in batch), and it does not depend on
  // the context (monotone in context: a chunk that serves the longer cache serves the shorter).
  const int64_t slots = static_cast<int64_t>(card.sm_count) * std::max(1, best.resident_per_sm);
  const int64_t max_splits = std::min(tiles, std::max<int64_t>(1, ceil_div(4 * slots, ks.base)));
  for (int64_t s = 1; s <= max_splits; ++s) {
    // The fewest tiles per CTA that give at most s splits: the cheapest chunk for that grid.
    DecodeSplit d = best;
    set_chunk(d, ks, kv_len, ceil_div(tiles, s) * ks.tile);
    const double t = cost(d);
    if (t < best_cost * (1 - 1e-12)) {
      best = d;
      best_cost = t;
    }
  }
  return best;
}

}  // namespace perfmodel
