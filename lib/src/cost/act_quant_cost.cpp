// Activation quantization's kernels as PyTorch runs them (the forms: lib/src/quant/
// act_quant_forms.cpp), measured as validation/results/h200-quant's act_quant cases (PyTorch 2.11,
// H200). Under the compiled profile Inductor's Triton kernels; under the eager profile the amax is
// ATen's reduce_kernel (its other kernels are ATen's elementwise ones, priced as such); the fused
// profile prices the serving engine's CUDA kernels (vLLM's, not measured) as streams.
#include "act_quant_cost.hpp"

#include <algorithm>
#include <cmath>

#include "inductor_lone_warp.hpp"

namespace perfmodel {

namespace {

// Inductor's looped reductions walk a row in blocks of 2048 (its contiguous config, R0_BLOCK
// 2048, 16 warps: 4 CTAs an SM) with num_stages 1: each block's loads wait on the last
// (stream_cost.cpp, inductor_walk_s).
constexpr double kBlock = 2048, kCtasPerSm = 4;
// FITTED (the one parameter): the share of the card's copy streams (read_bandwidth for the bf16
// in, write_bandwidth for the fp8 out) that a torch.compile(dynamic=True)'s pointwise scale-and-cast
// sweep reaches (triton_poi_fused__to_copy_clamp_div: ~2.4 TB/s of its 3 bytes an element on the
// H200, where the copy's rate is 3.9). A share, so that another card's streams carry it. Fitted by
// validation/scripts/act_quant/fit_act_quant.py on h200-quant's compiled static cases at K = 4096
// and 14336 (median of stream time / (time - fixed part) over M >= 1024); K = 8192 held out.
constexpr double kSweepStreamShare = 0.581;
// FITTED (two, on static-shape compiles): the share of the copy streams a dynamic=False compile's
// unmasked, vectorized pointwise sweep reaches, and the share of a round trip that a looped
// reduction's block costs when its loads are 16-byte vectors of a constant-length row (the
// masked or unaligned scalar walk pays the whole round trip, as fitted on h200-quant's
// dynamic=True cases; a constant trip count also lets the compiler overlap the blocks' loads,
// which is our reading, not verified in SASS). A grid in steps of 0.05 minimizing the median
// |error| over h200-actq15's 30 compiled cases at K = 3584 and 18944 (all three modes, M 1-4096;
// `ACTQ_DEBUG=1 build/tests/test_act_quant_accuracy -s`); K = 5120 held out (15 cases).
// Branch actq17 split the walk share in two (the per-token kernel's walk and the split
// reduction's partials, which differ in what follows the walk: a second sweep of the row, or
// only the partial's store), with every CTA walk paid by whole waves, no second-sweep block in
// the partials, and a walk share scaling only the DRAM part of a block's round trip (inductor_cost):
// refitted the same way (the same 30 cases, a grid in steps of 0.05, least median
// |error|; K = 5120 still held out): the sweep stays 0.85, the per-token walk 0.65 -> 0.60, the
// partials' walk 0.75 (`python3 validation/scripts/act_quant/fit_act_quant17.py`).
constexpr double kStaticSweepShare = 0.85, kVectorWalkShare = 0.60, kVectorPartialsShare = 0.75;
// FITTED (branch actq17): a scalar (masked or unaligned) walk of the split reduction's partials
// costs this many DRAM round trips a 2048-element block: 4 scalar 2-byte loads a thread a block
// against one 8-byte vector, ~1.02 us a block measured where the round trip is 0.91 (actq14's
// "-7 to -9 % at every size" on h200-quant's dynamic=True per-tensor cases, which the second-sweep
// block, priced on the partials until actq17, partly hid). Grid in steps of 0.01 over h200-quant's
// compiled cases at K = 4096 and 14336 (least median |error|; K = 8192 held out).
constexpr double kScalarPartialsShare = 1.12;

// The pointwise sweep's share of the copy streams: a dynamic-shape compile's masked, scalar
// accesses (act_quant_forms.cpp marks them `strided`) reach kSweepStreamShare; a static compile's
// unmasked 16-byte vectors kStaticSweepShare (h200-actq15: 63.9 us against 132.8 us at 4096 x
// 18944, the same kernel but for the mask; inductor_code.json).
double sweep_share(const Op& op) { return op.strided ? kSweepStreamShare : kStaticSweepShare; }

double round_trip(const Op& op, const Roofs& r) {
  return op.l2_hit * r.l2_pass_latency_s + (1 - op.l2_hit) * r.pass_latency_s;
}

// Inductor (act_quant_forms.cpp compiled_form). Every kernel: the launch floor, and the drain of
// its stores (an L2 round trip, as stream_cost.cpp prices a persistent reduction's store).
// Pointwise: one round trip, then the sweep at its rate. A looped row reduction (per token, or the
// split reduction's partials): each CTA walks its row's blocks, a round trip each (its DRAM part
// scaled by the kernel's walk share), the per-token kernel plus the first load of the row's second
// sweep (its later loads re-read what the first sweep brought into L2 and are not priced:
// h200-quant's 16-row calls grow 0.92 us a 2048-column block, the round trip, from an intercept of
// the floor, one round trip and the drain); the rows run in whole waves of 4 CTAs an SM;
// the per-token kernel's second sweep scales and casts the row as the pointwise kernel does. The
// split reduction's combine: a persistent reduction of the partials (in L2), its own launch.
KernelTimes inductor_cost(const Op& op, const Roofs& r) {
  KernelTimes t;
  const double floor = kernel_alone_s(r.kernel_floor_s, r), drain = r.l2_pass_latency_s;
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
  const bool reduction = op.kernel == KernelId::act_amax || op.passes > 1;
  if (!reduction) {
    t.fixed_s = floor + round_trip(op, r) + drain;
    t.fixed_s += inductor_group_quant_chain_s(op, r);  // the group quantization's thread chain (branch group17)
    t.compute_s = stream_memory_s(op, r) / sweep_share(op);
    return t;
  }
  const double blocks = std::ceil(static_cast<double>(op.cols) / kBlock);
  // Whole waves: a CTA's walk is a chain of dependent round trips, so a wave that is only partly
  // full still takes the whole chain (branch actq17; before, a fractional wave count: 640 partials
  // of 8192 at 1024 x 5120 were priced 1.2 walks where the card runs 528 CTAs at a time, then 112).
  const double waves = std::max(1.0, std::ceil(static_cast<double>(op.rows) / (kCtasPerSm * r.card.sm_count)));
  t.fixed_s = floor + drain;
  const bool partials = op.kernel == KernelId::act_amax;
  const double share = partials ? (op.strided ? kScalarPartialsShare : kVectorPartialsShare) : op.strided ? 1.0 : kVectorWalkShare;
  // The per-token kernel's walk ends in the first load of its second sweep (one more round trip);
  // the partials' walk ends in their store only (the drain in fixed_s).
  // The share scales the DRAM part of a block's round trip only (the overlap of the blocks' DRAM
  // requests); a block from L2 pays the L2 round trip whole. h200-actq15's one-row calls (L2-resident
  // rotations) walk ~0.35 us a block (0.8 of the 0.44-us L2 round trip; priced 0.27 with the share,
  // now 0.44: -12..-16 % -> +13..+14 %) where the DRAM walks pay 0.4-0.65 of 0.91 (branch actq17; the
  // same shares fit either way, the fit half 8.1 / 23.4 -> 7.5 / 23.3 %, K 5120 held out 7.0 / 15.5 ->
  // 6.9 / 13.8 %).
  const double block = op.l2_hit * r.l2_pass_latency_s + (1 - op.l2_hit) * r.pass_latency_s * share;
  t.compute_s = waves * (blocks + (partials ? 0 : 1)) * block;
  if (partials) {  // + the combine
    t.fixed_s += floor + r.l2_pass_latency_s + drain + (op.launches - 1) * r.harness_idle_s;
  } else {
    t.compute_s += stream_memory_s(op, r) / sweep_share(op);
  }
  return t;
}

// ATen's reduce_kernel<512, 1> for the eager amax (aten/src/ATen/native/cuda/Reduce.cuh,
// setReduceConfig), as aten_kernel_cost.cpp row_reduce prices the fp32 mean: a 512-thread CTA
// of min(16, rows) rows of threads, 32 threads along a row (512 along the one row of a whole
// tensor); a thread walks its values 16 a round (4-wide loads unrolled 4: ReduceOp<BFloat16, ...,
// 4, 4> in the kernel names), each round a dependent trip to memory, 4 CTAs an SM a wave, one more
// round trip for the cross-warp combine. Where a thread would walk 256 values or more, the CTA's
// rows of threads split the row instead (one row a CTA); where it still would, the row is split
// across CTAs (ctas_per_output: a round or so each, the last one combining the partials from
// global memory, one more round trip, after the Memset act_quant_forms.cpp adds). So 16 rows of
// 4096 walk 8 rounds and 16 of 8192 one: h200-quant's eager per-token calls are slower at K 4096
// than at 8192 from 16 to 128 rows. No parameter.
KernelTimes aten_amax_cost(const Op& op, const Roofs& r) {
  auto last_pow2 = [](int64_t n) {
    int64_t p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
  };
  constexpr double threads = 512, per_round = 16, split_at = 256;
  const double height = static_cast<double>(std::min<int64_t>(16, last_pow2(std::max<int64_t>(1, op.rows))));
  const double width = std::min(static_cast<double>(last_pow2(std::max<int64_t>(1, op.cols))), threads / height);
  const double slots = kCtasPerSm * r.card.sm_count;
  double per_thread = static_cast<double>(op.cols) / width;
  double ctas = std::ceil(static_cast<double>(op.rows) / height);
  KernelTimes t;
  t.fixed_s = r.kernel_floor_s + r.pass_latency_s;
  // The amax's store drains before the chain's next kernel starts (Op::store_drain, branch actqeager).
  if (op.store_drain) t.fixed_s += r.l2_pass_latency_s;
  if (per_thread >= split_at && height > 1) {  // the CTA's rows of threads split one row
    per_thread = std::ceil(per_thread / height);
    ctas = static_cast<double>(op.rows);
  }
  if (per_thread >= split_at) {  // across CTAs, then the last one's combine
    const double per_output = std::min(std::ceil(per_thread / per_round), std::max(1.0, std::floor(slots / ctas)));
    per_thread = std::ceil(per_thread / per_output);
    ctas *= per_output;
    t.fixed_s += r.pass_latency_s;
  }
  const double waves = std::max(1.0, std::ceil(ctas / slots));
  // A round's loads of every thread of the wave cross memory together: its last value lands one
  // round trip and the round's bytes at the stream after its first load (branch actqeager). The
  // 1x128-group amax (131072 rows of 128 at 4096 x 4096: 16 waves of 528 CTAs, one round each, 4.3 MB
  // a round) profiles 42.0 us, 2.6 us a wave (h200-group16/kernel_split.json) where a round trip a
  // wave priced 14.6; a wave is not the round trip alone once its bytes take longer than it to stream.
  const double elements = static_cast<double>(op.rows) * static_cast<double>(op.cols);
  const double round_bytes = std::min(ctas, slots) * height * width * std::min(per_round, per_thread) * (elements > 0 ? op.bytes_read / elements : 0);
  const double round_stream = round_bytes * (op.l2_hit / r.l2_bandwidth + (1 - op.l2_hit) / r.read_bandwidth);
  t.compute_s = waves * std::ceil(per_thread / per_round) * (round_trip(op, r) + round_stream);
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
  return t;
}

}  // namespace

KernelTimes act_quant_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  if (r.profile == "compiled") return inductor_cost(op, r);
  if (r.profile == "eager" && op.kernel == KernelId::act_amax) return aten_amax_cost(op, r);
  return stream_cost(op, r, force_tile);
}

}  // namespace perfmodel
