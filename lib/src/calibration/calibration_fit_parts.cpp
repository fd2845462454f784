// The calibration's fits of the small-kernel, attention and power terms (calibration_fit.cpp
// fits the roofs, GEMM and decode terms first; these price through the model with them).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "calibration_fit_parts.hpp"
#include "perfmodel/attention_schedule.hpp"
#include "perfmodel/instructions.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/l2_residency.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

// Flash prefill: a CTA costs cta_fixed + tiles x tile(d), tile(d) = t128 x ((1 - share) d / 128 +
// share) (price.cpp). The large causal d = 128 point sets t128 for a given cta_fixed, the
// longest d != 128 point the share, and cta_fixed is scanned to fit the short-sequence points.
// Each point's busy time excludes the floor and the one sweep latency.
void fit_prefill_attention(const RawCalibration& raw, const Card& card, Calibration& c) {
  using A = CalibrationAttentionCase;
  const RawPoint* peak = nullptr;
  std::vector<const RawPoint*> shapes;
  for (const RawPoint& p : raw.points) {
    if (p.what == "attention_peak" && p.seconds > 0) peak = &p;
    if (p.what == "attention_shape" && p.seconds > 0 && p.q_len > 0 && p.head_dim > 0) shapes.push_back(&p);
  }
  if (!peak) return;
  auto busy = [&](double seconds) { return std::max(seconds - c.kernel_floor_s - c.pass_latency_s.value_or(0), seconds * 0.5); };
  auto critical = [&](int64_t b, int64_t h, int64_t q, double fixed, double tile) {
    return prefill_attention_critical_s(b, h, q, q, true, 0, card.sm_count, fixed, tile);
  };
  // The tile time at which a shape takes `target`. The makespan is close to linear in the tile
  // time (fixed x CTAs + tile x tiles on the busiest SM): a Newton step on that line, repeated,
  // settles in a few schedules (each is a list scheduling of thousands of CTAs).
  auto tile_for = [&](int64_t b, int64_t h, int64_t q, double fixed, double target) {
    double t = target / 10;
    for (int i = 0; i < 12; ++i) {
      const double at_t = critical(b, h, q, fixed, t), at_0 = critical(b, h, q, fixed, 0.0);
      if (at_t <= at_0) break;
      const double next = std::max(0.0, t * (target - at_0) / (at_t - at_0));
      if (std::fabs(next - t) <= 1e-6 * t) return next;
      t = next;
    }
    return t;
  };
  const RawPoint* share_pt = nullptr;
  for (const RawPoint* p : shapes)
    if (p->head_dim != 128 && (!share_pt || p->q_len > share_pt->q_len)) share_pt = p;
  double best = -1, best_fixed = 0, best_t128 = 0, best_share = -1;
  const bool scan = share_pt && shapes.size() > 1;
  for (double fixed = 0; fixed <= (scan ? 3e-6 : 0); fixed += 0.02e-6) {
    const double t128 = tile_for(A::batch, A::heads, A::seq, fixed, busy(peak->seconds));
    double share = -1;
    if (share_pt) {
      const double td = tile_for(share_pt->batch, share_pt->heads, share_pt->q_len, fixed, busy(share_pt->seconds));
      const double x = static_cast<double>(share_pt->head_dim) / 128.0;
      share = std::clamp((td / t128 - x) / (1 - x), 0.0, 1.0);  // td = t128 ((1 - s) x + s)
    }
    double err = 0;
    for (const RawPoint* p : shapes) {
      if (p == share_pt) continue;
      const double s = std::max(share, 0.0);
      const double tile = t128 * ((1 - s) * static_cast<double>(p->head_dim) / 128.0 + s);
      const double pred = critical(p->batch, p->heads, p->q_len, fixed, tile);
      err += (pred / busy(p->seconds) - 1) * (pred / busy(p->seconds) - 1);
    }
    if (best < 0 || err < best) best = err, best_fixed = fixed, best_t128 = t128, best_share = share;
  }
  c.attention_peak = 4.0 * kAttentionTile * kAttentionTile * 128.0 * card.sm_count / best_t128;
  if (scan) c.attention_cta_fixed_s = best_fixed;
  if (best_share >= 0) c.attention_softmax_share = best_share;
}

