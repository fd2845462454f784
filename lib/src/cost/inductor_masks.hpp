#pragma once
// Inductor's looped layer_norm without masks: the instructions it issues a row against the masked
// kernel the compiled rate was fitted on (inductor_masks.cpp, branch eltwise12).
#include "perfmodel/op.hpp"

namespace perfmodel {

// Multiplies inductor_issue_s's padded-element issue time: 1 except for layer_norm's unmasked walk.
double inductor_mask_weight(const Op& op);

// The share of the masked reference's issue a row that an unmasked layer_norm (rows a multiple of
// 4096, whole blocks) saves against the row-masked kernels the walk's block times were fitted on
// (stream_cost.cpp, inductor_walk_s; branch eltdef); 0 for every other op.
double inductor_walk_unmasked_share(const Op& op);

}  // namespace perfmodel
