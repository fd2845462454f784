// Production kernels per implementation profile (profile_accuracy.hpp; issue 10).
#include "perfmodel/profile_accuracy.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include "perfmodel/errors.hpp"
#include "perfmodel/harness_clock.hpp"
#include "perfmodel/stats.hpp"
#include "perfmodel/kernel.hpp"
#include "perfmodel/profile.hpp"

namespace perfmodel {

std::vector<Impl> profiles_measured_by(const std::string& impl, KernelId kernel) {
  const std::string set = accuracy_set(kernel);
  if (set == "attention") {
    // PyTorch's memory-efficient kernel (CUTLASS FMHA): on sm90 with PyTorch 2.11 no profile's step
    // runs it (the static cache's masked SDPA is cuDNN's: validation/results/h200-compiled kernel names).
    if (impl == "torch.sdpa.efficient") return {};
    if (kernel == KernelId::attention_decode) {
      // Every profile's decode runs a GQA-packed kernel priced as cuDNN's (attention_decode_cudnn:
      // the serving engine's FlashAttention-3 / FlashInfer class, transformers' SDPA call eager and
      // compiled), whose cases profile_tables.py reports apart (fit_compiled.py). PyTorch's
      // FlashAttention-2's decode (torch.sdpa.flash) is the eager profile's attention_decode_flash2
      // (transformers' flash_attention_2; branch flash2).
      if (impl == "torch.sdpa.flash") return {Impl::eager};
      return {};
    }
    // Prefill: cuDNN's fused SDPA in the engine and in transformers' eager call (PyTorch 2.11 on
    // sm90), which is also the compiled profile's prefill (generate() runs it uncompiled, with the
    // static cache's mask). PyTorch's FlashAttention-2 prefill is the eager profile's
    // attention_prefill_flash2 (transformers' attn_implementation="flash_attention_2"; branch flash2).
    if (impl == "torch.sdpa.cudnn") return {Impl::fused, Impl::eager, Impl::compiled};
    if (impl == "torch.sdpa.flash" && kernel == KernelId::attention_prefill_fused) return {Impl::eager};
    return {};
  }
  if (set == "gemm") {  // cuBLASLt through torch.matmul in all three
    if (impl == "torch.linear") return {Impl::fused, Impl::eager, Impl::compiled};
    if (impl == "torch.scaled_mm") return {Impl::fused};
    return {};
  }
  // Inductor's Triton kernels: the compiled profile's own, and the stand-in for a serving
  // engine's fused kernels (vLLM's were not measured).
  if (impl == "torch.compile") return {Impl::fused, Impl::compiled};
  if (impl == "torch.eager" || impl == "hf.eager") return {Impl::eager};
  return {};
}

// The GPU idle one GEMM call adds inside an isolated graph replay beyond its kernels' durations
// (graph replay / launches - kernel sum, median over the 64 shapes of
// validation/results/h200-gemm-chain): 0.46 us after one kernel, 1.06 us after a pair (nvjet +
// splitKreduce, or a memset + nvjet).
double harness_idle_s(int kernels) { return kernels >= 2 ? 1.06e-6 : 0.46e-6; }

double gemm_kernel_time_s(const MeasuredCase& c) {
  if (c.kernel_s > 0) return c.kernel_s;
  return c.measured_s - harness_idle_s(c.kernels_per_launch);
}

namespace {

// A profile's `gemm:` block prices cuBLASLt's kernels alone (fit_gemm.py --kernel-only), what a
// step's kernel sum holds and what the step's graph_kernel_gap adds to: its GEMM cases compare
// with the kernels alone. Without one the card-level GEMM keys (fitted on launches back to back,
// the idle between them included) compare with the harness time.
bool kernel_only_gemm(const Calibration* cal, Impl p) {
  const ProfileCalibration* pc = cal ? find_profile(cal->profiles, to_string(p)) : nullptr;
  return pc && pc->gemm.measured();
}

}  // namespace

std::vector<ProfileCaseError> evaluate_profiles(const Measurements& m, const Card& card, const Calibration* cal,
                                                std::optional<Impl> only) {
  const Roofs fused = make_roofs(card, cal, Impl::fused), eager = make_roofs(card, cal, Impl::eager),
              compiled = make_roofs(card, cal, Impl::compiled);
  // The same roofs with each floor as fitted on single-call harness times (harness_idle_s off):
  // a floor the profile prices alone (kernel_alone_s: the card's kernel_floor, cudnn_decode's)
  // gets the idle after its kernel back, a floor fitted with the idle in it (ATen's, fit_aten.py
  // on these harness times) nothing. Per kernel, where the price took the idle off (branch gemm10).
  auto as_fitted = [](Roofs r) {
    r.harness_idle_s = 0;
    return r;
  };
  const Roofs fused_h = as_fitted(fused), eager_h = as_fitted(eager), compiled_h = as_fitted(compiled);
  std::vector<ProfileCaseError> out;
  for (const MeasuredCase& c : m.cases) {
    if (c.implementation.empty()) continue;
    for (Impl p : profiles_measured_by(c.implementation, c.kernel.kernel)) {
      if (only && p != *only) continue;
      const Roofs& r = p == Impl::eager ? eager : p == Impl::compiled ? compiled : fused;
      const Roofs& harness = p == Impl::eager ? eager_h : p == Impl::compiled ? compiled_h : fused_h;
      Op op;
      try {
        op = to_op_on(c.kernel, r.l2_cyclic_capacity);
      } catch (const InputError&) {
        continue;
      }
      // The case ran FlashAttention-2's kernels: priced, and reported, as attention_*_flash2.
      const bool flash2 = c.implementation == "torch.sdpa.flash" &&
                          (op.kernel == KernelId::attention_prefill_fused || op.kernel == KernelId::attention_decode);
      if (flash2)
        op.kernel = op.kernel == KernelId::attention_decode ? KernelId::attention_decode_flash2 : KernelId::attention_prefill_flash2;
      // The device time of the profile's kernel(s): a measured case is one call on the GPU,
      // without the eager host (price() with Impl::fused adds none). Eager runs the op as
      // PyTorch's kernels (transformers' modules for hf.eager).
      double predicted = 0;
      // A torch.compile case ran Inductor's kernels whichever profile it stands in for: the
      // fused profile prices them as Inductor emits them too (its rotary: one kernel for q, one
      // for k; a serving engine's single rope+KV-write kernel is its step's, h200-fused-step).
      const bool inductor = p == Impl::compiled || (p == Impl::fused && c.implementation == "torch.compile");
      const std::vector<Op> kernels = p == Impl::eager ? eager_form(op, c.implementation == "hf.eager")
                                      : inductor       ? compiled_form(op, r.inductor.rotary_call_l2 > 0)
                                                       : std::vector{op};
      // Like with like. A GEMM block (kernel_only_gemm) prices the kernels alone: compared with
      // the kernels alone. Every other kernel compares with the harness time, which holds the
      // idle after each kernel: priced with its floors as fitted on such times (`harness`), so
      // a floor priced alone (Roofs::harness_idle_s) gets the idle back and no other does.
      const std::string set = accuracy_set(c.kernel.kernel);
      const bool gemm_alone = set == "gemm" && kernel_only_gemm(cal, p);
      std::vector<OpCost> costs;
      for (const Op& k : kernels) costs.push_back(price(k, gemm_alone ? r : harness, Impl::fused));
      for (const OpCost& k : costs) predicted += k.time_s;
      // A GEMM call the harness replayed past the power limiter's burst window was sampled at the
      // cap's sustained clock (harness_clock.hpp; validation/results/h200-heldgemm17).
      if (set == "gemm") predicted = harness_call_time_s(r.power, c.kernel, kernels, costs);
      const double measured = gemm_alone ? gemm_kernel_time_s(c) : c.measured_s;
      if (!(measured > 0)) continue;
      out.push_back({p, c.implementation, c.index % 2 == 1,
                     {set, c.kernel.name, to_string(flash2 ? op.kernel : c.kernel.kernel), predicted,
                      measured, predicted / measured - 1}});
    }
  }
  return out;
}

namespace {

struct Acc {
  std::vector<double> held, all;
  double held_sum = 0;
  int fitted = 0;
};

ProfileSetStats stats_of(Impl p, const std::string& kernel, const std::string& impl, const Acc& a) {
  ProfileSetStats s;
  s.profile = p;
  s.kernel = kernel;
  s.implementation = impl;
  s.fitted_cases = a.fitted;
  s.held_out_cases = static_cast<int>(a.held.size());
  s.held_out_median_abs = quantile(a.held, 0.5);
  s.held_out_p90_abs = quantile(a.held, 0.9);
  s.held_out_mean_signed = a.held.empty() ? 0 : a.held_sum / static_cast<double>(a.held.size());
  s.all_median_abs = quantile(a.all, 0.5);
  s.all_p90_abs = quantile(a.all, 0.9);
  return s;
}

}  // namespace

std::vector<ProfileSetStats> summarize_profiles(const std::vector<ProfileCaseError>& errors) {
  std::map<std::tuple<int, std::string, std::string>, Acc> rows;
  for (const ProfileCaseError& e : errors) {
    const int p = static_cast<int>(e.profile);
    for (const auto& key : {std::tuple{p, e.error.detail, e.implementation}, std::tuple{p, "all " + e.error.set, std::string()}}) {
      Acc& a = rows[key];
      a.all.push_back(std::fabs(e.error.error));
      if (e.held_out) {
        a.held.push_back(std::fabs(e.error.error));
        a.held_sum += e.error.error;
      } else {
        ++a.fitted;
      }
    }
  }
  std::vector<ProfileSetStats> out;
  for (const auto& [key, a] : rows)
    out.push_back(stats_of(static_cast<Impl>(std::get<0>(key)), std::get<1>(key), std::get<2>(key), a));
  return out;
}

}  // namespace perfmodel
