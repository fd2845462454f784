#pragma once
// A profile's prefill attention measured on its own kernels (issue 10, item 2: attention rates and latencies are the
// profile's, measured on the profile's kernels; `perfmodel calibrate --profile P --from-kernels FILE`, or `--on-gpu`,
// which measures them with validation/scripts/production/run_all.py first). Every profile's prefill runs cuDNN's fused
// SDPA on sm90 (torch.sdpa.cudnn cases); its four keys, the tile model of flash_prefill_cost.cpp, are refitted on the
// file's even cases, the odd ones held out, by a coordinate search over the C++ model itself (no second copy of its
// formulas).
#include <string>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

struct AttentionKeys {
  double peak = 0;           // FLOP/s at head dim 128 (attention_peak)
  double softmax_share = 0;  // of a K/V tile's time (attention_softmax_share)
  double cta_fixed_s = 0;    // attention_cta_fixed
  double call_floor_s = 0;   // attention_call_floor
};

struct ErrorSummary {
  int cases = 0;
  double median = 0, p90 = 0;  // of |predicted / measured - 1|
};

struct AttentionFit {
  AttentionKeys before, after;
  ErrorSummary fit_before, fit_after, held_before, held_after;
  ErrorSummary held_datasheet;  // the same held-out cases on the card's datasheet defaults (no calibration)
};

// The `profile` block's four keys in `cal` refitted on the torch.sdpa.cudnn prefill cases of `m` (even case index;
// odd held out). Starts from the block's values (the card's where the block has none). Throws InputError with fewer
// than 4 fit cases.
AttentionFit fit_profile_attention(const Measurements& m, const Card& card, Calibration& cal, Impl profile);

}  // namespace perfmodel
