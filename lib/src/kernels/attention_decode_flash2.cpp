// Kernel kind `attention_decode_flash2`: decode attention as FlashAttention-2 runs it (PyTorch SDPA's `flash`
// backend with one query token; flash-attn 2's flash_attn_with_kvcache): the GQA group swapped into the query rows,
// FlashAttention-2's split rule, flash_fwd_splitkv_kernel + its combine, or one flash_fwd_kernel
// (production_decode_cost.cpp). Priced with the calibration's `decode:` block, fitted on PyTorch's FlashAttention-2
// decode (profile_calibration.hpp, ProductionDecode); unmeasured: flash-decoding on the card's roofs.
#include <algorithm>
#include <cmath>

#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"
#include "perfmodel/production_decode.hpp"

namespace perfmodel {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Branch fa2wide: the combine's fp32 partials (each split's output row and its LSE, written by the split kernel and read
// back by flash_fwd_splitkv_combine_kernel) at this rate, per byte of one direction. Fitted (one number) on
// h200-flash2wide's 18 calls alone, the group stepped 8 -> 128 at fixed batch and keys (Nsight there: the combine
// 6.0 -> 11.1 us from group 8 to 48 at batch 160, its grid 320 -> 1920 CTAs); h200-widegroup held out.
constexpr double kPartialStream = 0.91e12;  // B/s

// Two terms the decode block's stream form lacks, both visible once the GQA group is wide (h200-flash2wide):
// - Past 64 query rows (the split kernel's tile; the group is swapped into the rows) each of ceil(group / 64) row
//   blocks is its own CTA walking the split's keys: the kernel streams the K / V that many times (96 / 128 rows ran
//   22-34 % above 64 where the one-pass price fell; the second pass priced at the stream's rate, no L2 discount).
// - The combine reads every split's partial row of every query head: splits x batch x heads x (d + 1) fp32 values.
//   Past a few hundred rows that traffic, not the per-split walk (combine_per_split), sets its time: the larger of the
//   two is priced.
void wide_group_terms(const Op& op, const ProductionDecode& d, const ProductionDecodePlan& plan, KernelTimes& t) {
  const AttentionShape& a = op.attention;
  const int64_t kvh = std::max<int64_t>(1, a.kv_heads);
  const int64_t row_blocks = ceil_div(std::max<int64_t>(1, a.heads / kvh), 64);
  if (row_blocks > 1 && op.bytes() > 0) {
    const double kv = 2.0 * static_cast<double>(a.batch * kvh * a.kv_len * a.head_dim) * bytes_of(op.kv_cache);
    t.memory_s *= (op.bytes() + static_cast<double>(row_blocks - 1) * kv) / op.bytes();
  }
  const double walk = static_cast<double>(plan.splits) * d.combine_per_split_s;
  const double partials = static_cast<double>(plan.splits * a.batch * a.heads * (a.head_dim + 1)) * 4.0 / kPartialStream;
  if (partials > walk) {
    t.fixed_s += partials - walk;
    for (auto& part : t.fixed_parts)
      if (part.what.rfind("combine walk", 0) == 0) {
        part.what = "combine: " + std::to_string(plan.splits) + " splits' fp32 partials read at " +
                    std::to_string(static_cast<int>(kPartialStream / 1e9)) + " GB/s";
        part.seconds = partials;
      }
  }
}

// The split kernel's CTAs (ctas x splits, each streaming its equal share of the cache) run in waves of two an SM. A wave
// takes the longer of DRAM's time for its CTAs' bytes (stream_bandwidth) and one CTA's own walk of its share at its
// slot's pace (cta_stream_bandwidth: loads in flight over the latency), which `walk` slows where a head dim short of its
// kernel's walks the padded kernel's key blocks (h200-oddsplit: DRAM at 54-58 % of its peak at 80 / 160 against 70-76 %
// at 96 / 192: the CTAs, not DRAM, set the pace). On the card the stream was measured on a full wave's CTAs just reach
// it, so a last wave part full streams at that part's rate (wave quantization; FlashAttention-2 picks the split count
// for a wave efficiency within 85 % of the best, flash_api.cpp). On a slower DRAM of the same die (the H100's, the
// H200's calibration carried) fewer CTAs fill it: h100-first / h100-second's 80 split calls went 9.1 / 31.8 % ->
// 3.7 / 19.1 % (mean +10.6 -> -0.8 %) against a part wave at its part's share of the card's stream; the H200 unchanged.
// A last wave of no more CTAs than SMs walks `lone` times faster (flash2.lone_pace where the caller frees it): its CTAs
// alone on their SMs where the wave before ended spread out (a wave that ends together has its successors doubled up,
// h100-widencu's placement probe). per_sm: the kernel's CTAs an SM (one at head dim 192: eight warps, both slots' loads). The
// factor multiplies the stream's time at stream_bandwidth.
double wave_stream_factor(const ProductionDecode& d, double ctas, int per_sm, int sms, double walk, double lone) {
  const double stream = d.stream_bandwidth, slots = static_cast<double>(per_sm * sms);
  // A CTA that has its SM's only slot (eight warps) keeps two four-warp CTAs' loads in flight.
  const double cta = (d.cta_stream_bandwidth > 0 ? d.cta_stream_bandwidth : stream / (2.0 * sms)) * 2.0 / per_sm;
  const double full = std::floor(ctas / slots), last = ctas - full * slots;
  // Per wave of n CTAs: max(n / stream, walk / cta) per CTA's bytes, over the stream's n / stream for all of them.
  const double one_cta = walk * stream / cta;
  double sum = full * std::max(slots, one_cta);
  if (last > 0) sum += std::max(last, last <= sms && per_sm > 1 ? one_cta / lone : one_cta);
  return sum / ctas;
}

// The call's time outside its two kernels (the split kernel's end to the combine's start: its CTAs retired and their
// partial rows written back before the dependent launch) grows with the split kernel's grid: graph-replayed calls less
// the kernels' device times (torch.profiler) went from 0.3-0.7 us at 8 CTAs to 1.0-1.5 us at 256 on one H100 lease and
// 0.7 -> 2.5-3.3 us on another (h100-lonesplit, h100-rerun25). flash2.split_gap_per_cta a CTA of the split grid,
// fitted on the H200's committed calls alone (twenty-fifth session, docs/accuracy-notes.md); unmeasured: none.
void split_grid_gap(const Flash2Prefill& f, const ProductionDecodePlan& plan, KernelTimes& t) {
  if (!f.split_gap_per_cta_s) return;
  const double gap = static_cast<double>(plan.ctas * plan.splits) * *f.split_gap_per_cta_s;
  t.fixed_s += gap;
  t.fixed_parts.push_back({"between the split kernel and its combine: " + std::to_string(plan.ctas * plan.splits) +
                               " CTAs retired (flash2.split_gap_per_cta)",
                           gap, "flash2"});
}

// The combine walks each split's partial rows from L2 (combine_per_split) unless the split kernel's later waves
// streamed enough K / V after them to push them out: a split CTA writes its partial rows as it ends, so a grid of one
// wave writes them all as its stream ends, and in a grid of several waves the first wave's rows are followed by the
// rest of the K / V. h100-combinewave (two-wave grids, splits and rows fixed): the walk 0.20 / 0.31 / 0.42 us a split
// at 17 / 34 / 51 MB of K / V after the first wave, 0.41-0.45 past it at four and six waves, 0.19 on one wave
// (h100-combinel2: 16-98 MB on one wave, 0.19-0.20). The share of the walk from DRAM ramps over one L2 cyclic capacity
// (l2_residency.hpp's random replacement) from kEvictionStart of it; the combine's CTA takes its walk at the slower
// pace for that share. kEvictionStart fitted there with flash2.combine_dram_per_split (the walk all from DRAM).
constexpr double kEvictionStart = 0.65;  // L2 cyclic capacities of K / V streamed after the first wave

double combine_pace(const Op& op, const Roofs& r, const ProductionDecodePlan& plan, double l2_pace) {
  if (!r.flash2.combine_dram_per_split_s || r.l2_cyclic_capacity <= 0) return l2_pace;
  const double grid = static_cast<double>(plan.ctas * plan.splits), slots = 2.0 * std::max(1, r.card.sm_count);
  if (grid <= slots) return l2_pace;
  const double after_first = op.bytes() * (1.0 - slots / grid);
  const double dram_share = std::clamp(after_first / r.l2_cyclic_capacity - kEvictionStart, 0.0, 1.0);
  return l2_pace + dram_share * std::max(0.0, *r.flash2.combine_dram_per_split_s - l2_pace);
}

KernelTimes flash2_decode_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  if (!r.flash2_decode.measured() || op.attention.batch <= 0) return flash_decode_cost(op, r, force_tile);
  const AttentionShape& a = op.attention;
  const ProductionDecodePlan plan = plan_production_decode(a.batch, a.heads, a.kv_heads, a.kv_len, a.head_dim, r.card.sm_count);
  if (plan.splits > 1) {
    // Split: the pair's floor, the KV stream and the combine as the decode block prices them, the stream over waves
    // (wave_stream_factor). A head dim short of the kernel's walks the padded kernel's key blocks (its loads
    // predicated, not fewer), times uneven_dim.
    // The combine's walk at FlashAttention-2's own combine kernel's pace where the flash2 block has it (measured kernel
    // by kernel: 0.18 us a split on lone and 256-CTA grids alike, where the decode block's 0.227 was fitted on whole
    // calls and stood in for the gap below on the many-CTA grids; validation/results/h100-lonesplit).
    ProductionDecode d = r.flash2_decode;
    if (r.flash2.combine_per_split_s) d.combine_per_split_s = *r.flash2.combine_per_split_s;
    d.combine_per_split_s = combine_pace(op, r, plan, d.combine_per_split_s);
    KernelTimes t = production_decode_cost(op, r, d, "flash2_decode");
    if (r.flash2.combine_per_split_s)
      for (auto& part : t.fixed_parts)
        if (part.what.rfind("combine walk", 0) == 0) part.source_key = "flash2";
    const double padded = static_cast<double>(flash2_kernel_dim(a.head_dim)) / static_cast<double>(a.head_dim);
    // A grid of no more CTAs than SMs leaves each alone on its SM: its walk at lone_pace times the paired pace, as the
    // prefill kernel's lone CTAs (h200-lonecta; the split kernel is the same tile loop).
    const int sms = std::max(1, r.card.sm_count);
    // Only a grid of no more CTAs than SMs runs alone: a split grid's last wave, its CTAs started as the uneven splits
    // before them free their slots, ran at the paired pace (4 of the 5 committed split calls with a last wave within
    // the SMs went 3-6 % further off when it was freed).
    const double lone = plan.ctas * plan.splits <= sms ? r.flash2.lone_pace.value_or(1.0) : 1.0;
    t.memory_s *= wave_stream_factor(r.flash2_decode, static_cast<double>(plan.ctas * plan.splits), 2, sms,
                                     padded * flash2_uneven_dim(r.flash2, a.head_dim), lone);
    wide_group_terms(op, d, plan, t);
    split_grid_gap(r.flash2, plan, t);
    return t;
  }
  if (!r.flash2.measured()) return production_decode_cost(op, r, r.flash2_decode, "flash2_decode");
  // The group's query heads are swapped into the query rows (seqlenq_ngroups_swapped, head dims that are multiples
  // of 8): a CTA per (sequence, KV head), walking every key tile unmasked but the last.
  const bool swapped = a.heads > a.kv_heads && a.head_dim % 8 == 0;
  const int64_t heads = swapped ? a.kv_heads : a.heads, rows = swapped ? a.heads / a.kv_heads : 1;
  // No split: flash_fwd_kernel itself, the prefill's kernel (attention_prefill_flash2) over the swapped shape.
  Op whole = ops::attention_prefill_flash2(op.name, a.batch, heads, a.kv_heads, rows, a.kv_len, a.head_dim, false, op.dtype,
                                           op.kv_cache);
  whole.bytes_read = op.bytes_read;  // the cache is read once a KV head either way
  whole.bytes_written = op.bytes_written;
  whole.l2_hit = op.l2_hit;
  KernelTimes t = kernel_def(KernelId::attention_prefill_flash2).cost(whole, r, force_tile);
  // Each CTA streams its (sequence, KV head)'s K / V once through the tile loop the split kernel runs (the same
  // cp.async loads): at the decode block's KV rate, fitted on that kernel, not at the card's read rate. The
  // memory-bound grids at head dim 256 ran 1.06-1.16x the read rate's time on both cards (h200-tailpace, h100-second's
  // sets: 266 calls never fitted, 6.7 / 15.6 -> 6.3 / 15.6 % on the H200, 8.8 / 19.4 -> 7.6 / 16.6 % on the H100).
  // Over waves as the split kernel's (wave_stream_factor): a last wave of no more CTAs than SMs at the lone pace,
  // otherwise a part wave takes a CTA's whole walk. The memory-bound grids at head dim 256 with such a last wave were
  // priced 15-22 % fast on the H100 with the stream spread evenly; at the lone pace 0-11 % (last waves of 16-96 CTAs,
  // the larger ones paired-like; twenty-second session, docs/accuracy-notes.md; heldout35 plans the check).
  const int sms = std::max(1, r.card.sm_count), per_sm = flash2_ctas_per_sm(a.head_dim);
  const double padded = static_cast<double>(flash2_kernel_dim(a.head_dim)) / static_cast<double>(a.head_dim);
  t.memory_s = with_l2_hit(op, r, op.bytes() / r.flash2_decode.stream_bandwidth *
                                      wave_stream_factor(r.flash2_decode, static_cast<double>(a.batch * heads), per_sm, sms,
                                                         padded * flash2_uneven_dim(r.flash2, a.head_dim),
                                                         r.flash2.lone_pace.value_or(1.0)));
  return t;
}

Op from_case(const KernelCase& c, bool) {
  return ops::attention_decode_flash2(c.name, c.batch, c.heads, c.kv_heads, c.kv_len, c.head_dim, c.dtype, c.dtype);
}

}  // namespace

Op ops::attention_decode_flash2(std::string name, int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len,
                                int64_t head_dim, DType act, DType kv) {
  Op op = attention_decode(std::move(name), batch, heads, kv_heads, kv_len, head_dim, act, kv);
  op.kernel = KernelId::attention_decode_flash2;
  return op;
}

const KernelDef& kernel_def_attention_decode_flash2() {
  static const KernelDef d{.id = KernelId::attention_decode_flash2,
                           .name = "attention_decode_flash2",
                           .accuracy_set = "attention",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = flash2_decode_cost};
  return d;
}

}  // namespace perfmodel
