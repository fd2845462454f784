#include "perfmodel/price.hpp"

#include "perfmodel/attention_schedule.hpp"
#include "perfmodel/decode_attention.hpp"
#include "perfmodel/instructions.hpp"
#include "perfmodel/l2_residency.hpp"
#include "perfmodel/ops.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
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
  auto pick = [](double measured, double fallback) { return measured > 0 ? measured : fallback; };
  const double stream = card.bandwidth * DefaultEfficiency::memory;
  const double copy = cal ? pick(cal->dram_bandwidth, stream) : stream;
  r.read_bandwidth = cal ? pick(cal->read_bandwidth, copy) : stream;
  r.write_bandwidth = cal ? pick(cal->write_bandwidth, copy) : stream;
  // Without a measurement the L2 is taken as 1.5x DRAM (measured 6.0 vs 4.0 TB/s on the H200);
  // it matters only for L2-resident cases.
  r.l2_bandwidth = cal ? pick(cal->l2_bandwidth, 1.5 * copy) : 1.5 * stream;
  for (int i = 0; i < kPrecisionCount; ++i) {
    const double nominal = card.peak[i];
    if (nominal <= 0) continue;
    const Precision p = static_cast<Precision>(i);
    const double eff = is_tensor(p) ? DefaultEfficiency::gemm : DefaultEfficiency::vector;
    r.peak[i] = cal ? pick(cal->gemm_peak[i], nominal * eff) : nominal * eff;
  }
  const double bf16 = card.peak[static_cast<int>(Precision::bf16)] > 0 ? card.peak[static_cast<int>(Precision::bf16)]
                                                                      : card.peak[static_cast<int>(Precision::fp16)];
  r.attention_peak = cal ? pick(cal->attention_peak, bf16 * DefaultEfficiency::attention) : bf16 * DefaultEfficiency::attention;
  if (cal && cal->attention_softmax_share >= 0) r.attention_softmax_share = cal->attention_softmax_share;
  if (cal && cal->attention_cta_fixed_s >= 0) r.attention_cta_fixed_s = cal->attention_cta_fixed_s;
  r.kernel_floor_s = cal ? pick(cal->kernel_floor_s, card.launch_overhead_s) : card.launch_overhead_s;
  r.kernel_switch_s = cal && cal->kernel_switch_s >= 0 ? cal->kernel_switch_s : 0.0;
  r.pass_latency_s = cal ? pick(cal->pass_latency_s, DefaultEfficiency::pass_latency_s) : DefaultEfficiency::pass_latency_s;
  r.l2_pass_latency_s = cal ? pick(cal->l2_pass_latency_s, DefaultEfficiency::l2_pass_latency_s) : DefaultEfficiency::l2_pass_latency_s;
  // GEMM fixed costs: a fitted 0 is a value (negative: not measured).
  r.gemm_fixed_s = cal && cal->gemm_fixed_s >= 0 ? cal->gemm_fixed_s : DefaultEfficiency::gemm_fixed_s;
  // Eager: the framework's dispatch per op when measured, else the CUDA launch's wall time.
  r.host_launch_s = cal ? pick(cal->eager_dispatch_s, pick(cal->host_launch_s, DefaultEfficiency::host_launch_s))
                        : DefaultEfficiency::host_launch_s;
  r.eager_view_s = cal ? pick(cal->eager_view_s, DefaultEfficiency::eager_view_s) : DefaultEfficiency::eager_view_s;
  r.decode.cpi = cal ? pick(cal->decode.cpi, DefaultEfficiency::decode_cpi) : DefaultEfficiency::decode_cpi;
  r.decode.cpi_per_cta = cal ? pick(cal->decode.cpi_per_cta, DefaultEfficiency::decode_cpi_per_cta) : DefaultEfficiency::decode_cpi_per_cta;
  r.decode.cta_fixed_s = cal ? pick(cal->decode.cta_fixed_s, DefaultEfficiency::decode_cta_fixed_s) : DefaultEfficiency::decode_cta_fixed_s;
  r.decode.combine_split_s = cal ? pick(cal->decode.combine_split_s, DefaultEfficiency::decode_combine_split_s)
                                 : DefaultEfficiency::decode_combine_split_s;
  r.decode.overlap = cal ? cal->decode.overlap : 0.0;
  r.gemm_fixed_per_k_s = cal && cal->gemm_fixed_per_k_s >= 0 ? cal->gemm_fixed_per_k_s : DefaultEfficiency::gemm_fixed_per_k_s;
  r.gemm_stream_efficiency = cal ? pick(cal->gemm_stream_efficiency, DefaultEfficiency::gemm_stream) : DefaultEfficiency::gemm_stream;
  const double issue_eff = cal ? pick(cal->issue_efficiency, DefaultEfficiency::issue) : DefaultEfficiency::issue;
  r.issue_rate = issue_slots_per_second(card) * issue_eff;
  if (cal) r.thread_chain_s = cal->thread_chain_s;
  r.l2_cyclic_capacity = cal && cal->l2_cyclic_capacity > 0 ? cal->l2_cyclic_capacity : card.l2_bytes / 2;
  if (cal) r.power = cal->power;
  return r;
}

