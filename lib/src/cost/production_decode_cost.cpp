// Decode attention as production kernels run it (FlashAttention-2's split-KV path in PyTorch,
// the same design as FlashAttention-3 and FlashInfer): GQA query heads packed into one tile, the
// split rule, a split kernel streaming the KV plus a combine, or one non-split kernel
// (profile_calibration.hpp; docs/model.md, "production decode").
#include <algorithm>
#include <cmath>

#include "kernel_costs.hpp"

namespace perfmodel {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

// FlashAttention-2 (flash_api.cpp, set_params_splitkv and num_splits_heuristic): with one query
// token the group's query heads are swapped into the query dimension (seqlenq_ngroups_swapped), so
// a CTA holds up to 64 of them; key blocks are 256 / 128 / 64 keys for head dims <= 64 / 128 /
// larger; the grid is counted against two CTAs per SM. No split when the CTAs already fill 80 % of
// that; else the fewest splits whose wave efficiency is within 85 % of the best eligible one, an
// eligible split count being one that changes the blocks per split.
int64_t flash2_split_count(int64_t ctas, int64_t blocks, int sm_count) {
  const double slots = 2.0 * sm_count;
  blocks = std::max<int64_t>(1, blocks);
  if (static_cast<double>(ctas) >= 0.8 * slots) return 1;
  const int64_t max_splits = std::min<int64_t>({static_cast<int64_t>(slots), blocks, 128});
  auto efficiency = [&](int64_t s) {
    const double waves = static_cast<double>(ctas * s) / slots;
    return waves / std::ceil(waves);
  };
  // The best efficiency is taken over the eligible split counts only, as flash_api.cpp does
  // (over all of them, b1 x 20 heads at 4096 keys found none within 85 % and priced one CTA per
  // head walking the whole cache: 108 us where the split kernel takes about 20).
  auto eligible = [&](int64_t s) { return s == 1 || ceil_div(blocks, s) != ceil_div(blocks, s - 1); };
  double best = 0;
  for (int64_t s = 1; s <= max_splits; ++s)
    if (eligible(s)) best = std::max(best, efficiency(s));
  for (int64_t s = 1; s <= max_splits; ++s)
    if (eligible(s) && efficiency(s) >= 0.85 * best) return s;
  return 1;
}

ProductionDecodePlan plan_production_decode(int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len,
                                            int64_t head_dim, int sm_count) {
  ProductionDecodePlan p;
  const int64_t kvh = std::max<int64_t>(1, kv_heads);
  const int64_t group = std::max<int64_t>(1, heads / kvh);
  p.ctas = std::max<int64_t>(1, batch) * kvh * ceil_div(group, 64);
  const int64_t block_n = head_dim <= 64 ? 256 : head_dim <= 128 ? 128 : 64;
  p.splits = flash2_split_count(p.ctas, ceil_div(kv_len, block_n), sm_count);
  return p;
}

// Split: the call's floor (split kernel and combine), the KV streamed at the kernel's rate, and
// the combine's walk over the splits. Non-split: one kernel whose CTAs each walk the whole cache
// in 128-key tiles that cost what the same kernel's prefill tiles cost (the packed group fills
// part of a padded MMA tile), spread over the SMs.
KernelTimes production_decode_cost(const Op& op, const Roofs& r) {
  return production_decode_cost(op, r, r.production_decode, "decode");
}

KernelTimes production_decode_cost(const Op& op, const Roofs& r, const ProductionDecode& d, const char* source_key) {
  const AttentionShape& a = op.attention;
  ProductionDecodePlan p = plan_production_decode(a.batch, a.heads, a.kv_heads, a.kv_len, a.head_dim, r.card.sm_count);
  if (!d.split_kv) p.splits = 1;
  KernelTimes t;
  if (p.splits > 1) {
    t.fixed_s = d.call_floor_s + static_cast<double>(p.splits) * d.combine_per_split_s;
    t.fixed_parts = {{"split-KV call floor (split kernel and combine)", d.call_floor_s, source_key},
                     {"combine walk: " + std::to_string(p.splits) + " splits", static_cast<double>(p.splits) * d.combine_per_split_s,
                      source_key}};
    t.memory_s = with_l2_hit(op, r, op.bytes() / d.stream_bandwidth);
    t.compute_s = kv_convert_s(op, r);  // fp8 KV (0 otherwise)
    return t;
  }
  t.fixed_s = d.nonsplit_floor_s >= 0 ? d.nonsplit_floor_s : d.call_floor_s;
  t.fixed_parts = {{"non-split call floor", t.fixed_s, source_key}};
  const double s = d.nonsplit_softmax_share;
  const double tile = d.nonsplit_tile_s * ((1 - s) * static_cast<double>(a.head_dim) / 128.0 + s);
  // Fewer CTAs than SMs: each walks its cache alone, the slowest one sets the time.
  const double per_sm = std::max(1.0, static_cast<double>(p.ctas) / r.card.sm_count);
  t.compute_s = std::max(per_sm * static_cast<double>(a.kv_len) / 128.0 * tile, kv_convert_s(op, r));
  t.memory_s = with_l2_hit(op, r, op.bytes() / d.stream_bandwidth);
  return t;
}

}  // namespace perfmodel
