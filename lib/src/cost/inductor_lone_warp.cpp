// Inductor's kernels of 1x128-group FP8 activation quantization under torch.compile(dynamic=True)
// (lib/src/quant/act_quant_group_forms.cpp; issue 12, branch group17). The dynamic graph's kernels
// are autotuned once, at their first call (16 rows in validation/results/h200-group16), and keep that
// block at every size (inductor_code.json: each kernel's .best_config sits beside its source):
// the group quantization XBLOCK 32 groups of 128 with 2 warps (64 elements a thread), the
// reshape's indexed copy XBLOCK 512 with 4 warps (4 elements a thread; the one-row graph's XBLOCK
// 256, 2). At few rows an SM then holds one or two such warps a scheduler, and what each thread
// does in sequence is not hidden by other warps: a warp alone on its scheduler issues one
// instruction every decode_cpi cycles (the card's measured lone-warp rate, the one
// stream_cost.cpp's one-warp reductions use).
#include "inductor_lone_warp.hpp"

#include <algorithm>
#include <cmath>

namespace perfmodel {

namespace {

// Inductor's triton_config gives a pointwise block of >= 128 elements 4 warps (the copy's
// best_config: XBLOCK 512, num_warps 4; inductor_waves.cpp the same).
constexpr double kPointwiseThreads = 4 * 32;
// The group quantization's persistent-reduction config (h200-group16/inductor_code.json,
// el/....best_config and the one-row graph's 33/....best_config: XBLOCK 32, num_warps 2).
constexpr double kGroupQuantThreads = 2 * 32;
// FITTED (one figure): SM cycles a thread of the group quantization spends on each of its elements
// after the group's load lands, where no other warp hides them: the amax's share of the shuffle and
// shared-memory tree, the IEEE division by the scale, the two clamps, the fp8 cast and the store,
// and (dynamic shapes) the row's 64-bit index division and the scalar 2-byte loads the unknown row
// stride forces (inductor_code.json). Fitted on h200-group16/kernel_split.json's K = 4096 kernel
// alone at 16 and 128 rows (the only fit width; the median of (its profiled time + the 0.46 us a
// graph replay idles after a kernel, which the priced floor holds, - its price without the chain),
// 2.55 and 2.16 us, x clock / 64: tests/test_act_quant_group_accuracy.cpp's chain test recomputes
// it and fails past 1 %); every other width and every whole call held out. About 18 dependent
// instructions an element at decode_cpi; no SASS was read.
constexpr double kGroupQuantCyclesPerElement = 72.9;

}  // namespace

std::optional<double> inductor_lone_warp_issue_s(const Op& op, const Roofs& r) {
  const double elements = static_cast<double>(op.rows) * static_cast<double>(op.cols);
  if (op.kernel != KernelId::copy || op.inductor_block <= 0 || op.instructions <= 0 || elements <= 0 ||
      r.card.cuda_clock_hz <= 0 || r.decode.cpi <= 0)
    return std::nullopt;
  // The thread's elements one after another (a block smaller than the grid's threads: the last,
  // masked elements issue all the same), each its share of the counted instructions.
  const double per_thread = std::ceil(static_cast<double>(op.inductor_block) / kPointwiseThreads);
  const double instructions = op.instructions / elements * per_thread;
  // Where an SM holds more warps a scheduler than decode_cpi the issue roof (stream_cost.cpp) is
  // the longer: the caller takes the max.
  return instructions * r.decode.cpi / r.card.cuda_clock_hz;
}

double inductor_group_quant_chain_s(const Op& op, const Roofs& r) {
  if (op.kernel != KernelId::act_quant || op.scaling != Scaling::block || op.inductor_block <= 0 ||
      r.card.cuda_clock_hz <= 0)
    return 0;
  const double per_thread = std::ceil(static_cast<double>(op.inductor_block) / kGroupQuantThreads);
  return per_thread * kGroupQuantCyclesPerElement / r.card.cuda_clock_hz;
}

}  // namespace perfmodel
