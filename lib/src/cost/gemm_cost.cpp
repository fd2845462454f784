// Tensor-core GEMMs: tiles and waves (gemm_tiling.hpp), split-K and stream-K, prologue and
// epilogue, and the weight stream of skinny products (docs/model.md, "GEMM").
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "kernel_costs.hpp"
#include "perfmodel/cutlass_tf32_split.hpp"
#include "perfmodel/xmma_tf32.hpp"

namespace perfmodel {

// cuBLAS schedules stream-K hybrids from Hopper (CC 9.0) on.
bool stream_k_capable(const Card& card) {
  return !card.compute_capability.empty() && std::isdigit(static_cast<unsigned char>(card.compute_capability[0])) &&
         std::atoi(card.compute_capability.c_str()) >= 9;
}

namespace {
constexpr int64_t kGemvMaxRows = 8;  // products of at most this many rows run as dot products
// One fp32 partial tile is written and read back at an SM's L2 port (64 B per clock); 0: the
// card runs no stream-K.
double fixup_rate(const Card& card) { return stream_k_capable(card) ? 64.0 * card.tensor_clock_hz : 0.0; }
}  // namespace

TilePlan fit_gemm_plan(const Card& card, int64_t m, int64_t n, int64_t k, int64_t batch, double peak_flops) {
  return best_plan(m, n, k, batch, card.sm_count, peak_flops, fixup_rate(card));
}

TilePlan gemm_plan(const Card& card, int64_t m, int64_t n, int64_t k, int64_t batch, double peak_flops,
                   const PlanCosts& costs) {
  return cheapest_plan(m, n, k, batch, card.sm_count, peak_flops, fixup_rate(card), costs);
}

KernelTimes gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  if (op.flops <= 0) return stream_cost(op, r, force_tile);
  if (!force_tile && unaligned_gemm_rows(op)) return unaligned_gemm_cost(op, r);
  const Card& card = r.card;
  const double peak = effective_peak(r, op.precision);
  // The weight stream runs at the fitted share of a copy's read rate (its loads wait on the MMA
  // pipeline, not only on DRAM).
  PlanCosts costs;
  costs.memory_s = with_l2_hit(op, r, stream_memory_s(op, r) / r.gemm_stream_efficiency);
  // Prologue and epilogue, and the K loop one CTA walks (its pipeline latency is not hidden
  // behind a weight stream): fitted on the calibration's M and K ramps. A split-K plan pays its
  // reduction kernel (floor + one sweep) on top.
  costs.fixed_s = op.launches * r.kernel_floor_s + r.gemm_fixed_s;
  costs.per_1024_k_s = r.gemm_fixed_per_k_s;
  // The reduce is one small elementwise kernel: a floor and one sweep. A calibration measures the two apart
  // (the H200's kernel_floor 0.51 us is the smallest kernel, pass_latency 0.91 us the memory ramp's excess
  // over it). Uncalibrated, kernel_floor is the card's launch_overhead, which IS the smallest elementwise
  // kernel whole, its sweep included ("measured 1.0-1.5 us on the lent H200", hardware/*.yaml): adding
  // pass_latency priced that sweep twice (the B200's splitKreduce 1.8 us against the H200's measured 1.64,
  // fused block), and a split plan at 16 rows over the unsplit hybrid at 128 (branch monotone2:
  // GPT-2 XL prefill on the B200, tests/test_properties.cpp).
  costs.split_k_s = r.gemm_split_k_s >= 0 ? r.gemm_split_k_s
                    : r.calibrated        ? r.kernel_floor_s + r.pass_latency_s
                                          : r.kernel_floor_s;
  // A profile's block that gives cuBLASLt's split rule (split_k_min_slice, branch block11) prices its
  // splitKreduce as measured alone and in the step (validation/results/h200-block11): its floor, then
  // the output written and each split's fp32 partials read at the card's read rate (1.5-2.1 us at
  // M <= 32, 2.4 at 64, 3.1-3.6 at 128 rows).
  if (r.gemm_split_k_min_slice > 0 && r.gemm_split_k_s >= 0 && r.read_bandwidth > 0) {
    costs.split_k_min_slice = static_cast<int64_t>(r.gemm_split_k_min_slice);
    const double outputs = static_cast<double>(op.gemm.m) * static_cast<double>(op.gemm.n) * static_cast<double>(op.gemm.batch);
    costs.split_k_s += outputs * 2.0 / r.read_bandwidth;
    costs.split_k_per_split_s = outputs * 4.0 / r.read_bandwidth;
    // Opt-in (branch gemmtile): the GEMM's own write of those partials, after its K loop, into L2 at the
    // calibrated L2 copy rate (l2_bandwidth, measured by calibrate; not fitted) while they fit what L2 keeps
    // (l2_cyclic_capacity), past it at the DRAM write rate.
    if (r.gemm_split_partials > 0 && r.l2_bandwidth > 0 && r.write_bandwidth > 0) {
      costs.split_partial_bytes = outputs * 4.0;
      costs.l2_write_rate = r.l2_bandwidth;
      costs.l2_capacity = r.l2_cyclic_capacity;
      costs.dram_write_rate = r.write_bandwidth;
    }
  }
  // A profile that measured one CTA's K loop (cuBLASLt through PyTorch: profiles.*.gemm) prices it per plan.
  costs.cta_walk_per_1024_k_s = r.gemm_cta_walk_s;
  // That walk waits on its loads' latency (Little's law, fitted on DRAM-fed weights). Operand bytes
  // L2 still holds (op.l2_hit, clamped by price() to what L2 keeps: the bf16 weight a W8A16 linear
  // just wrote, quant_lowering.cpp) come back at L2's latency: the share of the walk they take
  // shrinks by L2's ramp over DRAM's (l2_pass_latency / pass_latency, both measured by calibrate:
  // 0.444 / 0.913 us on the H200; not fitted here). Branch compiledblock.
  if (op.l2_hit > 0 && r.pass_latency_s > 0 && r.l2_pass_latency_s > 0) {
    const double l2_latency = std::min(1.0, r.l2_pass_latency_s / r.pass_latency_s);
    costs.cta_walk_per_1024_k_s *= 1 - std::min(1.0, op.l2_hit) * (1 - l2_latency);
  }
  costs.cta_walk_latency_share = r.gemm_cta_walk_share;
  // A GEMV-shaped product is priced at its FLOPs (below) and chosen by that price too where no CTA walk
  // tells few-CTA plans apart (PlanCosts::gemv_compute_s).
  if (op.gemm.m <= kGemvMaxRows && !force_tile && !(costs.cta_walk_per_1024_k_s > 0)) costs.gemv_compute_s = op.flops / peak;
  costs.nvjet_fill_tiles = r.gemm_nvjet_fill_tiles > 0;
  costs.nvjet_wave_tiles = r.gemm_nvjet_wave_tiles > 0;  // opt-in (branch gemmtile2): read where the split rule is given
  // nvjet's kernels (the block gives cuBLASLt's split rule and the CTA walk) refill their stage ring for
  // every tile after an SM's first, one DRAM latency each (pass_latency, measured by calibrate: 0.913 us on
  // the H200; not fitted): branch smallk, where K is short (SmolLM2-135M's LM head, K = 576, 49 tiles an
  // SM) this is 10-25 % of the call. tf32 runs cuBLAS's xmma kernels (not nvjet): not applied.
  // The eager block gives no split rule but runs the same nvjet kernels (its one-wave tiles: nvjet_fill_tiles).
  if (r.gemm_tile_refill > 0 && (costs.split_k_min_slice > 0 || costs.nvjet_fill_tiles) &&
      costs.cta_walk_per_1024_k_s > 0 && op.precision != Precision::tf32) {
    costs.tile_refill_s = r.pass_latency_s;
    costs.sm_count = card.sm_count;
  }
  // The output's write, at the stream's rate: with the block's epilogue_tail, the last wave writes it after
  // its K loop (PlanCosts::epilogue_tail_of; branch shortk). tf32's xmma kernels: not measured, not applied.
  if (r.gemm_epilogue_tail > 0 && costs.cta_walk_per_1024_k_s > 0 && op.precision != Precision::tf32) {
    costs.epilogue_tail = true;
    costs.write_s = (1 - std::min(1.0, op.l2_hit)) * op.bytes_written / r.write_bandwidth / r.gemm_stream_efficiency;
    costs.sm_count = card.sm_count;
  }
  KernelTimes t;
  // The plan is the one whose price is least (issue 14: chosen by compute time alone, prefill
  // steps got faster as the batch grew).
  // tf32 on Hopper runs cuBLAS's sm90 xmma kernels, not nvjet: their tile choice and whole-wave /
  // segment-K rule (xmma_tf32.hpp, branch tf32rule, validation/results/h200-tf3217).
  const bool hopper_tf32 = !force_tile && op.precision == Precision::tf32 && stream_k_capable(card);
  // At a few rows and a small weight cuBLAS runs CUTLASS sm80 split-K + splitKreduce instead, whatever
  // M's side of kXmmaMinRows (cutlass_tf32_split.hpp, branch tf32split, validation/results/h200-tf32split).
  const bool cutlass_tf32 = hopper_tf32 && cutlass_tf32_split_runs(op.gemm.m, op.gemm.n, op.gemm.k);
  const bool xmma_tf32 = hopper_tf32 && !cutlass_tf32 && op.gemm.m >= kXmmaMinRows;
  if (cutlass_tf32) {
    t.tiling = cutlass_tf32_split_plan(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, card.sm_count, peak);
    // Its multistage cp.async fill and the partials' epilogue; the reduce kernel is split_k_s (fixed_of).
    costs.fixed_s += r.gemm_cutlass_tf32_fixed_s >= 0 ? r.gemm_cutlass_tf32_fixed_s : cutlass_tf32_split_fixed_s();
  } else if (xmma_tf32) {
    t.tiling = xmma_tf32_plan(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, card.sm_count, peak);
    // The xmma kernel's own fixed time past the block's (fitted on nvjet's kernels): branch fp8tf32.
    costs.fixed_s += r.gemm_xmma_tf32_fixed_s;
  } else {
    t.tiling = force_tile ? plan_tile(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, *force_tile, card.sm_count, peak)
                          : gemm_plan(card, op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, peak, costs);
  }
  if (force_tile || xmma_tf32 || cutlass_tf32) t.tiling->cta_walk_s = costs.cta_walk_of(*t.tiling, card.sm_count);
  t.compute_s = t.tiling->compute_time_s;
  // GEMV-shaped products (a few rows) run as dot products, not padded MMA tiles. The plan is still
  // chosen by its tiles' time: that is what tells a plan of few CTAs (one SM per output tile,
  // each walking all of K) from the split-K one cuBLAS runs there.
  if (op.gemm.m <= kGemvMaxRows) t.compute_s = op.flops / peak;
  t.memory_s = std::max(costs.stream_of(*t.tiling), t.tiling->cta_walk_s);
  t.fixed_s = costs.fixed_of(*t.tiling);
  return t;
}

}  // namespace perfmodel
