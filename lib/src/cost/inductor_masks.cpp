#include "inductor_masks.hpp"

#include <algorithm>
#include <cstdint>

namespace perfmodel {

// Inductor drops a kernel's row mask when the rows are a multiple of the largest XBLOCK
// (torch/_inductor/codegen/triton.py, _has_constant_mask: numel % TRITON_MAX_BLOCK["X"] == 0,
// 4096): the generated looped layer_norm then reads `xmask = tl.full([XBLOCK], True, ...)` at
// 4096, 8192, 12288 and 24576 rows and `xindex < xnumel` at 6144, 1000 or 528
// (validation/results/h200-eltwise*/inductor_code.json). With no row mask and whole 2048-column
// blocks (cols a multiple of R0_BLOCK) the walk issues far fewer instructions (Nsight Compute,
// smsp__inst_executed.sum, validation/results/h200-eltwise12/ncu.csv, one launch a shape):
//   no masks      4096 / 8192 x 14336: 10323 warp instructions a row (7 blocks), 8192 x 12288: 9235 (6);
//   row mask      6144 x 14336: 13683 (7 blocks);
//   both masks    6144 x 11008: 14595 (6 blocks, the last masked) = 1.188 a padded element.
// The unmasked row is a fixed part (the Welford combine across the CTA, the rsqrt) and a part a
// block: kFixed + blocks x kBlock, fitted on 4096 x 14336 and 8192 x 12288 (two counts, two
// unknowns); 8192 x 14336 (10323) and 4096 x 4096 (4707 counted, 4883 by the formula, its kept
// config the whole row) held out. The compiled layer_norm rate (fit_inductor.py) was fitted on
// masked kernels (1000 x 3072, 12288 x 5120: cols not a multiple of 2048; 528 x 8192: a row
// mask), at 6144 x 11008's 1.188 instructions a padded element (priced -4 % by it), so the issue
// time scales by the unmasked kernel's instructions a padded element over that. No time is fitted
// here. Softmax keeps its rate (its unmasked 8192 x 14336 is priced +2 % by it; its
// instructions were not counted) and rms_norm has none (it streams).
//
// With the row mask only (rows not a multiple of 4096, whole blocks) the row is again a fixed part
// and a part a block, both larger (branch eltwise13, validation/results/h200-eltwise13/ncu.csv, the
// kept config 2048 / 16 warps at every shape): 3, 4, 5, 6, 7 blocks count 8067, 9347, 10787, 12291,
// 13683 a row. kRowFixed + blocks x kRowBlock is the least-squares line through 3, 5 and 7 blocks
// (6144 x 6144, 2000 x 10240, 6144 x 14336); 4 and 6 blocks (3072 x 8192, 5000 x 12288) held out
// at +1.0 / -0.3 %. 9 blocks (1536 x 18432) counts 22323, not the line's 16462: past 7 blocks the
// kernel issues as the masked reference does (1.21 a padded element), so the weight stops at 7
// blocks, the largest count the line was tested on (8 blocks not measured). Branch walkstep counted 8
// blocks (validation/results/h200-walkstep/ncu_table.txt, Inductor's 2048 / 16-warp kernel at 1536 x
// 16384): 14387 a row, the line's 15058 (+4.7 %), not the reference's 19460; 10 blocks 24339 (the
// reference's 24325): the jump is between 8 and 9 blocks, so the line holds to 8 (row_mask_line_blocks).
//
// With both masks (rows not a multiple of 4096, columns not a multiple of 2048) the row is a fixed part
// and a part a block too, and past 7 blocks each block costs more (branch rowops17,
// validation/results/h200-rowops17/ncu.csv, the kept 2048 / 16-warp config, 1536 rows): 7 blocks
// count 16371 a row (1536 x 14000; h200-eltwise13's 3072 x 13000 the same), 8, 9, 10 blocks 23555,
// 26003, 28451 (1536 x 16000, 17000, 18944): 2448 a block from 8 blocks on, against 1776 from 6 to 7
// (h200-eltwise13: 14595, 16371). The loop of a constant trip count is compiled into fewer
// instructions a block up to 7 blocks and not past them (the row-mask-only kernel jumps there too:
// 22323 at 9 blocks against its line's 16462). kBothFixed + blocks x kBothBlockLong is fitted on 8 and
// 10 blocks (two counts, two unknowns); 9 blocks held out (26003 counted, 26003 by the formula).
// Up to 7 blocks the both-mask kernel keeps the reference's weight 1: its counts are not on one line
// there (3 blocks, 4000 x 4608: 8283 a row, 1.35 a padded element; 6 blocks 1.19; 7 blocks 1.14).
//
// Short both-mask rows (branch inductorrow): at 2 and 3 padded blocks the row's fixed part (the
// Welford combine across the CTA's 16 warps over masked lane counts, the rsqrt, the masked store's
// setup) outweighs its blocks. h200-rowops17/ncu.csv counts, in padded 2048-column units whichever
// 16-warp config the compile kept: 1000 x 3072 7191 warp instructions a row (4096 padded, the whole-row
// R0_BLOCK 4096 kernel: 1.76 a padded element), 4000 x 4608 8283 (6144 padded, the 2048-column walk:
// 1.35), against the reference's 1.188. kShortFixed + blocks x kShortBlock = 5007 + 1092 a block is the
// line through those two counts (two counts, two unknowns); held out: 3072 x 7168 (8192 padded, R0_BLOCK
// 4096 twice) counts 9747, the line 9375 (-3.8 %), both at or under the reference (1.00 counted, 0.96 by
// the line), and from 6 blocks the counts grow ~2400 a block (14595 at 6, 16371 at 7), the reference's
// own kernel. So the weight is the line's over the reference where that is above 1 (2 and 3 blocks) and
// 1 from 4 blocks on. One block (1025-2047 columns, XBLOCK 2: two rows a CTA) counts the line's row with
// half the fixed part (h200-inductorrow: 3651 at 5000 x 1792, 3637 at 8000 x 1280, against 5007 / 2 + 1092
// = 3596, -1.5 %): 1.48 x the reference (inductor_one_block_weight). stream_cost.cpp weights only the rows
// an SM queues past its first resident wave (4 CTAs of two rows): the SMs that hold one or two such CTAs
// (h200-eltwise3's 24 x 1536, h200-eltwise9's 264 / 266 x 1536) measure their second row's issue at or
// under the rate (266 rows add 0.68 us for one more CTA of two rows), and weighting every row priced them
// +7 to +10 % and moved eight guards of tests/test_profile_accuracy.cpp (h200-eltwise3's layer_norm median
// 4.1 -> 7.5 %), while many CTAs an SM (h200-heldout17's 10000 x 1536, 38 an SM) need it (-28 % without).
// The wave is inductor_lockstep_s's (the CTAs that start together, waiting on their loads, then issuing
// under each other's); no parameter. The times agree where weighted (no time fitted): 1000 x 3072 needs 1.40 of the reference's
// issue (h200-eltwise4, 10.65 us), 4000 x 4608 1.09 (h200-rowops17, the 2048-column kernel, 41.00 us). The
// walk (inductor_walk_mask_share) is not lengthened: its block times were fitted on short both-mask rows.
//
// Softmax (branch inductorrow, validation/results/h200-inductorrow/ncu.csv): its looped kernel's count
// a row is a fixed part and a part a 2048-column block with no class of mask standing out (2.0-2.2
// warp instructions a padded element at every mask class, where layer_norm's run 0.72-1.76):
// kSoftmaxFixed + blocks x kSoftmaxBlock = 2086 + 3668 a block, least squares over the six counts of the
// 2048-column kernel (1000 x 3072 9936, 4000 x 4608 13096, 6144 x 6144 12640, 12288 x 5120 12928,
// 1056 x 8192 16640, 6144 x 11008 24304 a row; residuals within 6 %); held out, the 4096-column kernel
// the autotuner kept elsewhere: 4096 x 4096 8688 (-8 % to the line), 1000 x 3072 9044 (-4 %),
// 3072 x 7168 16736 (0 %), 8192 x 14336 26720 (-4 %); at one block two rows a CTA (XBLOCK 2) share the
// fixed part: 5000 x 1792 4525 against (2086 / 2 + 3668) = 4711 (-4 %), weighted as layer_norm's (1.16).
// The compiled softmax rate prices the reference's 1.978 a padded element (6144 x 11008's count, as
// layer_norm's reference is that shape's kernel), so the weight is the line's count over it where that is
// above 1: 1.16 at 2 blocks, 1.08 at 3, 1.03 at 4, 1.01 at 5; from 6 blocks the line is at or under the
// reference (0.98 at 7, from the fit's range on) and the weight 1 (h200-eltwise4's held-out 1536 x 18944
// went -5.9 -> -9.5 % at the line's 0.97). No time fitted: refitting the rate on its fit
// cases (the even torch.compile softmax cases of h200-production and h200-eltwise4 with at least 4 rows
// an SM) with these weights gives 4.627e11 elements a second against the default's 4.607e11 (0.4 %) and
// cuts their summed squared error from 273 to 129 (%^2; 4096 x 4096 +0.4 -> +7.2, 8192 x 14336 +10.2 ->
// +1.9, 1000 x 3072 -12.6 -> -7.7, 12288 x 5120 -3.2 -> -3.8; the unweighted refit 4.27e11 against the
// current model), so the rate stays. The counts' times (ncu's gpu__time_duration) run at
// 3.1-3.3 warp instructions a clock an SM from 23 rows an SM up: issue-bound.
namespace {

constexpr int64_t max_xblock = 4096, block = 2048, row_mask_max_blocks = 7, row_mask_line_blocks = 8;
constexpr double kFixed = 2707, kBlock = 1088;        // no masks: warp instructions a row, a block
constexpr double kRowFixed = 3826, kRowBlock = 1404;  // row mask only
constexpr double masked_per_element = 14595.0 / (6 * block);  // 6144 x 11008's kernel
constexpr double kBothFixed = 3971, kBothBlockLong = 2448;     // both masks past 7 blocks (rowops17)
constexpr double kShortFixed = 5007, kShortBlock = 1092;       // both masks, 1-3 blocks (inductorrow)
constexpr double kSoftmaxFixed = 2086, kSoftmaxBlock = 3668;   // softmax, any mask (inductorrow)
constexpr double softmax_reference = 24304.0 / (6 * block);     // 6144 x 11008's softmax kernel

bool whole_block_layernorm(const Op& op) {
  return op.kernel == KernelId::layernorm && op.cols > block && op.cols % block == 0;
}

// The row-mask-only kernel's weight at `blocks` whole blocks: the line up to 8 blocks, the masked
// reference past it.
double row_mask_weight(int64_t blocks) {
  const double masked = static_cast<double>(blocks * block) * masked_per_element;
  return blocks <= row_mask_line_blocks ? (kRowFixed + blocks * kRowBlock) / masked : 1.0;
}

double unmasked_weight(int64_t blocks) {
  return (kFixed + blocks * kBlock) / (static_cast<double>(blocks * block) * masked_per_element);
}

// A layer_norm with both masks past 7 blocks: its count over the reference's; 1 up to 7 blocks.
double both_masks_weight(const Op& op) {
  if (op.kernel != KernelId::layernorm || op.cols <= block || op.cols % block == 0 || op.rows % max_xblock == 0) return 1.0;
  const int64_t blocks = (op.cols + block - 1) / block;
  if (blocks <= row_mask_max_blocks) return 1.0;
  return (kBothFixed + blocks * kBothBlockLong) / (static_cast<double>(blocks * block) * masked_per_element);
}

// A looped layer_norm with both masks at 1-3 blocks: its short row's count over the reference's
// (above 1 only); 1 for every other call. Issue only, not the walk.
double short_both_masks_weight(const Op& op) {
  if (op.kernel != KernelId::layernorm || op.cols <= block || op.cols % block == 0 || op.rows % max_xblock == 0)
    return 1.0;
  const int64_t blocks = (op.cols + block - 1) / block;
  const double count = kShortFixed + kShortBlock * static_cast<double>(blocks);
  return std::max(1.0, count / (static_cast<double>(blocks * block) * masked_per_element));
}

}  // namespace

double inductor_softmax_weight(const Op& op) {
  if (op.kernel != KernelId::softmax_fused || op.cols <= block) return 1.0;
  const int64_t blocks = (op.cols + block - 1) / block;
  const double count = kSoftmaxFixed + kSoftmaxBlock * static_cast<double>(blocks);
  return std::max(1.0, count / (static_cast<double>(blocks * block) * softmax_reference));
}

double inductor_one_block_weight(const Op& op) {
  if (op.cols <= 1024 || op.cols >= block) return 1.0;  // a column mask at one block only
  const double reference_block = static_cast<double>(block);
  if (op.kernel == KernelId::softmax_fused)
    return (kSoftmaxFixed / 2 + kSoftmaxBlock) / (reference_block * softmax_reference);
  if (op.kernel == KernelId::layernorm && op.rows % max_xblock != 0)
    return (kShortFixed / 2 + kShortBlock) / (reference_block * masked_per_element);
  return 1.0;
}

double inductor_mask_weight(const Op& op) {
  if (op.kernel == KernelId::softmax_fused) return inductor_softmax_weight(op);
  if (!whole_block_layernorm(op)) return both_masks_weight(op) * short_both_masks_weight(op);
  const int64_t blocks = op.cols / block;
  return op.rows % max_xblock == 0 ? unmasked_weight(blocks) : row_mask_weight(blocks);
}

// The walk's block times (fit_inductor.py) were fitted on calls of at most 132 rows, never a multiple
// of 4096: every one of them kept its row mask. What an unmasked call saves on its walk is the
// issue the row mask adds, the row-mask-only kernel's count less the unmasked one's. The fit's
// both-mask calls had at most 4 blocks (the reference's weight): a both-mask row past 7 blocks
// walks the issue it adds (branch rowops17), a negative share.
double inductor_walk_mask_share(const Op& op) {
  if (!whole_block_layernorm(op)) return 1.0 - both_masks_weight(op);
  if (op.rows % max_xblock != 0) return 0.0;
  const int64_t blocks = op.cols / block;
  return std::max(0.0, row_mask_weight(blocks) - unmasked_weight(blocks));
}

}  // namespace perfmodel
