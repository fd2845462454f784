// Kernel kind `moe_topk`: the router's scores and top-k selection in one kernel (vLLM
// csrc/moe/topk_softmax_kernels.cu; grouped_topk for DeepSeek-V3's sigmoid + group-limited
// routing). The router GEMM before it is a plain `gemm`.
#include <algorithm>
#include <cmath>

#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

// Reads T x E logits; per logit a score (exp or sigmoid, ~4 FLOPs), the running top-k compare
// and, for softmax, the row sum; writes k fp32 weights and k int32 expert ids per token (and the
// int32 token index vLLM keeps for the permutation).
Op ops::moe_topk(std::string name, int64_t tokens, int64_t experts, int64_t top_k, DType logits) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::other;
  op.kernel = KernelId::moe_topk;
  op.dtype = logits;
  op.precision = Precision::fp32;
  op.rows = tokens;
  op.cols = experts;
  op.moe.tokens = tokens;
  op.moe.top_k = top_k;
  op.moe.experts = experts;
  const double e = kernels::elems(tokens, experts, op.name);
  const double picks = kernels::elems(tokens, top_k, op.name);
  op.flops = 6.0 * e;
  op.bytes_read = e * bytes_of(logits);
  op.bytes_written = picks * (4.0 + 4.0 + 4.0);
  return op;
}