namespace {

double effective_peak(const Roofs& r, Precision p) {
  double v = r.peak[static_cast<size_t>(p)];
  if (v <= 0) r.card.peak_flops(p);  // throws a clear "card has no <p> peak"
  return v;
}

}  // namespace

// One K/V tile of flash prefill on one SM: QK^T and PV (4 x 128 x 128 x d FLOPs) scale with the
// head dim; the softmax between them (exp, max, sum over 128 x 128 scores) does not. Calibrated
// at d = 128 (attention_peak) with the non-scaling share from d = 64.
double attention_tile_time(const Roofs& r, int64_t head_dim) {
  const double t128 = 4.0 * kAttentionTile * kAttentionTile * 128.0 / (r.attention_peak / r.card.sm_count);
  const double s = r.attention_softmax_share;
  return t128 * ((1 - s) * static_cast<double>(head_dim) / 128.0 + s);
}

namespace {

// What one thread's chain of dependent work adds to a small kernel beyond a copy's: index
// arithmetic (64-bit divisions), dependent index loads (embedding ids, rotary positions), block
// reductions, the math between load and store. Latency, not throughput: it shows when the
// grid is too small to hide it, and it is the same whether the data comes from L2 or DRAM.
// Calibrated per kernel on tiny L2-resident launches, per iteration of the thread's loop (a
// norm's thread walks its share of a row in cols / (8 x 256) steps, each waiting on the last);
// uncalibrated, the thread's instructions
// beyond a copy's (one copy per kernel of a chain) each wait the dependent-issue latency of a
// warp alone on its scheduler (the flash-decoding cpi, docs/model.md).
double thread_chain_time(const Op& op, const Roofs& r) {
  const double measured = r.thread_chain_s[static_cast<size_t>(op.kernel)];
  if (measured >= 0) return measured * static_cast<double>(thread_iterations(op.kernel, op.cols, op.dtype));
  if (r.card.cuda_clock_hz <= 0 || op.cols <= 0) return 0;
  const double extra = thread_instructions(op.kernel, op.cols, op.dtype) -
                       op.launches * thread_instructions(KernelId::copy, op.cols, op.dtype);
  return std::max(0.0, extra) * r.decode.cpi / r.card.cuda_clock_hz;
}

}  // namespace

// cuBLAS schedules stream-K hybrids from Hopper (CC 9.0) on.
bool stream_k_capable(const Card& card) {
  return !card.compute_capability.empty() && std::isdigit(static_cast<unsigned char>(card.compute_capability[0])) &&
         std::atoi(card.compute_capability.c_str()) >= 9;
}

TilePlan gemm_plan(const Card& card, int64_t m, int64_t n, int64_t k, int64_t batch, double peak_flops) {
  // One fp32 partial tile is written and read back at an SM's L2 port (64 B per clock).
  const double fixup_rate = stream_k_capable(card) ? 64.0 * card.tensor_clock_hz : 0.0;
  return best_plan(m, n, k, batch, card.sm_count, peak_flops, fixup_rate);
}

