#pragma once
// Production kernels as the truth of each implementation profile (issue 10): which measured
// implementation stands for which profile's kernels, every such case priced on that profile's
// roofs, and the figures on the cases the profile was not fitted on (odd case index in the file;
// the even ones fit the profile calibration, validation/scripts/production/fit_profiles.py).
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"

namespace perfmodel {

// The profiles whose kernel `kernel` a case measured through `implementation` is (none: the
// implementation is no profile's, e.g. torch.sdpa.efficient).
// fused: cuDNN SDPA prefill, FlashAttention split-KV decode, cuBLASLt GEMMs (torch.linear,
// torch._scaled_mm), Inductor's fused small kernels (torch.compile).
// eager: PyTorch SDPA's flash kernel (what transformers' sdpa attention runs), torch.linear,
// PyTorch's eager ops (torch.eager, hf.eager).
std::vector<Impl> profiles_measured_by(const std::string& implementation, KernelId kernel);

// A GEMM case's kernels alone: the profiler's kernel durations where the file has them
// (h200-gemm-chain's kernel_s), else the harness's graph replay / launches less the idle it holds
// after the call's kernels (harness_idle_s: measured in validation/results/h200-gemm-chain).
double harness_idle_s(int kernels_per_launch);
double gemm_kernel_time_s(const MeasuredCase& c);

struct ProfileCaseError {
  Impl profile = Impl::fused;
  std::string implementation;
  bool held_out = false;  // odd case index: not fitted on
  CaseError error;
};

// Every case with an `implementation`, once per profile it stands for, priced on that profile's
// roofs of (card, calibration); `only`: that profile's alone (a refit prices one profile many times).
std::vector<ProfileCaseError> evaluate_profiles(const Measurements& m, const Card& card, const Calibration* calibration,
                                                std::optional<Impl> only = std::nullopt);

struct ProfileSetStats {
  Impl profile = Impl::fused;
  std::string kernel;          // kernel kind (attention_decode, gemm, rmsnorm, ...)
  std::string implementation;
  int fitted_cases = 0, held_out_cases = 0;
  double held_out_median_abs = 0, held_out_p90_abs = 0, held_out_mean_signed = 0;
  double all_median_abs = 0, all_p90_abs = 0;
};

// One row per (profile, kernel, implementation), plus per (profile, accuracy set) rows whose
// kernel is "all <set>" (attention, gemm, elementwise).
std::vector<ProfileSetStats> summarize_profiles(const std::vector<ProfileCaseError>& errors);

}  // namespace perfmodel
