// Kernel kind `moe_permute`: the tokens' expert ids sorted into per-expert runs padded to the
// GEMM's block (vLLM csrc/moe/moe_align_sum_kernels.cu, moe_align_block_size), and in PyTorch
// eager (transformers 5, torch._grouped_mm path) the hidden rows gathered into expert order.
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

// Sort: reads the T k int32 ids, writes the sorted token indices and the E + 1 expert offsets
// (a count pass and a scatter pass). Gather: T k rows of `hidden` read and written.
Op ops::moe_permute(std::string name, int64_t tokens, int64_t top_k, int64_t experts, int64_t hidden, DType act,
                    bool gather_rows) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::copy;
  op.kernel = KernelId::moe_permute;
  op.dtype = act;
  op.precision = Precision::fp32;
  const double picks = kernels::elems(tokens, top_k, op.name);
  op.rows = tokens * top_k;
  op.cols = gather_rows ? hidden : 1;
  op.moe = {tokens, top_k, experts, 0};
  op.bytes_read = picks * 4.0;
  op.bytes_written = picks * 4.0 + static_cast<double>(experts + 1) * 4.0;
  op.launches = 2;
  op.passes = 2;
  if (gather_rows) {
    const double rows = kernels::elems(tokens * top_k, hidden, op.name) * bytes_of(act);
    op.bytes_read += rows;
    op.bytes_written += rows;
    op.launches = 3;
    op.passes = 3;
  }
  return op;
}

namespace {

// The align's plan (the counts per expert, their padded prefix sum, each row block's owner) is one
// CTA: vLLM's moe_align_block_size kernel, and the Triton stand-in of
// validation/results/h200-moe-fused2 (_align_plan_kernel, then a scatter grid). Its time is that
// CTA's walk, not a stream:
//  - a cost per expert, once a launch: 116 cycles at the SM clock per expert of the padded row
//    (next power of two), fitted (median over fit_fused_moe.py's 9 fit decode layers of (measured
//    plan + scatter - the rest of this price, floors alone) / experts;
//    validation/scripts/moe/fit_moe_routing.py, branches idle8, moe8). The stand-in's plan takes
//    1.5 / 4.1 / 9.5 us at 8 / 64 / 128 experts at T = 1 (h200-moe8), nearly whatever T at decode:
//    a one-time cost in the experts (124 cycles before the compare count below was corrected).
//    Plausibly the cold fetch of its unrolled per-expert code (not measured);
//  - the count loop, an iteration per 256 picks: each waits on its ids (just written by the top-k:
//    an L2 round trip) and compares 256 picks with every expert on the one SM's issue slots;
//  - the owners' loop, an iteration per 256 row blocks of BLOCK_M (vLLM's default: 16 while the
//    tokens are at most the experts, 64 beyond; the blocks cover the picks plus E x (BLOCK_M - 1)
//    of padding), 256 blocks against every expert's end, no load to wait on.
//    A compare is 4.7 instructions a thread: the count loop's PTX grows by 4.7 a thread per expert
//    (73 / 329 / 636 / 1240 at 8 / 64 / 128 / 256 experts; h200-moe8/ptx.txt.gz, counted, not
//    fitted). h200-moe8's token sweep (T = 64-32768) gives 5.5 ns an expert per count iteration,
//    the issue slots' 5.6 at this count, and 0.41 us on top (the L2 round trip: 0.44 priced). The
//    sentinel fill's loop (7 instructions a thread an iteration, stores only) is left out;
//  - the scatter kernel after it: every pick takes its slot by a returning atomic add on its
//    expert's cursor; 0.20 ns a pick card-wide (median over Mixtral's and Qwen3's T = 256, 1024,
//    4096, 16384 of the scatter's growth from T = 1 a pick; fit_moe8_routing.py), 0.17-0.29 at
//    T >= 1024 for all four expert counts.
// Held out: the other 15 fused2 layers (the prefills -2 / -12 / +7 %) and h200-moe8's 24 held-out
// prefill cases (4.2 % median, 11.3 % max; fit_moe8_routing.py prints them).
constexpr double kPlanCyclesPerExpert = 116;
constexpr int64_t kPlanChunk = 256;
constexpr double kPlanInstructionsPerCompare = 4.7;
constexpr double kScatterSecondsPerPick = 0.20e-9;

KernelTimes moe_permute_cost(const Op& op, const Roofs& r, const Tile* tile) {
  KernelTimes t = stream_cost(op, r, tile);
  // The fused profile's align (no row gather); the other profiles run PyTorch's sort and gather.
  // Where the profile is measured on the vLLM-style MoE kernels (h200-moe-fused2), as the cycles were.
  if (r.profile != "fused" || !r.fused_moe.measured() || op.cols != 1 || r.card.cuda_clock_hz <= 0 || r.card.sm_count <= 0)
    return t;
  int64_t padded = 1;
  while (padded < op.moe.experts) padded *= 2;
  const int64_t picks = op.rows;
  const int64_t block_m = op.moe.tokens <= op.moe.experts ? 16 : 64;
  const int64_t blocks = (picks + op.moe.experts * (block_m - 1)) / block_m + 1;
  const int64_t counting = (picks + kPlanChunk - 1) / kPlanChunk;
  const int64_t owning = (blocks + kPlanChunk - 1) / kPlanChunk;
  const double sm_issue = r.issue_rate / static_cast<double>(r.card.sm_count);  // warp instructions / s
  const double compares = static_cast<double>((counting + owning) * kPlanChunk * padded);
  const double plan = kPlanCyclesPerExpert * static_cast<double>(padded) / r.card.cuda_clock_hz +
                      compares * kPlanInstructionsPerCompare / r.card.limits.warp_size / sm_issue +
                      static_cast<double>(counting) * r.l2_pass_latency_s;
  const double scatter = static_cast<double>(picks) * kScatterSecondsPerPick;
  t.fixed_s += plan + scatter;
  if (!t.fixed_parts.empty()) {
    t.fixed_parts.push_back({"align plan: one CTA's walk", plan, ""});
    t.fixed_parts.push_back({"align scatter: a returning atomic a pick", scatter, ""});
  }
  return t;
}

}  // namespace

const KernelDef& kernel_def_moe_permute() {
  static const KernelDef d{.id = KernelId::moe_permute,
                           .name = "moe_permute",
                           .accuracy_set = "elementwise",
                           .from_case = nullptr,  // no validation launcher yet (issue 11, device side)
                           .instructions = {},
                           .cost = moe_permute_cost};
  return d;
}

}  // namespace perfmodel