namespace {

// A batched GEMM: `batch` independent y = x W^T of one shape.
Op batched_gemm(const std::string& name, int64_t batch, int64_t m, int64_t n, int64_t k, DType t, Precision p) {
  Op g = ops::gemm(name, m, n, k, t, t, p);
  const double b = static_cast<double>(batch);
  g.gemm.batch = batch;
  g.flops *= b;
  g.model_flops *= b;
  g.bytes_read *= b;
  g.bytes_written *= b;
  return g;
}

// The unfused (eager math) attention as the three kernels it launches: S = Q K^T batched over
// (sequence, KV head) with the G query heads of a group stacked as rows, the row softmax of S
// in place, and O = P V.
std::vector<Op> unfused_attention_kernels(const Op& op) {
  const AttentionShape& a = op.attention;
  const int64_t groups = a.batch * a.kv_heads, g = a.heads / a.kv_heads;
  return {batched_gemm("qk", groups, g * a.q_len, a.kv_len, a.head_dim, op.dtype, op.precision),
          ops::softmax("softmax", a.batch * a.heads * a.q_len, a.kv_len, op.dtype, true),
          batched_gemm("pv", groups, g * a.q_len, a.head_dim, a.kv_len, op.dtype, op.precision)};
}

}  // namespace

OpCost price(const Op& op, const Roofs& r, Impl impl, const Tile* force_tile) {
  const Card& card = r.card;
  if (op.kernel == KernelId::attention_prefill_unfused && op.attention.batch > 0) {
    // Priced kernel by kernel; the op keeps its own FLOPs, bytes and roofline.
    OpCost total;
    for (const Op& k : unfused_attention_kernels(op)) {
      const OpCost c = price(k, r, impl);
      total.time_s += c.time_s;
      total.compute_time_s += c.compute_time_s;
      total.memory_time_s += c.memory_time_s;
    }
    total.nominal_bandwidth = card.bandwidth;
    total.nominal_peak = card.peak_flops(op.precision);
    total.roofline_time_s = std::max(op.flops / total.nominal_peak, op.bytes() / card.bandwidth);
    total.overhead_time_s = std::max(0.0, total.time_s - std::max(total.compute_time_s, total.memory_time_s));
    total.bound = total.compute_time_s >= total.memory_time_s ? Bound::compute : Bound::memory;
    total.achieved_flops = op.flops / total.time_s;
    return total;
  }
  OpCost c;
  c.nominal_bandwidth = card.bandwidth;
  const double bytes = op.bytes();
  const bool has_flops = op.flops > 0;
  c.nominal_peak = has_flops ? card.peak_flops(op.precision) : 0;
  const double f_nominal = has_flops ? op.flops / c.nominal_peak : 0;
  const double m_nominal = bytes / card.bandwidth;
  c.roofline_time_s = std::max(f_nominal, m_nominal);

  // Compute: GEMMs by tiles and waves, flash attention by its CTA schedule, the rest at the
  // effective peak of their unit.
  const double peak = has_flops ? effective_peak(r, op.precision) : 0;
  double fixed = op.launches * r.kernel_floor_s;
  // Multi-kernel chains (unfused GELU, naive softmax): each kernel after the first reads what the
  // previous one just wrote. Between the write and the read of a line pass the rest of that
  // tensor and of the one being written: the share still in L2 after twice the tensor's bytes
  // (l2_residency.hpp) is read from L2.
  const double elems = static_cast<double>(op.rows) * static_cast<double>(op.cols);
  const bool chain = op.launches > 1 && op.kind != OpKind::attention && elems > 0;
  const double chain_hit = chain ? cyclic_l2_hit(2 * elems * bytes_of(op.dtype), r.l2_cyclic_capacity) : 0.0;
  double decode_memory_s = 0;  // flash-decoding: the wave-by-wave stream and tile chain
  if (op.kind == OpKind::gemm && has_flops) {
    c.tiling = force_tile ? plan_tile(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, *force_tile,
                                      card.sm_count, peak)
                          : gemm_plan(card, op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, peak);
    c.compute_time_s = c.tiling->compute_time_s;
    // GEMV-shaped products (a few rows) run as dot products, not padded MMA tiles.
    if (op.gemm.m <= 8) c.compute_time_s = op.flops / peak;
    // Prologue and epilogue, and the K loop one CTA walks (its pipeline latency is not hidden
    // behind a weight stream): fitted on the calibration's M and K ramps.
    fixed += r.gemm_fixed_s + r.gemm_fixed_per_k_s * c.tiling->k_per_cta / 1024.0;
    if (c.tiling->split_k > 1) fixed += r.kernel_floor_s + r.pass_latency_s;
  } else if (op.kernel == KernelId::attention_prefill_fused && has_flops) {
    const AttentionShape& a = op.attention;
    c.compute_time_s = prefill_attention_critical_s(a.batch, a.heads, a.q_len, a.kv_len, a.causal, a.window,
                                                    card.sm_count, r.attention_cta_fixed_s,
                                                    attention_tile_time(r, a.head_dim));
    fixed += op.passes * r.pass_latency_s;
  } else if (op.kernel == KernelId::attention_decode && op.attention.batch > 0) {
    // Flash-decoding: the split kernel's CTAs walk their key tiles one dependent step at a
    // time, then the combine merges the splits one by one.
    const AttentionShape& a = op.attention;
    const DecodeSplit d = best_decode_split(a.batch, a.heads, a.kv_heads, a.kv_len, a.head_dim, card, op.bytes_read,
                                            r.read_bandwidth, r.decode, r.pass_latency_s, r.kernel_floor_s);
    if (has_flops) c.compute_time_s = op.flops / peak;
    // The KV stream and the CTAs' chains of dependent tile steps: memory time.
    decode_memory_s = decode_split_time(d, op.bytes_read, r.read_bandwidth, card, r.decode);
    // The split kernel, and the combine only when there is more than one split.
    fixed = r.kernel_floor_s;
    if (d.splits > 1) fixed += r.kernel_floor_s + decode_combine_time(d, r.pass_latency_s, r.decode);
  } else {
    if (has_flops) c.compute_time_s = op.flops / peak;
    // Issue roof: the kernel's warp instructions at the SMs' issue rate.
    if (op.instructions > 0 && r.issue_rate > 0)
      c.compute_time_s = std::max(c.compute_time_s, op.instructions / card.limits.warp_size / r.issue_rate);
    // One round trip per dependent sweep, to where its data is: first touches wait on DRAM, or
    // on L2 for the share of a re-run working set that is still there; re-reads of what an
    // earlier sweep brought in on L2; a chain's later kernels on L2 for the share of the last
    // kernel's output that is still there.
    const double l2 = r.l2_pass_latency_s, dram = r.pass_latency_s;
    const double first = op.l2_hit * l2 + (1 - op.l2_hit) * dram;
    const int reread = std::clamp(op.reread_passes, 0, std::max(0, op.passes - 1));
    fixed += chain ? first + (op.passes - 1) * (chain_hit * l2 + (1 - chain_hit) * dram)
                   : (op.passes - reread) * first + reread * l2;
    fixed += thread_chain_time(op, r);
  }
  // Memory: reads and writes stream at their own rates; a GEMM's weight stream runs at the
  // fitted share of it (its loads wait on the MMA pipeline, not only on DRAM).
  c.memory_time_s = op.bytes_read / r.read_bandwidth + op.bytes_written / r.write_bandwidth;
  if (op.kind == OpKind::gemm) c.memory_time_s /= r.gemm_stream_efficiency;
  c.memory_time_s = std::max(c.memory_time_s, decode_memory_s);
  // Multi-kernel chains: the share of the intermediates still in L2 streams at the L2 rate; only
  // the chain's first input and last output must cross DRAM.
  if (chain && chain_hit > 0) {
    const double edge = elems * bytes_of(op.dtype);
    const double inner = op.bytes() - 2 * edge;
    if (inner > 0)
      c.memory_time_s = chain_hit * (edge / r.read_bandwidth + edge / r.write_bandwidth + inner / r.l2_bandwidth) +
                        (1 - chain_hit) * c.memory_time_s;
  }
  // The share of a re-run working set still in L2 streams at the L2 rate.
  c.memory_time_s = op.l2_hit * bytes / r.l2_bandwidth + (1 - op.l2_hit) * c.memory_time_s;
  // Row kernels (norms, softmax) run one CTA per row: with few rows the grid cannot keep
  // enough bytes in flight, and each CTA streams its row at the rate of its own in-flight
  // window: 16 KiB (256 threads x 16 B x 4 loads) per sweep latency (Little's law;
  // docs/model.md). The first window of each sweep is already paid by the sweep's latency
  // (fixed cost); what a sweep reads beyond it streams at that rate. Rows beyond the resident
  // slots run in waves.
  const double sweep_latency = op.l2_hit * r.l2_pass_latency_s + (1 - op.l2_hit) * r.pass_latency_s;
  if ((op.kind == OpKind::norm || op.kernel == KernelId::softmax_fused) && op.rows > 0 && sweep_latency > 0) {
    constexpr double window = 16384.0;
    const double row = static_cast<double>(op.cols) * bytes_of(op.dtype);
    double beyond = 0;
    for (int s = 0; s < std::min<int>(op.passes, static_cast<int>(op.row_reads_per_sweep.size())); ++s)
      beyond += std::max(0.0, op.row_reads_per_sweep[static_cast<size_t>(s)] * row - window);
    const double slots = static_cast<double>(card.sm_count) * 8.0;
    const double waves = std::ceil(static_cast<double>(op.rows) / slots);
    c.memory_time_s = std::max(c.memory_time_s, waves * beyond / (window / sweep_latency));
  }

  // t = fixed + max(compute, memory): the launch floor and each dependent sweep's latency do
  // not overlap the streaming (docs/model.md, "fixed costs").
  double time = fixed + std::max(c.compute_time_s, c.memory_time_s);
  // Eager: the host issues every framework call (one per launch, plus views that launch none);
  // the GPU cannot run ahead of it.
  if (impl == Impl::eager) time = std::max(time, op.launches * r.host_launch_s + op.framework_calls * r.eager_view_s);
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
  return c;
}

}  // namespace perfmodel

