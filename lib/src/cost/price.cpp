// price(Op, Roofs) -> OpCost: the kernel's own cost (its definition in lib/src/kernels/) gives
// compute, memory and fixed times; here they become t = fixed + max(compute, memory), the eager
// host's floor, the bound, and the seed's roofline and distances (docs/model.md).
#include <algorithm>

#include "kernel_costs.hpp"
#include "stream_rate.hpp"
#include "perfmodel/l2_residency.hpp"

namespace perfmodel {

std::string to_string(Bound b) {
  switch (b) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::overhead: return "overhead";
  }
  return "?";
}

double effective_peak(const Roofs& r, Precision p) {
  double v = r.peak[static_cast<size_t>(p)];
  if (v <= 0) r.card.peak_flops(p);  // throws a clear "card has no <p> peak"
  return v;
}

// Reads and writes at their own rates; with the calibration's stream_one_bus, one bus for both
// directions, the minority direction's bytes paying the turnaround (stream_rate.hpp). A cast takes the
// one bus always (branch compdef): Inductor's write-heavy casts run at its rate (h200-streammix: 1:2 and
// 1:4 within 5 %, the sum 10-12 % slow; the W8A16 weight copy, h200-int8-compiled); an expand (a copy
// writing more than it reads, repeat_kv) does not (h200-streammix: slower than the one bus at every g).
double stream_memory_s(const Op& op, const Roofs& r) {
  if (!r.stream_one_bus && op.kernel != KernelId::cast) return op.bytes_read / r.read_bandwidth + op.bytes_written / r.write_bandwidth;
  return mixed_stream_s(op.bytes_read, op.bytes_written, r.read_bandwidth, r.write_bandwidth);
}

double with_l2_hit(const Op& op, const Roofs& r, double memory_s) {
  return op.l2_hit * op.bytes() / r.l2_bandwidth + (1 - op.l2_hit) * memory_s;
}

namespace {

// What a kernel's first touches find in L2 is at most what the card's L2 keeps of its own bytes
// (l2_residency.hpp): a lowering that marks an op's input as just written (l2_hit 1, the fused
// decode's SiLU*mul and V write) holds on a card whose L2 holds that input, not on a 4 MiB one.
// An input written before the kernels that ran since (Op::l2_older_share) keeps what those kernels'
// stream leaves of it: the random-replacement residency of a set of their bytes (l2_residency.hpp),
// 1 while the stream fits in the capacity, falling past it (branch graphroles).
double l2_hit_held(const Op& op, const Roofs& r) {
  double hit = std::min(op.l2_hit, cyclic_l2_hit(op.bytes(), r.l2_cyclic_capacity));
  if (op.l2_older_share > 0 && op.l2_older_streamed > 0)
    hit *= 1 - op.l2_older_share * (1 - cyclic_l2_hit(op.l2_older_streamed, r.l2_cyclic_capacity));
  return hit;
}

}  // namespace

// The eager host per op: with the profile's host_per_aten (branch hostmod2) the top-level ATen
// calls transformers dispatches, each at one host rate, plus its nn.Module calls; with
// host_per_aten_view too (branch hostaten) a call that launches nothing (view, reshape, transpose,
// expand, slice: the dispatcher and a new TensorImpl) has its own rate and host_per_aten prices the
// launching ones (dispatch + TensorIterator / cuBLAS setup + cudaLaunchKernel).
double eager_host_time(const Op& op, const Roofs& r) {
  if (r.host_per_aten_s) {
    const double view = r.host_per_aten_view_s.value_or(*r.host_per_aten_s);
    return op.aten_launching_calls() * *r.host_per_aten_s + op.aten_other_calls() * view +
           op.module_calls * r.host_per_module_s.value_or(0);
  }
  const double per_launch = r.host_per_kernel_s.value_or(r.host_launch_s);
  return op.launches * per_launch + op.framework_calls * r.eager_view_s;
}

OpCost price(const Op& op_in, const Roofs& r, Impl impl, const Tile* force_tile) {
  Op held;
  const bool clamp = op_in.l2_hit > 0 && r.l2_cyclic_capacity > 0 && l2_hit_held(op_in, r) < op_in.l2_hit;
  if (clamp) {
    held = op_in;
    held.l2_hit = l2_hit_held(op_in, r);
  }
  const Op& op = clamp ? held : op_in;
  const KernelDef& def = kernel_def(op.kernel);
  if (def.price) return def.price(op, r, impl);
  const Card& card = r.card;
  OpCost c;
  c.nominal_bandwidth = card.bandwidth;
  const double bytes = op.bytes();
  const bool has_flops = op.flops > 0;
  c.nominal_peak = has_flops ? card.peak_flops(op.precision) : 0;
  const double f_nominal = has_flops ? op.flops / c.nominal_peak : 0;
  const double m_nominal = bytes / card.bandwidth;
  c.roofline_time_s = std::max(f_nominal, m_nominal);

  const KernelTimes k = def.cost(op, r, force_tile);
  c.compute_time_s = k.compute_s;
  c.memory_time_s = k.memory_s;
  c.tiling = k.tiling;
  c.fixed_parts = k.fixed_parts;
  // t = fixed + max(compute, memory): the launch floor and each dependent sweep's latency do
  // not overlap the streaming (docs/model.md, "fixed costs").
  double time = k.fixed_s + std::max(c.compute_time_s, c.memory_time_s);
  c.device_time_s = time;
  // Eager: the host issues every framework call (one per launch, plus views that launch none);
  // the GPU cannot run ahead of it. A profile measured on its framework has its own host time
  // per kernel.
  if (impl == Impl::eager) {
    c.host_time_s = eager_host_time(op, r);
    time = std::max(time, c.host_time_s);
  }
  c.time_s = time;
  c.overhead_time_s = time - std::max(c.compute_time_s, c.memory_time_s);
  if (c.overhead_time_s > std::max(c.compute_time_s, c.memory_time_s))
    c.bound = Bound::overhead;
  else
    c.bound = c.compute_time_s >= c.memory_time_s ? Bound::compute : Bound::memory;

  // Distances (seed 004 Day 15).
  const double ai = bytes > 0 ? op.flops / bytes : 0;
  const double copy_bw = 2.0 / (1.0 / r.read_bandwidth + 1.0 / r.write_bandwidth);
  if (has_flops && time > 0) {
    const double peak = effective_peak(r, op.precision);
    c.achieved_flops = op.flops / time;
    const double attainable = std::min(c.nominal_peak, ai * card.bandwidth);
    c.distance_to_roof = attainable / c.achieved_flops;
    const double ridge = c.nominal_peak / card.bandwidth;
    c.distance_to_ridge = ai < ridge && ai > 0 ? ridge / ai : 1.0;
    c.roof_gap = c.nominal_peak / peak;
  } else if (bytes > 0 && time > 0) {
    c.distance_to_roof = card.bandwidth / (bytes / time);
    c.roof_gap = card.bandwidth / copy_bw;
  }
  c.time_band = op_time_band(op, c.time_s, r);
  return c;
}

}  // namespace perfmodel
