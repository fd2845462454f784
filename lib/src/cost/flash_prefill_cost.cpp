// Flash (fused) prefill attention: the CTAs of (batch x heads x query tiles) scheduled over the
// SMs, each walking its K/V tiles (attention_schedule.hpp; docs/model.md, "prefill attention").
#include <algorithm>

#include "kernel_costs.hpp"
#include "perfmodel/attention_schedule.hpp"

namespace perfmodel {

// One K/V tile of flash prefill on one SM: QK^T and PV (4 x 128 x 128 x d FLOPs) scale with the
// head dim; the softmax between them (exp, max, sum over 128 x 128 scores) does not. Calibrated
// at d = 128 (attention_peak, 16-bit inputs) with the non-scaling share from d = 64.
// With 8-bit inputs (FlashAttention-3's and cuDNN's FP8 forward) the MMAs run at the tensor cores'
// fp8 rate, twice the bf16 one on Hopper and Ada (the card's datasheet peaks), and the softmax, on
// fp32 scores either way, does not speed up: at d 256 the tile takes 1.00 of d 128's bf16 tile
// instead of 1.70, at d 64 0.47 instead of 0.65. No parameter; checked, unfitted, on the FlashAttention-3
// paper's FP8 figures (validation/results/published-fa3-h100).
double attention_tile_time(const Roofs& r, int64_t head_dim, Precision precision) {
  const double t128 = 4.0 * kAttentionTile * kAttentionTile * 128.0 / (r.attention_peak / r.card.sm_count);
  const double s = r.attention_softmax_share;
  const Card& c = r.card;
  const double bf16 = c.peak[static_cast<size_t>(Precision::bf16)], own = c.peak[static_cast<size_t>(precision)];
  const double mma = precision == Precision::fp8 && bf16 > 0 && own > 0 ? bf16 / own : 1.0;
  return t128 * ((1 - s) * static_cast<double>(head_dim) / 128.0 * mma + s);
}

// A profile's fused kernel (cuDNN's SDPA: the call floor below is its fit) starts every CTA of its
// first wave at once, each loading its Q tile, and ends with its last wave storing their O tiles
// together: those tiles cross DRAM with no walk under them (the walk needs Q; the store waits on
// the last tile), so one wave's Q bytes at the read rate and O bytes at the write rate add to the
// critical path. Head-dim proportional where the call floor is not: at 32 heads, s 512 it is 2.2 us
// at head dim 128 and 1.1 at 64, which the one floor of fit_profiles.py had priced alike (TinyLlama's
// d 64 s 512 call 11.8 us priced, 8.3 + 0.9 us Memset measured in validation/results/
// h200-fused-step-alone; branch prefill). No parameter: the card's read and write rates.
namespace {

int64_t cudnn_prefill_dim(int64_t head_dim) {
  for (int64_t d : {64, 128, 192}) if (head_dim <= d) return d;
  return std::max<int64_t>(256, head_dim);
}

double attention_wave_edge_s(const Op& op, const Roofs& r) {
  const AttentionShape& a = op.attention;
  if (r.read_bandwidth <= 0 || r.write_bandwidth <= 0 || r.card.sm_count <= 0) return 0;
  const int64_t tiles = (a.q_len + kAttentionTile - 1) / kAttentionTile;
  const double ctas = static_cast<double>(a.batch * a.heads * tiles);
  const double wave = std::min(ctas, static_cast<double>(r.card.sm_count));
  const double tile = static_cast<double>(std::min(a.q_len, kAttentionTile) * a.head_dim) * bytes_of(op.dtype);
  return wave * tile / r.read_bandwidth + wave * tile / r.write_bandwidth;
}

}  // namespace

KernelTimes flash_prefill_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  if (op.flops <= 0) return stream_cost(op, r, force_tile);
  effective_peak(r, op.precision);  // a card without the op's peak is refused, as for any op
  const AttentionShape& a = op.attention;
  KernelTimes t;
  // A profile's kernel (cuDNN's sm90 SDPA) is generated for head dims 64 / 128 / 192 / 256 (its names'
  // 64x128x<d>): a call runs the next one up, its MMAs over the padded dim (h200-headdims: 32 runs the 64 kernel,
  // 80 and 96 the 128 one, 160 the 192 one; priced at the call's own dim they were 8-26 % fast).
  const int64_t dim = r.attention_call_floor_s ? cudnn_prefill_dim(a.head_dim) : a.head_dim;
  t.compute_s = prefill_attention_critical_s(a.batch, a.heads, a.q_len, a.kv_len, a.causal, a.window, r.card.sm_count,
                                             r.attention_cta_fixed_s, attention_tile_time(r, dim, op.precision));
  // A profile's kernel has its own floor per call (cuDNN's, FlashAttention's: measured on the
  // smallest calls); else the card's launch floor and one sweep per pass.
  t.fixed_s = r.attention_call_floor_s ? *r.attention_call_floor_s + attention_wave_edge_s(op, r)
                                       : op.launches * r.kernel_floor_s + op.passes * r.pass_latency_s;
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
  return t;
}

}  // namespace perfmodel