namespace perfmodel {

namespace {

// An op's time when its compute runs at clock scale phi: only compute beyond what bounded it
// before adds (memory streams and fixed costs do not follow the SM clock).
double at_clock(const OpCost& c, double phi) {
  const double busy = std::max(c.compute_time_s, c.memory_time_s);
  return c.time_s + std::max(0.0, c.compute_time_s / phi - busy);
}

}  // namespace

StepCost price_step(const Step& step, const Roofs& roofs, Impl impl) {
  StepCost s;
  s.ops.reserve(step.ops.size());  // one allocation per step
  StepLoad load;  // what the step keeps busy at the full clock (power cap)
  for (const Op& op : step.ops) {
    s.ops.push_back(price(op, roofs, impl));
    // In a step every op starts after a different op's kernel (docs/model.md, "kernel switch").
    if (impl == Impl::fused && roofs.kernel_switch_s > 0) {
      s.ops.back().time_s += roofs.kernel_switch_s;
      s.ops.back().overhead_time_s += roofs.kernel_switch_s;
    }
    const double peak = roofs.peak[static_cast<size_t>(op.precision)];
    const double n = static_cast<double>(op.count);
    if (op.kernel == KernelId::attention_prefill_fused) load.attention_s += n * s.ops.back().compute_time_s;
    else if (is_tensor(op.precision) && op.flops > 0 && peak > 0) load.tensor_s += n * op.flops / peak;
  }
  // A serving loop runs its steps back to back: the power cap sets the clock (power.hpp).
  auto step_time = [&](double phi) {
    double t = 0;
    for (size_t i = 0; i < s.ops.size(); ++i) t += static_cast<double>(step.ops[i].count) * at_clock(s.ops[i], phi);
    return t;
  };
  s.clock_scale = capped_clock_scale(roofs.power, load, step_time);
  for (size_t i = 0; i < s.ops.size(); ++i) {
    OpCost& c = s.ops[i];
    if (s.clock_scale < 1) {
      c.time_s = at_clock(c, s.clock_scale);
      c.compute_time_s /= s.clock_scale;
      c.overhead_time_s = c.time_s - std::max(c.compute_time_s, c.memory_time_s);
      if (c.bound != Bound::overhead) c.bound = c.compute_time_s >= c.memory_time_s ? Bound::compute : Bound::memory;
      if (step.ops[i].flops > 0 && c.time_s > 0) c.achieved_flops = step.ops[i].flops / c.time_s;
    }
    const double n = static_cast<double>(step.ops[i].count);
    s.time_s += n * c.time_s;
    s.roofline_time_s += n * c.roofline_time_s;
    (c.bound == Bound::compute ? s.compute_time_s
     : c.bound == Bound::memory ? s.memory_time_s
                                : s.overhead_time_s) += n * c.time_s;
  }
  s.bound = Bound::memory;
  if (s.compute_time_s > s.memory_time_s && s.compute_time_s > s.overhead_time_s) s.bound = Bound::compute;
  if (s.overhead_time_s > s.memory_time_s && s.overhead_time_s > s.compute_time_s) s.bound = Bound::overhead;
  return s;
}

}  // namespace perfmodel
