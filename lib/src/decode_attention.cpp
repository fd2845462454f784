#include "perfmodel/decode_attention.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/occupancy.hpp"

namespace perfmodel {

namespace {
// Without a + b - 1, which overflows for sizes near 2^63.
int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }
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
    if (c.overlap <= 0) return std::max(stream, chain);
    return std::pow(std::pow(stream, c.overlap) + std::pow(chain, c.overlap), 1.0 / c.overlap);
  };
  const double full = std::floor(static_cast<double>(d.ctas) / slots);
  const double rest = static_cast<double>(d.ctas) - full * slots;
  return full * wave(slots) + (rest > 0 ? wave(rest) : 0.0);
}

double decode_combine_time(const DecodeSplit& d, double pass_latency_s, const DecodeCosts& c) {
  if (d.splits <= 1) return 0;
  return 2 * pass_latency_s + static_cast<double>(d.splits) * c.combine_split_s;
}

}  // namespace perfmodel
