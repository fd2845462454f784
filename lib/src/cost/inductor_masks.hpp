#pragma once
// Inductor's looped layer_norm without masks: the instructions it issues a row against the masked
// kernel the compiled rate was fitted on (inductor_masks.cpp, branch eltwise12).
#include "perfmodel/op.hpp"

namespace perfmodel {

// Multiplies inductor_issue_s's padded-element issue time: 1 except for layer_norm's unmasked walk.
double inductor_mask_weight(const Op& op);

}  // namespace perfmodel
