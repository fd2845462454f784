// Flash (fused) prefill attention: the CTAs of (batch x heads x query tiles) scheduled over the
// SMs, each walking its K/V tiles (attention_schedule.hpp; docs/model.md, "prefill attention").
#include "kernel_costs.hpp"
#include "perfmodel/attention_schedule.hpp"

namespace perfmodel {

// One K/V tile of flash prefill on one SM: QK^T and PV (4 x 128 x 128 x d FLOPs) scale with the
// head dim; the softmax between them (exp, max, sum over 128 x 128 scores) does not. Calibrated
// at d = 128 (attention_peak) with the non-scaling share from d = 64.
double attention_tile_time(const Roofs& r, int64_t head_dim) {
  const double t128 = 4.0 * kAttentionTile * kAttentionTile * 128.0 / (r.attention_peak / r.card.sm_count);
  const double s = r.attention_softmax_share;
  return t128 * ((1 - s) * static_cast<double>(head_dim) / 128.0 + s);
}

KernelTimes flash_prefill_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  if (op.flops <= 0) return stream_cost(op, r, force_tile);
  effective_peak(r, op.precision);  // a card without the op's peak is refused, as for any op
  const AttentionShape& a = op.attention;
  KernelTimes t;
  t.compute_s = prefill_attention_critical_s(a.batch, a.heads, a.q_len, a.kv_len, a.causal, a.window, r.card.sm_count,
                                             r.attention_cta_fixed_s, attention_tile_time(r, a.head_dim));
  // A profile's kernel has its own floor per call (cuDNN's, FlashAttention's: measured on the
  // smallest calls); else the card's launch floor and one sweep per pass.
  t.fixed_s = r.attention_call_floor_s.value_or(op.launches * r.kernel_floor_s + op.passes * r.pass_latency_s);
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
  return t;
}

}  // namespace perfmodel
