// The three parts `calibrate --profile` refits (profile_fit_parts.hpp): which production calls, which keys.
#include "profile_fit_parts.hpp"

#include <algorithm>
#include <stdexcept>

#include "perfmodel/errors.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile.hpp"
#include "perfmodel/profile_accuracy.hpp"

namespace perfmodel {

namespace {

// The errors `perfmodel accuracy` reports for the profile (evaluate_profiles), of the calls `takes` keeps.
SplitErrors profile_errors(const Measurements& m, const Card& card, const Calibration* cal, Impl profile) {
  SplitErrors s;
  for (const ProfileCaseError& e : evaluate_profiles(m, card, cal))
    if (e.profile == profile) (e.held_out ? s.held : s.fit).push_back(e.error.error);
  return s;
}

Knob time_knob(std::string path, double start, double nudge, std::function<void(ProfileCalibration&, double)> set,
               double lo = 0) {
  return {std::move(path), KeyUnit::seconds, start, lo, 1e-3, nudge, std::move(set)};
}

// --- attention: cuDNN's fused SDPA prefill (flash_prefill_cost.cpp) ---
PartSpec attention() {
  PartSpec s;
  s.cases_of = "cuDNN SDPA prefill calls (torch.sdpa.cudnn)";
  s.takes = [](const MeasuredCase& c) {
    return c.implementation == "torch.sdpa.cudnn" && c.kernel.kernel == KernelId::attention_prefill_fused;
  };
  s.errors = profile_errors;
  s.knobs = [](const Roofs& r, const Measurements&, Impl) {
    const double peak = r.attention_peak > 0 ? r.attention_peak : r.peak[static_cast<int>(Precision::bf16)] * 0.5;
    return std::vector<Knob>{
        {"attention_peak", KeyUnit::flop_per_s, peak, 1e9, 1e18, 0,
         [](ProfileCalibration& p, double v) { p.attention_peak = v; }},
        {"attention_softmax_share", KeyUnit::share, r.attention_softmax_share, 0, 0.95, 0,
         [](ProfileCalibration& p, double v) { p.attention_softmax_share = v; }},
        time_knob("attention_cta_fixed", r.attention_cta_fixed_s, 0.1e-6,
                  [](ProfileCalibration& p, double v) { p.attention_cta_fixed_s = v; }),
        time_knob("attention_call_floor", r.attention_call_floor_s.value_or(0), 0.5e-6,
                  [](ProfileCalibration& p, double v) { p.attention_call_floor_s = v; }),
    };
  };
  return s;
}

// --- decode: cuDNN's decode SDPA (attention_decode_cudnn.cpp), as `perfmodel op --kind attention` prices it ---
SplitErrors decode_errors(const Measurements& m, const Card& card, const Calibration* cal, Impl profile) {
  const Roofs r = make_roofs(card, cal, profile);
  SplitErrors s;
  for (const MeasuredCase& c : m.cases) {
    Op op;
    try {
      op = to_op_on(c.kernel, r.l2_cyclic_capacity);
    } catch (const InputError&) {
      continue;
    }
    // The call's kernels (cuDNN's decode kernel, its merge when split) against the harness time less the GPU idle
    // a graph replay holds after them (profile_accuracy.hpp harness_idle_s); the profile's floors are priced alone.
    double predicted = 0;
    for (const Op& k : eager_form(op, false)) predicted += price(k, r, Impl::fused).time_s;
    const double measured = c.measured_s - harness_idle_s(c.kernels_per_launch);
    if (!(measured > 0)) continue;
    (c.index % 2 == 0 ? s.fit : s.held).push_back(predicted / measured - 1);
  }
  return s;
}

PartSpec decode() {
  PartSpec s;
  s.cases_of = "cuDNN SDPA decode calls (torch.sdpa.cudnn)";
  s.takes = [](const MeasuredCase& c) {
    return c.implementation == "torch.sdpa.cudnn" && c.kernel.kernel == KernelId::attention_decode;
  };
  s.errors = decode_errors;
  s.knobs = [](const Roofs& r, const Measurements&, Impl) {
    // Not measured, the kernel prices with the card's floor, a merge of a floor and two passes, the read rate and
    // no least wave time (attention_decode_cudnn.cpp): where the search starts.
    const CudnnDecode& d = r.cudnn_decode;
    const bool had = d.measured();
    return std::vector<Knob>{
        time_knob("cudnn_decode.kernel_floor", had ? d.kernel_floor_s : r.kernel_floor_s, 0.5e-6,
                  [](ProfileCalibration& p, double v) { p.cudnn_decode.kernel_floor_s = v; }),
        time_knob("cudnn_decode.reduction_floor", had ? d.reduction_floor_s : r.kernel_floor_s + 2 * r.pass_latency_s,
                  0.5e-6, [](ProfileCalibration& p, double v) { p.cudnn_decode.reduction_floor_s = v; }),
        {"cudnn_decode.stream_bandwidth", KeyUnit::bytes_per_s, had ? d.stream_bandwidth : r.read_bandwidth, 1e9, 1e15, 0,
         [](ProfileCalibration& p, double v) { p.cudnn_decode.stream_bandwidth = v; }},
        time_knob("cudnn_decode.cta_latency", d.cta_latency_s.value_or(r.pass_latency_s), 0.5e-6,
                  [](ProfileCalibration& p, double v) { p.cudnn_decode.cta_latency_s = v; }),
    };
  };
  return s;
}

// --- gemm: cuBLASLt through PyTorch (gemm_cost.cpp), as `perfmodel accuracy` compares its kernels ---
// torch.linear's calls only: torch._scaled_mm's fp8 calls price with the quantization's own keys (quant_gemm_cost.cpp,
// issue 12's calibration), none of these.
PartSpec gemm() {
  PartSpec s;
  s.cases_of = "cuBLASLt GEMM calls (torch.linear)";
  s.takes = [](const MeasuredCase& c) { return c.implementation == "torch.linear" && accuracy_set(c.kernel.kernel) == "gemm"; };
  s.errors = profile_errors;
  s.knobs = [](const Roofs& r, const Measurements&, Impl) {
    return std::vector<Knob>{
        time_knob("gemm.fixed", r.gemm_fixed_s, 0.5e-6, [](ProfileCalibration& p, double v) { p.gemm.fixed_s = v; }),
        time_knob("gemm.split_k_reduce", r.gemm_split_k_s >= 0 ? r.gemm_split_k_s : r.kernel_floor_s, 0.5e-6,
                  [](ProfileCalibration& p, double v) { p.gemm.split_k_reduce_s = v; }),
        time_knob(
            "gemm.cta_walk_per_1024_k", r.gemm_cta_walk_s > 0 ? r.gemm_cta_walk_s : std::max(r.gemm_fixed_per_k_s, 1e-6),
            0.5e-6, [](ProfileCalibration& p, double v) { p.gemm.cta_walk_per_1024_k_s = v; }, 1e-8),
        {"gemm.stream_efficiency", KeyUnit::share, r.gemm_stream_efficiency, 0.2, 1.0, 0,
         [](ProfileCalibration& p, double v) { p.gemm.stream_efficiency = v; }},
    };
  };
  return s;
}

}  // namespace

PartSpec part_spec(ProfilePart part) {
  switch (part) {
    case ProfilePart::attention: return attention();
    case ProfilePart::decode: return decode();
    case ProfilePart::gemm: return gemm();
  }
  throw std::logic_error("part_spec: unknown part");
}

}  // namespace perfmodel
