#pragma once
// Inductor's looped layer_norm without masks: the instructions it issues a row against the masked
// kernel the compiled rate was fitted on (inductor_masks.cpp, branch eltwise12).
#include "perfmodel/op.hpp"

namespace perfmodel {

// Multiplies inductor_issue_s's padded-element issue time: 1 except for layer_norm's walks whose
// count differs from the both-mask reference's (no mask, the row mask only, both masks past 7 blocks,
// both masks at 2-3 blocks, softmax's short rows: branch inductorrow).
double inductor_mask_weight(const Op& op);

// Softmax's looped kernel: its count a row (a fixed part and a part a block) over the reference's
// (6144 x 11008's) count a padded element where that is above 1, past 2048 columns (branch
// inductorrow). Part of inductor_mask_weight.
double inductor_softmax_weight(const Op& op);

// One block with a column mask (1025-2047 columns; XBLOCK 2, two rows a CTA sharing the fixed part):
// the row's count over the reference's, 1.48 for layer_norm with both masks, 1.16 for softmax; 1 for
// every other call. stream_cost.cpp's inductor_issue_s applies it past the SM's first resident wave.
double inductor_one_block_weight(const Op& op);

// The share of the masked reference's issue a row that a layer_norm saves on its walk against the
// kernels the walk's block times were fitted on (stream_cost.cpp, inductor_walk_s): positive for an
// unmasked one (rows a multiple of 4096, whole blocks; branch eltdef), negative for both masks past
// 7 blocks (more issue a block; branch rowops17); 0 for every other op.
double inductor_walk_mask_share(const Op& op);

}  // namespace perfmodel