// Thread chains: a tiny L2-resident launch of each small kernel, over what the model gives it
// without one (floor, its sweeps' L2 round trips, its bytes at the L2 rate). The copy's own
// chain is inside the L2 sweep latency, so this is the chain beyond a copy's; per iteration of
// the thread's loop (row kernels walk a row in several). Mean over the kernel's points (shapes
// outside the kernel suite).
void fit_thread_chains(const RawCalibration& raw, const Card& card, Calibration& c) {
  Calibration base = c;
  base.thread_chain_s.fill(Measured{0.0});
  const Roofs roofs = make_roofs(card, &base);
  std::array<double, kKernelIdCount> sum{};
  std::array<int, kKernelIdCount> n{};
  for (const RawPoint& p : raw.points) {
    if (p.what != "thread_chain" || !p.kernel) continue;
    const Op op = to_op_on(*p.kernel, card.l2_bytes / 2);  // hot: one buffer set
    const auto i = static_cast<size_t>(op.kernel);
    sum[i] += (p.seconds - price(op, roofs, Impl::fused).time_s) /
              static_cast<double>(thread_iterations(op.kernel, op.cols, op.dtype));
    ++n[i];
  }
  for (size_t i = 0; i < sum.size(); ++i)
    if (n[i] > 0) c.thread_chain_s[i] = std::max(0.0, sum[i] / n[i]);
}

// L2 residency: copies whose cycled buffer sets straddle the L2's size. Each point's share of
// hits is where its time falls between the model's all-L2 and all-DRAM prices; the capacity of
// l2_residency.hpp is the one whose hit curve fits those shares best (least squares, scanned
// in 0.25 MB steps from 1/8 to 2 x L2).
void fit_l2_capacity(const RawCalibration& raw, const Card& card, Calibration& c) {
  const Roofs roofs = make_roofs(card, &c);
  std::vector<std::pair<double, double>> shares;  // (cycled bytes, hit share)
  for (const RawPoint& p : raw.points) {
    if (p.what != "l2_residency" || !p.kernel || !(p.kernel->rotated_bytes > 0)) continue;
    Op op = to_op(*p.kernel);
    op.l2_hit = 1;
    const double hot = price(op, roofs, Impl::fused).time_s;
    op.l2_hit = 0;
    const double cold = price(op, roofs, Impl::fused).time_s;
    if (cold > hot) shares.emplace_back(p.kernel->rotated_bytes, std::clamp((cold - p.seconds) / (cold - hot), 0.0, 1.0));
  }
  double best = -1;
  for (double cap = card.l2_bytes / 8; cap <= 2 * card.l2_bytes && !shares.empty(); cap += 0.25e6) {
    double err = 0;
    for (const auto& [w, h] : shares) err += (cyclic_l2_hit(w, cap) - h) * (cyclic_l2_hit(w, cap) - h);
    if (best < 0 || err < best) best = err, c.l2_cyclic_capacity = cap;
  }
}

// Power cap: a load sustained back to back settles where the board meets its cap (or below it).
// Its time against a rested burst is the clock scale phi (time ~ 1/f for compute-bound work; a
// burst below the full clock is scaled up to it), and its draw beyond idle over phi^3 is its SM
// power at the full clock (power.hpp): the GEMM's is `tensor`, the flash kernel's `attention`.
// The sustained copy is measured too but not used (power.hpp says why).
void fit_power_cap(const RawCalibration& raw, const Card& card, Calibration& c) {
  const double f_max = card.cuda_clock_hz / 1e6;
  for (const RawPoint& p : raw.points) {
    const bool gemm = p.what == "sustained_gemm", attention = p.what == "sustained_attention";
    if ((!gemm && !attention) || !(p.burst_seconds > 0) || !(p.power_limit_w > 0)) continue;
    const double burst_scale = p.burst_clock_mhz > 0 && f_max > 0 ? std::min(1.0, p.burst_clock_mhz / f_max) : 1.0;
    const double phi = std::min(1.0, p.burst_seconds * burst_scale / p.seconds);
    if (gemm) c.sustained_clock_scale = phi;
    // Without a power reading (older raw files) the load ran at the cap.
    const double draw = p.power_w > p.idle_power_w ? p.power_w : p.power_limit_w;
    if (!(draw > p.idle_power_w)) continue;
    c.power.limit_w = p.power_limit_w;
    c.power.idle_w = p.idle_power_w;
    (gemm ? c.power.tensor_w : c.power.attention_w) = (draw - p.idle_power_w) / (phi * phi * phi);
  }
}

}  // namespace perfmodel
