#include "perfmodel/price.hpp"

#include <algorithm>
#include <cmath>

namespace perfmodel {

std::string to_string(Bound b) {
  switch (b) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::overhead: return "overhead";
  }
  return "?";
}

Roofs make_roofs(const Card& card, const Calibration* cal) {
  Roofs r;
  r.card = card;
  r.calibrated = cal != nullptr;
  r.bandwidth = cal && cal->dram_bandwidth > 0 ? cal->dram_bandwidth
                                               : card.bandwidth * DefaultEfficiency::memory;
  // Without a measurement the L2 is taken as 3x DRAM (chipsandcheese H100: ~5.5 TB/s L2 vs
  // ~2 TB/s DRAM on the PCIe part); it matters only for L2-resident cases.
  r.l2_bandwidth = cal && cal->l2_bandwidth > 0 ? cal->l2_bandwidth : 3.0 * r.bandwidth;
  for (int i = 0; i < kPrecisionCount; ++i) {
    const double nominal = card.peak[i];
    if (nominal <= 0) continue;
    const Precision p = static_cast<Precision>(i);
    double eff = is_tensor(p) ? DefaultEfficiency::gemm : DefaultEfficiency::vector;
    r.peak[i] = cal && cal->gemm_peak[i] > 0 ? cal->gemm_peak[i] : nominal * eff;
  }
  r.attention_efficiency = DefaultEfficiency::attention;
  if (cal && cal->attention_peak > 0 && cal->gemm_peak[static_cast<int>(Precision::bf16)] > 0)
    r.attention_efficiency = cal->attention_peak / cal->gemm_peak[static_cast<int>(Precision::bf16)];
  r.kernel_floor_s = cal && cal->kernel_floor_s > 0 ? cal->kernel_floor_s : card.launch_overhead_s;
  r.host_launch_s = cal && cal->host_launch_s > 0 ? cal->host_launch_s : DefaultEfficiency::host_launch_s;
  r.ramp_t0_s = cal ? cal->ramp_t0_s : 0;
  return r;
}

namespace {

double effective_peak(const Roofs& r, Precision p) {
  double v = r.peak[static_cast<size_t>(p)];
  if (v <= 0) r.card.peak_flops(p);  // throws a clear "card has no <p> peak"
  return v;
}

}  // namespace

OpCost price(const Op& op, const Roofs& r, Impl impl, const Tile* force_tile) {
  const Card& card = r.card;
  OpCost c;
  c.nominal_bandwidth = card.bandwidth;
  const double bytes = op.bytes();
  const bool has_flops = op.flops > 0;
  c.nominal_peak = has_flops ? card.peak_flops(op.precision) : 0;
  const double f_nominal = has_flops ? op.flops / c.nominal_peak : 0;
  const double m_nominal = bytes / card.bandwidth;
  c.roofline_time_s = std::max(f_nominal, m_nominal);

  // Compute time at effective peaks.
  const double peak = has_flops ? effective_peak(r, op.precision) : 0;
  if (op.kind == OpKind::gemm && has_flops) {
    c.tiling = force_tile ? plan_tile(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, *force_tile,
                                      card.sm_count, peak)
                          : best_tile(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, card.sm_count, peak);
    c.compute_time_s = c.tiling->compute_time_s;
  } else if (op.kernel == KernelId::attention_prefill_fused && has_flops) {
    c.compute_time_s = op.flops / (peak * r.attention_efficiency);
  } else if (has_flops) {
    c.compute_time_s = op.flops / peak;
  }
  c.memory_time_s = bytes / r.bandwidth;

  // Per-kernel floor: no kernel finishes faster than the launch floor; the memory ramp adds a
  // fixed cost t0 to each memory-bound kernel (t = t0 + bytes / BW, docs/model.md).
  const double device = std::max(c.compute_time_s, c.memory_time_s) + op.launches * r.ramp_t0_s;
  const double floor = op.launches * r.kernel_floor_s;
  double time = std::max(device, floor);
  // Eager: the host issues every launch; the GPU cannot run ahead of it.
  if (impl == Impl::eager) time = std::max(time, op.launches * r.host_launch_s);
  c.time_s = time;
  c.overhead_time_s = time - std::max(c.compute_time_s, c.memory_time_s);
  if (c.overhead_time_s > std::max(c.compute_time_s, c.memory_time_s))
    c.bound = Bound::overhead;
  else
    c.bound = c.compute_time_s >= c.memory_time_s ? Bound::compute : Bound::memory;

  // Distances (seed 004 Day 15).
  const double ai = bytes > 0 ? op.flops / bytes : 0;
  if (has_flops && time > 0) {
    c.achieved_flops = op.flops / time;
    const double attainable = std::min(c.nominal_peak, ai * card.bandwidth);
    c.distance_to_roof = attainable / c.achieved_flops;
    const double ridge = c.nominal_peak / card.bandwidth;
    c.distance_to_ridge = ai < ridge && ai > 0 ? ridge / ai : 1.0;
    c.roof_gap = c.nominal_peak / peak;
  } else if (bytes > 0 && time > 0) {
    c.distance_to_roof = (bytes / time) > 0 ? card.bandwidth / (bytes / time) : 1.0;
    c.roof_gap = card.bandwidth / r.bandwidth;
  }
  return c;
}

}  // namespace perfmodel

namespace perfmodel {

StepCost price_step(const Step& step, const Roofs& roofs, Impl impl) {
  StepCost s;
  s.ops.reserve(step.ops.size());
  for (const Op& op : step.ops) {
    OpCost c = price(op, roofs, impl);
    const double n = static_cast<double>(op.count);
    s.time_s += n * c.time_s;
    s.roofline_time_s += n * c.roofline_time_s;
    (c.bound == Bound::compute ? s.compute_time_s
     : c.bound == Bound::memory ? s.memory_time_s
                                : s.overhead_time_s) += n * c.time_s;
    s.ops.push_back(std::move(c));
  }
  s.bound = Bound::memory;
  if (s.compute_time_s > s.memory_time_s && s.compute_time_s > s.overhead_time_s) s.bound = Bound::compute;
  if (s.overhead_time_s > s.memory_time_s && s.overhead_time_s > s.compute_time_s) s.bound = Bound::overhead;
  return s;
}

}  // namespace perfmodel
