#pragma once
// Inductor's looped layer_norm past its first round of resident CTAs: the drain of the SM's last
// CTA (inductor_walk.cpp).
#include "perfmodel/op.hpp"

namespace perfmodel {

// Rows' issue beyond (per_sm - 1) that an SM holding `per_sm` rows of a looped layer_norm of
// `blocks` 2048-column blocks exposes when its CTAs run more than one round; 0 to 1.
double inductor_drain_rows(const Op& op, double per_sm, double blocks);

}  // namespace perfmodel
