#pragma once
// How long flash-style prefill attention keeps the busiest SM busy. The kernel cuts Q into
// 128-row tiles, one CTA per (sequence, head, q tile); a CTA sweeps the 128-column K/V tiles its
// rows may see (all of them, or up to the diagonal when causal, or the window). CTAs start in
// index order on whichever SM frees first (the hardware's block scheduler), so causal attention
// gives unequal CTAs and a ragged last wave: the makespan, not the average, sets the time.
#include <cstdint>

namespace perfmodel {

inline constexpr int64_t kAttentionTile = 128;

struct AttentionSchedule {
  double units_total = 0;      // (q tile x kv tile) pairs computed, masked tiles included
  double units_critical = 0;   // units on the busiest SM (the makespan)
  int64_t ctas = 0;
};

AttentionSchedule schedule_prefill_attention(int64_t batch, int64_t heads, int64_t q_len,
                                             int64_t kv_len, bool causal, int64_t window,
                                             int sm_count);

// The busiest SM's time when each CTA costs `cta_fixed_s` once (its Q tile in, its O tile out)
// plus `tile_s` per K/V tile it sweeps; the same list scheduling.
double prefill_attention_critical_s(int64_t batch, int64_t heads, int64_t q_len, int64_t kv_len, bool causal,
                                    int64_t window, int sm_count, double cta_fixed_s, double tile_s);

}  // namespace perfmodel
