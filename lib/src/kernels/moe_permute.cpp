// Kernel kind `moe_permute`: the tokens' expert ids sorted into per-expert runs padded to the
// GEMM's block (vLLM csrc/moe/moe_align_sum_kernels.cu, moe_align_block_size), and in PyTorch
// eager (transformers 5, torch._grouped_mm path) the hidden rows gathered into expert order.
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

#include <algorithm>

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
  op.moe.tokens = tokens;
  op.moe.top_k = top_k;
  op.moe.experts = experts;
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
//  - the owners' loop, an iteration per 256 row blocks of BLOCK_M (the GEMMs' config: vLLM's default
//    16 while the tokens are at most the experts, 64 beyond, or a tuned entry's; the blocks cover the
//    picks plus E x (BLOCK_M - 1) of padding), 256 blocks against every expert's end, no load to wait on.
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

// PyTorch's argsort (aten/src/ATen/native/cuda/Sort.cpp) in the eager MoE experts: two sorts a
// layer (perm, inv_perm) over the T k int64 picks; what each runs is read off hf.json's kernel
// names (validation/results/h200-gemm11/fit_argsort.txt), its time fitted by
// validation/scripts/moe/fit_argsort.py on the fit steps of tests/test_moe_accuracy.cpp.
//  - Past 4096 keys, cub's DeviceRadixSort: ceil(64 key bits / 8 bits a pass) = 8
//    DeviceRadixSortOnesweepKernel passes a sort. At 12k-65k keys each pass is one tile per CTA in
//    a single wave, a CTA's chain (load its keys, rank them, look back over the earlier tiles'
//    digit counts, scatter): a flat time whatever the key count (2.90-3.32 us measured). Fitted:
//    the mean pass of Qwen3-30B-A3B's and DeepSeek-V2-Lite's b1 prefill on h200-moe-contiguous
//    (moe2's fit steps); held out: 13 other rows (their b4, Mixtral's b4, two other runs), 1.5 %
//    median, 11.8 % max, -4.1 % mean signed.
//  - Up to 4096 keys, one CTA sorts a row in place. Up to 32 keys a bitonic sort
//    (bitonicSortKVInPlace<.., 16, 16>): a flat time, fitted on the b1 decode steps. Beyond, cub's
//    BlockRadixSort (radixSortKVInPlace<.., threads, items>: 32 x 4 up to 128 keys, 32 x 32 up to
//    1024, 128 x 32 up to 4096): 64 / 4 digit passes, each walking a thread's items (rank, then
//    exchange key and value through shared memory): fixed + passes x items x per item, the two
//    fitted on the 32 x 4 and 32 x 32 kernels of Qwen3's and DeepSeek's decode steps. Held out:
//    Mixtral's decode (2-128 keys) and every other run; the 128-thread kernel (Mixtral prefill b1,
//    4096 keys: 18.3 us measured) is priced 13.6 us by the same rule: its four warps' block-wide
//    scans are not priced.
// The priced sort replaces the share of the op's stream price that kernel had.
constexpr int kSortKeyBits = 64;
constexpr int kOnesweepBitsPerPass = 8;
constexpr int kBlockRadixBitsPerPass = 4;
constexpr int64_t kInPlaceSortMax = 4096;
constexpr int64_t kBitonicSortMax = 32;
constexpr double kOnesweepPassSeconds = 2.928e-6;
constexpr double kBitonicSortSeconds = 1.739e-6;
constexpr double kInPlaceRadixFixedSeconds = 2.951e-6;
constexpr double kInPlaceRadixItemPassSeconds = 20.77e-9;

// One sort's time on its sorting kernels (the in-place kernel, or the onesweep passes) and their count.
double sort_time_s(int64_t keys, int& kernels) {
  if (keys > kInPlaceSortMax) {
    kernels = (kSortKeyBits + kOnesweepBitsPerPass - 1) / kOnesweepBitsPerPass;
    return kernels * kOnesweepPassSeconds;
  }
  kernels = 1;
  if (keys <= kBitonicSortMax) return kBitonicSortSeconds;
  const int items = keys <= 128 ? 4 : 32;  // radixSortKVInPlace's items a thread (Sort.cpp's dispatch)
  return kInPlaceRadixFixedSeconds +
         (kSortKeyBits / kBlockRadixBitsPerPass) * items * kInPlaceRadixItemPassSeconds;
}

// The eager profile's argsorts (eager_experts: two sorts over the T k picks). stream_cost priced
// every launch of the op alike (floor and round trip); the sorting kernels take their own time
// in place of that share, the iota, histogram, scan and memset keep it.
void price_argsorts(const Op& op, KernelTimes& t) {
  int kernels = 0;
  const double sort = sort_time_s(op.rows, kernels);
  const double per_launch = (t.fixed_s + std::max(t.compute_s, t.memory_s)) / std::max(1, op.launches);
  const double extra = 2 * std::max(0.0, sort - kernels * per_launch);
  t.fixed_s += extra;
  if (!t.fixed_parts.empty()) t.fixed_parts.push_back({"argsort: the sort kernels past their launch floors", extra, ""});
}

KernelTimes moe_permute_cost(const Op& op, const Roofs& r, const Tile* tile) {
  KernelTimes t = stream_cost(op, r, tile);
  if (r.profile == "eager" && op.cols == 1) price_argsorts(op, t);
  // The fused profile's align (no row gather); the other profiles run PyTorch's sort and gather.
  // Where the profile is measured on the vLLM-style MoE kernels (h200-moe-fused2), as the cycles were.
  if (r.profile != "fused" || !r.fused_moe.measured() || op.cols != 1 || r.card.cuda_clock_hz <= 0 || r.card.sm_count <= 0)
    return t;
  int64_t padded = 1;
  while (padded < op.moe.experts) padded *= 2;
  const int64_t picks = op.rows;
  // The GEMMs' BLOCK_M sets the padding: a tuned file's entry (`--moe-config`), else vLLM's default.
  const int64_t block_m = op.moe.tile.block_m > 0 ? op.moe.tile.block_m : op.moe.tokens <= op.moe.experts ? 16 : 64;
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
