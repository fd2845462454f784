#pragma once
// A profile's own keys measured on its own kernels (issue 10, item 2: attention rates and latencies, per-call floors
// and the kernels' costs are the profile's, measured on the profile's kernels; `perfmodel calibrate --profile P
// --from-kernels FILE`, or `--on-gpu`, which measures them with validation/scripts/production/run_all.py first).
// Each part is a few keys of the profile block and the production calls that price with them:
//   attention: cuDNN's fused SDPA prefill (torch.sdpa.cudnn; the tile model of flash_prefill_cost.cpp), the
//              block's attention_peak, _softmax_share, _cta_fixed, _call_floor;
//   decode:    cuDNN's decode SDPA (torch.sdpa.cudnn decode calls, attention_decode_cudnn.cpp), cudnn_decode's
//              kernel_floor, reduction_floor, stream_bandwidth, cta_latency;
//   gemm:      cuBLASLt through torch.linear (bf16, fp16, tf32), gemm's fixed, split_k_reduce, cta_walk_per_1024_k,
//              stream_efficiency;
//   small:     the profile's small kernels, as `perfmodel accuracy` prices them: PyTorch's own (torch.eager: norms,
//              softmax, SiLU*mul, rotary) for eager, aten's norm_floor, rmsnorm_chain, layernorm_chain,
//              softmax_floor, softmax_warp_chain, softmax_reg_chain, softmax_smem_chain, strided_elements_per_s,
//              strided_floor; Inductor's (torch.compile) for compiled and fused, inductor's
//              layernorm_elements_per_s, softmax_elements_per_s, looped_row, layernorm_block, softmax_block;
//   flash2:    FlashAttention-2's prefill (torch.sdpa.flash prefill calls: transformers' flash_attention_2, the
//              eager profile's), flash2's mma_peak, softmax, mask, smem_share, cta_fixed, call_floor;
//   flash2_decode: its split-KV decode (torch.sdpa.flash decode calls), the `decode:` block's call_floor,
//              stream_bandwidth, combine_per_split, nonsplit_tile, nonsplit_softmax_share, nonsplit_floor.
// The keys are refitted on the file's even cases, the odd ones held out, by a search over the C++ model itself (no
// second copy of its formulas, unlike the validation scripts' fits): Nelder-Mead, then one key at a time.
#include <string>
#include <vector>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

enum class ProfilePart { attention, decode, gemm, small, flash2, flash2_decode };
std::string to_string(ProfilePart part);

struct ErrorSummary {
  int cases = 0;
  double median = 0, p90 = 0;  // of |predicted / measured - 1|
};

// The median and p90 of |e| over signed errors (predicted / measured - 1); zeros when there are none.
ErrorSummary summarize_errors(const std::vector<double>& signed_errors);

// per_s: elements a second; share: a fraction, searched additively; ratio: a dimensionless factor (a pace over
// another, instructions a clock), searched multiplicatively
enum class KeyUnit { seconds, flop_per_s, bytes_per_s, per_s, share, ratio };

struct FittedKey {
  std::string path;  // in the profile block: "attention_peak", "cudnn_decode.kernel_floor", "gemm.fixed"
  KeyUnit unit = KeyUnit::seconds;
  double before = 0, after = 0;  // before: the profile's value, or the card's where the profile has none
  // false: the calls do not move the loss whichever way the key moves (none of them prices with it, e.g. a softmax
  // kernel the file has no rows for); `after` is then `before`, kept.
  bool determined = true;
};

struct ProfileFit {
  ProfilePart part = ProfilePart::attention;
  std::string cases_of;  // which calls were priced ("cuDNN SDPA prefill calls")
  std::vector<FittedKey> keys;
  ErrorSummary fit_before, fit_after, held_before, held_after;
  ErrorSummary held_datasheet;  // the same held-out cases on the card's datasheet defaults (no calibration)
  const FittedKey& key(const std::string& path) const;  // throws std::out_of_range
};

// How many of `m`'s calls the part would fit on for `profile` (its calls with an even case index).
int profile_part_fit_calls(const Measurements& m, Impl profile, ProfilePart part);

// The part's calls of `m` priced for `profile` on `cal` (nullptr: the datasheet defaults), every case: how a
// calibration does on a set it was not fitted on.
ErrorSummary profile_part_errors(const Measurements& m, const Card& card, const Calibration* cal, Impl profile,
                                 ProfilePart part);

// The part's keys of `profile`'s block in `cal` refitted on the part's cases of `m` (even case index; odd held out).
// Starts from the block's values (the card's where the block has none). Throws InputError with fewer than 4 fit
// cases.
ProfileFit fit_profile_part(const Measurements& m, const Card& card, Calibration& cal, Impl profile, ProfilePart part);

}  // namespace perfmodel
