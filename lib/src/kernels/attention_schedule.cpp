#include "perfmodel/attention_schedule.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

namespace perfmodel {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// K/V tiles query tile i sees (queries aligned to the end of the keys).
int64_t kv_tiles_for(int64_t i, int64_t q_len, int64_t kv_len, bool causal, int64_t window) {
  const int64_t all = ceil_div(kv_len, kAttentionTile);
  if (!causal) return all;
  const int64_t last_row = kv_len - q_len + std::min(q_len, (i + 1) * kAttentionTile) - 1;  // key index of the tile's last query
  int64_t hi = last_row / kAttentionTile + 1;
  int64_t lo = 0;
  if (window > 0) {
    const int64_t first_row = kv_len - q_len + i * kAttentionTile;
    lo = std::max<int64_t>(0, first_row - window + 1) / kAttentionTile;
  }
  return std::clamp<int64_t>(hi - lo, 1, all);
}
}  // namespace

double prefill_attention_critical_s(int64_t batch, int64_t heads, int64_t q_len, int64_t kv_len, bool causal,
                                    int64_t window, int sm_count, double cta_fixed_s, double tile_s) {
  const int64_t nq = ceil_div(q_len, kAttentionTile);
  std::vector<double> cost(static_cast<size_t>(nq));
  double per_head = 0, longest = 0;
  for (int64_t i = 0; i < nq; ++i) {
    const double c = cta_fixed_s + static_cast<double>(kv_tiles_for(i, q_len, kv_len, causal, window)) * tile_s;
    cost[static_cast<size_t>(i)] = c;
    per_head += c;
    longest = std::max(longest, c);
  }
  const int64_t groups = batch * heads;
  // List scheduling in index order over the SMs (min-heap of finish times). For very large
  // grids the balance is near perfect: total / SMs, plus the last CTA's tail.
  if (groups * nq > 200000) return per_head * static_cast<double>(groups) / sm_count + longest / 2;
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int i = 0; i < sm_count; ++i) free_at.push(0.0);
  double makespan = 0;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t i = 0; i < nq; ++i) {
      const double t = free_at.top() + cost[static_cast<size_t>(i)];
      free_at.pop();
      free_at.push(t);
      makespan = std::max(makespan, t);
    }
  return makespan;
}

AttentionSchedule schedule_prefill_attention(int64_t batch, int64_t heads, int64_t q_len,
                                             int64_t kv_len, bool causal, int64_t window,
                                             int sm_count) {
  AttentionSchedule s;
  const int64_t nq = ceil_div(q_len, kAttentionTile);
  int64_t per_head = 0;
  for (int64_t i = 0; i < nq; ++i) per_head += kv_tiles_for(i, q_len, kv_len, causal, window);
  s.ctas = batch * heads * nq;
  s.units_total = static_cast<double>(per_head) * static_cast<double>(batch * heads);
  // In tile units: no fixed cost per CTA, one unit per tile.
  s.units_critical = prefill_attention_critical_s(batch, heads, q_len, kv_len, causal, window, sm_count, 0.0, 1.0);
  return s;
}

}  // namespace perfmodel