namespace {

// The top-k itself is k dependent rounds, each one warp's arg-max over the row: a butterfly
// reduction of the best score and one of its lowest index, 5 shuffle steps each (vLLM's
// topkGatingSoftmax, and the Triton stand-in of validation/results/h200-moe-fused2: a
// tl.max and a tl.min a round). Latency, not throughput: 243 cycles a round at the SM clock,
// fitted (median of (measured top-k kernel - the stream price, floors alone) / k) on
// fit_fused_moe.py's 9 fit decode layers (T = 1, 8, 64 of Qwen3-30B-A3B, Mixtral-8x7B,
// DeepSeek-V2-Lite; validation/scripts/moe/fit_moe_routing.py, branch idle8); held out: their
// other decode layers (within -7 / +18 %). The fused profile prices the serving
// engine's kernel; the other profiles run other kernels (torch.topk: its own launches).
// Branch moe11: the round is its shuffle chain alone, the lone warp's per-element work priced apart
// (below); refitted 243 -> 213 on the same 9 layers (fit_moe_routing.py).
constexpr double kTopkRoundCycles = 213;

// At prefill the chain is one program's and the T programs (one 1-warp CTA a token, the stand-in's
// grid) are a throughput: h200-moe8's token sweep (validation/scripts/moe/run_moe8.py) grows by
// 160-190 cycles of one SM a token at E = 8, 64 and 128 alike (k 2-8, 82-365 PTX instructions a
// program: not the issue slots, 108 cycles a program at E = 128, nor the logits' stream), i.e. the
// SMs take in and retire one-warp CTAs at a fixed rate. So the programs cost T x this over the SMs,
// in parallel with the stream (compute_s: max with the bytes), after one program's chain (fixed_s).
// Fitted (median over Mixtral's and Qwen3's T = 256, 1024, 4096, 16384 of (measured - the price at
// T = 1, one program's chain) x SMs x clock / T; validation/scripts/moe/fit_moe8_routing.py); held
// out: their other T and DeepSeek-V2-Lite's sweep (at most 6.6 %), h200-moe-fused2's three
// 2048-token prefills (-8 / -8 / -4 %); the 256-expert sweep grows faster (-12 to -39 %, not explained).
// The round count above was refitted with this term in the price (255 -> 243, branch moe8).
constexpr double kTopkCtaCycles = 166;

// Past that rate a program costs its instructions at the SM's issue (branch moe10). One program's
// PTX is a fixed part, a k-dependent part (each round's two 5-step butterflies, the slot writes) and
// per element a thread holds (EP / 32, EP the row padded to a power of two; at least one) the
// softmax (load, convert, max, exp, sum, divide: 8) and per round 6 (max, ==, select the index,
// min, ==, clear): 33 + 13.5 k + max(1, EP / 32) x (6 k + 8). Read off the PTX of h200-moe8's four
// shapes (80 / 202 / 365 / 589 against 82 / 202 / 365 / 589 counted) and checked, before it was
// measured, on h200-moe10's (466 / 343 / 1037 / 1256 against 466 / 351 / 1040 / 1258). Not fitted.
// The per-element part: max(1, EP / 32) x (6 k + 8).
double topk_local_instructions(int64_t experts, int64_t top_k) {
  double ep = 1;
  while (ep < static_cast<double>(experts)) ep *= 2;
  return std::max(1.0, ep / 32.0) * (6.0 * static_cast<double>(top_k) + 8.0);
}
double topk_program_instructions(int64_t experts, int64_t top_k) {
  return 33.0 + 13.5 * static_cast<double>(top_k) + topk_local_instructions(experts, top_k);
}

// Cycles of an SM a PTX instruction of a program when the programs are issue-bound (~2.1 PTX
// instructions a cycle of the SM's four schedulers: 32 one-warp programs resident, each a chain of
// shuffles and dependent compares). Fitted (median over h200-moe8's 256-expert k 8 at T = 1024, 4096,
// 16384 of (measured - the price at T = 1) x SMs x clock / T / instructions; validation/scripts/moe/
// fit_moe10_topk.py). Held out: the rest of that sweep and h200-moe10's 160 x 6, 256 x 4, 384 x 8,
// 512 x 10 and 256 x 8 (another lease), predicted before they were measured. At 8-128 experts
// (80-365 instructions) the fixed rate above binds or nearly (365 x 0.50 = 183). Branch moe11:
// refitted 0.48 -> 0.50 with T = 1's price less the lone warp's local work as the chain.
constexpr double kTopkCyclesPerInstruction = 0.50;

// A lone warp's local work (branch moe11): at decode one program's chain also holds its per-element
// instructions (the softmax's 8 and each round's 6 over the EP / 32 elements a lane holds), issued by
// one of the SM's four schedulers at the rate above: 4 x 0.50 = 2 cycles a PTX instruction, 12 an
// element a round. Not fitted apart: a free fit of the cycles a local instruction over h200-moe8's
// 256 x 8 decode (T = 1, 64) gives 1.84 (validation/scripts/moe/fit_moe11_topk.py). At 8-128 experts
// (1-4 elements) that is 12-48 cycles a round; at 256-1024 experts (8-32) 96-384, what the 243-cycle
// round fitted at 8-128 experts missed (h200-moe10: T = 1 -10 to -13 % at EP 256, -29 % at EP 512;
// h200-moe11's 1024 x 8 -49 %). After the rounds' shuffle chain the price takes the larger of two
// throughputs: the SMs' fixed CTA rate (kTopkCtaCycles, not the issue slots: h200-moe8) plus the
// last program's local work, which that rate leaves on its chain, and the programs' issue, which
// holds every program's local work already. Tried and not kept: the local work in a max with both
// (8-128 experts at 256-2048 tokens -6 to -7 %) and in the chain throughout (past 128 experts the
// issue fit falls to 0.38 and 16384 tokens are -15 to -24 %).
constexpr double kSchedulersPerSm = 4;

// PyTorch eager's torch.topk (transformers' routers; branch moedef). Its kernels at decode are
// latency, not bytes (h200-moe's steps, torch.profiler per kernel: 4-8 us for a row of 8-128
// logits, where a stream price gives ~1 us):
//  - sbtopk::gatherTopK (aten/src/ATen/native/cuda/TensorTopK.cu, SortingRadixSelect.cuh): one CTA
//    a row of ceil(E / 32) warps; radixSelect finds the k-th value two bits at a time over the
//    32-bit key, 16 dependent passes, each a count of the row's digits (warp ballots, a shared-
//    memory sum across the warps, a barrier) that every thread then reads. A pass is
//    kSelectPassCycles plus kSelectWarpCycles per doubling of the warps (the cross-warp sum);
//  - bitonicSortKVInPlace (Sort.cu, sortKeyValueInplace) when the call sorts (sorted=True, the
//    default Qwen3-MoE's and Mixtral's routers keep; DeepSeek-V2's passes sorted=False and its
//    steps show no sort kernel): a fixed 16-slot sort of the k values and their indices, one
//    latency whatever k (3.9-4.4 us at k 2 and 8).
// Fitted on h200-moe's T = 1 decode steps only (the cropped-cache run, 5 steps: Mixtral E 8 (1
// warp) 4.08 us, DeepSeek-V2-Lite E 64 (2) 4.71 / 4.65, Qwen3 E 128 (4) 5.31 / 5.07; sort 3.90 /
// 3.90 / 4.02), each kernel's time less its launch's share of the kernel floor: 4.045 us + 0.555
// us a warp doubling (least squares on log2 warps), sort 3.85 us (median), at the 1980 MHz SM
// clock. Held out: h200-moe's T > 1, h200-moe-contiguous and h200-moe-sync. Not modelled: the
// select grows with T at decode (Qwen3 5.3 -> 8.2 us at T = 1 -> 64; 6.8 at T = 8), our reading
// the slowest row's passes (radixSelect returns early once the k-th value's digits are unique),
// and the prefill rows' throughput (T = 2048: 19.7 us measured); both under-price.
constexpr double kRadixPasses = 16;
constexpr double kSelectPassCycles = 501;
constexpr double kSelectWarpCycles = 69;
constexpr double kSortCycles = 7625;

KernelTimes torch_topk_cost(const Op& op, const Roofs& r, KernelTimes t) {
  const double clock = r.card.cuda_clock_hz;
  const double warps = std::max(1.0, std::ceil(static_cast<double>(op.cols) / 32.0));
  const double select = kRadixPasses * (kSelectPassCycles + kSelectWarpCycles * std::log2(warps)) / clock;
  const double sort = op.passes >= 2 ? kSortCycles / clock : 0;  // eager_router: passes 2 when torch.topk sorts
  const double launches = op.launches * kernel_alone_s(r.kernel_floor_s, r);
  t.fixed_s = launches + select + sort;
  t.fixed_parts = {{"launch floors", launches, "kernel_floor"},
                   {"gatherTopK: 16 dependent radix-select passes", select, ""}};
  if (sort > 0) t.fixed_parts.push_back({"bitonicSortKVInPlace: the sorted call's 16-slot sort", sort, ""});
  return t;
}

KernelTimes moe_topk_cost(const Op& op, const Roofs& r, const Tile* tile) {
  KernelTimes t = stream_cost(op, r, tile);
  if (r.profile == "eager" && r.card.cuda_clock_hz > 0) return torch_topk_cost(op, r, t);
  // Where the profile is measured on the vLLM-style MoE kernels (h200-moe-fused2), as the cycles were.
  if (r.profile != "fused" || !r.fused_moe.measured() || r.card.cuda_clock_hz <= 0 || r.card.sm_count <= 0) return t;
  const double k = static_cast<double>(op.moe.top_k);
  const double rounds = kTopkRoundCycles * k / r.card.cuda_clock_hz;
  t.fixed_s += rounds;
  if (!t.fixed_parts.empty()) t.fixed_parts.push_back({"top-k: k dependent warp arg-max rounds", rounds, ""});
  const double per_cycle = static_cast<double>(op.moe.tokens) / (static_cast<double>(r.card.sm_count) * r.card.cuda_clock_hz);
  const double retire = kTopkCtaCycles * per_cycle;  // T programs a cycle each, over the SMs
  const double issue = kTopkCyclesPerInstruction * topk_program_instructions(op.moe.experts, op.moe.top_k) * per_cycle;
  // The last program's local work after the CTA rate's programs; the issue holds it (above).
  const double local = kSchedulersPerSm * kTopkCyclesPerInstruction * topk_local_instructions(op.moe.experts, op.moe.top_k) /
                       r.card.cuda_clock_hz;
  t.compute_s = std::max({t.compute_s, retire + local, issue});
  return t;
}

}  // namespace

const KernelDef& kernel_def_moe_topk() {
  static const KernelDef d{.id = KernelId::moe_topk,
                           .name = "moe_topk",
                           .accuracy_set = "elementwise",
                           .from_case = nullptr,  // no validation launcher yet (issue 11, device side)
                           .instructions = {},
                           .cost = moe_topk_cost};
  return d;
}

}  // namespace perfmodel
