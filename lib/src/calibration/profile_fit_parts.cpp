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
  for (const ProfileCaseError& e : evaluate_profiles(m, card, cal, profile))
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
  s.takes = [](const MeasuredCase& c, Impl) {
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
  s.takes = [](const MeasuredCase& c, Impl) {
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
  s.takes = [](const MeasuredCase& c, Impl) { return c.implementation == "torch.linear" && accuracy_set(c.kernel.kernel) == "gemm"; };
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

// --- small: PyTorch's own kernels (aten_kernel_cost.cpp) for eager, Inductor's (stream_cost.cpp) for the graph
// profiles ---
Knob rate_knob(std::string path, double start, std::function<void(ProfileCalibration&, double)> set) {
  return {std::move(path), KeyUnit::per_s, start, 1e8, 1e15, 0, std::move(set)};
}

std::vector<Knob> aten_knobs(const Roofs& r) {
  // Not measured: the card's floor, a microsecond's chain, a strided rate of an element per 32 bytes of the read
  // rate (where the search starts).
  const AtenKernels& a = r.aten;
  auto t = [&](double v, double fallback) { return v >= 0 ? v : fallback; };
  const double floor = r.kernel_floor_s;
  return {
      time_knob("aten.norm_floor", t(a.norm_floor_s, floor), 0.5e-6, [](ProfileCalibration& p, double v) { p.aten.norm_floor_s = v; }),
      time_knob("aten.rmsnorm_chain", t(a.rmsnorm_chain_s, 1e-6), 0.2e-6,
                [](ProfileCalibration& p, double v) { p.aten.rmsnorm_chain_s = v; }, 1e-9),
      time_knob("aten.layernorm_chain", t(a.layernorm_chain_s, 1e-6), 0.2e-6,
                [](ProfileCalibration& p, double v) { p.aten.layernorm_chain_s = v; }, 1e-9),
      time_knob("aten.softmax_floor", t(a.softmax_floor_s, floor), 0.5e-6,
                [](ProfileCalibration& p, double v) { p.aten.softmax_floor_s = v; }),
      time_knob("aten.softmax_warp_chain", t(a.softmax_warp_chain_s, 1e-6), 0.2e-6,
                [](ProfileCalibration& p, double v) { p.aten.softmax_warp_chain_s = v; }, 1e-9),
      time_knob("aten.softmax_reg_chain", t(a.softmax_reg_chain_s, 1e-6), 0.2e-6,
                [](ProfileCalibration& p, double v) { p.aten.softmax_reg_chain_s = v; }, 1e-9),
      time_knob("aten.softmax_smem_chain", t(a.softmax_smem_chain_s, 1e-6), 0.2e-6,
                [](ProfileCalibration& p, double v) { p.aten.softmax_smem_chain_s = v; }, 1e-9),
      rate_knob("aten.strided_elements_per_s", a.strided_rate > 0 ? a.strided_rate : r.read_bandwidth / 32,
                [](ProfileCalibration& p, double v) { p.aten.strided_rate = v; }),
      time_knob("aten.strided_floor", t(a.strided_floor_s, floor), 0.5e-6,
                [](ProfileCalibration& p, double v) { p.aten.strided_floor_s = v; }),
  };
}

// A key whose 0 means "not priced": unmeasured, its search starts at `seed` (kept at 0 when no call moves it).
Knob seeded_knob(Knob k, double seed) {
  if (!(k.start > 0)) k.seed = seed;
  return k;
}

std::vector<Knob> inductor_knobs(const Roofs& r) {
  const InductorKernels& k = r.inductor;
  auto or_else = [](double v, double fallback) { return v > 0 ? v : fallback; };
  const double round_trip = or_else(r.pass_latency_s, 1e-6);  // a memory pass's latency past the launch floor
  return {
      rate_knob("inductor.layernorm_elements_per_s", or_else(k.layernorm_rate, r.read_bandwidth / 8),
                [](ProfileCalibration& p, double v) { p.inductor.layernorm_rate = v; }),
      rate_knob("inductor.softmax_elements_per_s", or_else(k.softmax_rate, r.read_bandwidth / 8),
                [](ProfileCalibration& p, double v) { p.inductor.softmax_rate = v; }),
      time_knob("inductor.looped_row", or_else(k.looped_row_s, 1e-6), 0.2e-6,
                [](ProfileCalibration& p, double v) { p.inductor.looped_row_s = v; }, 1e-9),
      // 0 reads as "not priced" (the stream alone): kept above it.
      time_knob("inductor.layernorm_block", or_else(k.layernorm_block_s, 0.5e-6), 0.1e-6,
                [](ProfileCalibration& p, double v) { p.inductor.layernorm_block_s = v; }, 1e-9),
      time_knob("inductor.softmax_block", or_else(k.softmax_block_s, 0.5e-6), 0.1e-6,
                [](ProfileCalibration& p, double v) { p.inductor.softmax_block_s = v; }, 1e-9),
      // rms_norm's resident-row groups (inductor_rms_queue.cpp) and the split reduction's issue (inductor_split.cpp):
      // 0 is "not priced", and the split's pair prices only with both above 0, so an unmeasured key starts the search
      // at a seed and goes back to 0 when no call moves it. The group's chain (its row's two sweeps, each a memory
      // round trip, the cross-warp sum and the store between) starts at four of the card's round trips, a further block
      // at half of one: a chain under the stream prices nothing (the larger wins), so the start is long, for the search
      // to come down from. The
      // split's issue starts at one warp instruction a clock for a lone CTA, two for the SM (of its four schedulers).
      seeded_knob(time_knob("inductor.rmsnorm_group", k.rmsnorm_group_s, 0.2e-6,
                          [](ProfileCalibration& p, double v) { p.inductor.rmsnorm_group_s = v; }),
                4 * round_trip),
      seeded_knob(time_knob("inductor.rmsnorm_group_block", k.rmsnorm_group_block_s, 0.05e-6,
                          [](ProfileCalibration& p, double v) { p.inductor.rmsnorm_group_block_s = v; }),
                0.5 * round_trip),
      seeded_knob({"inductor.split_ipc_cta", KeyUnit::ratio, k.split_ipc_cta, 0, 8, 0,
                 [](ProfileCalibration& p, double v) { p.inductor.split_ipc_cta = v; }},
                1.0),
      seeded_knob({"inductor.split_ipc_sm", KeyUnit::ratio, k.split_ipc_sm, 0, 4, 0,
                 [](ProfileCalibration& p, double v) { p.inductor.split_ipc_sm = v; }},
                2.0),
  };
}

PartSpec small() {
  PartSpec s;
  s.cases_of = "small-kernel calls (norms, softmax, SiLU*mul, rotary: torch.eager for eager, torch.compile else)";
  s.takes = [](const MeasuredCase& c, Impl profile) {
    if (accuracy_set(c.kernel.kernel) != "elementwise") return false;
    return profile == Impl::eager ? c.implementation == "torch.eager" : c.implementation == "torch.compile";
  };
  s.errors = profile_errors;
  s.knobs = [](const Roofs& r, const Measurements&, Impl profile) {
    return profile == Impl::eager ? aten_knobs(r) : inductor_knobs(r);
  };
  return s;
}

// --- flash2, flash2_decode: FlashAttention-2's kernels (attention_prefill_flash2.cpp, attention_decode_flash2.cpp),
// as `perfmodel accuracy` prices the eager profile's torch.sdpa.flash calls ---
bool flash_call(const MeasuredCase& c, KernelId kernel) {
  return c.implementation == "torch.sdpa.flash" && c.kernel.kernel == kernel;
}

PartSpec flash2() {
  PartSpec s;
  s.cases_of = "FlashAttention-2 prefill calls (torch.sdpa.flash)";
  s.takes = [](const MeasuredCase& c, Impl) { return flash_call(c, KernelId::attention_prefill_fused); };
  s.errors = profile_errors;
  s.knobs = [](const Roofs& r, const Measurements&, Impl) {
    // Not measured: 70 % of the bf16 peak, and fit_flash2.py's starting point for the rest.
    const Flash2Prefill& f = r.flash2;
    const double peak = r.peak[static_cast<int>(Precision::bf16)];
    return std::vector<Knob>{
        {"flash2.mma_peak", KeyUnit::flop_per_s, f.mma_peak.value_or(0.7 * peak), 1e12, 1e18, 0,
         [](ProfileCalibration& p, double v) { p.flash2.mma_peak = v; }},
        time_knob("flash2.softmax", f.softmax_s.value_or(0.03e-9), 0.01e-9, [](ProfileCalibration& p, double v) { p.flash2.softmax_s = v; }),
        time_knob("flash2.mask", f.mask_s.value_or(0.18e-9), 0.05e-9, [](ProfileCalibration& p, double v) { p.flash2.mask_s = v; }),
        {"flash2.smem_share", KeyUnit::share, f.smem_share.value_or(0.75), 0, 1, 0,
         [](ProfileCalibration& p, double v) { p.flash2.smem_share = v; }},
        time_knob("flash2.cta_fixed", f.cta_fixed_s.value_or(0.65e-6), 0.1e-6, [](ProfileCalibration& p, double v) { p.flash2.cta_fixed_s = v; }),
        time_knob("flash2.call_floor", f.call_floor_s.value_or(r.kernel_floor_s), 0.5e-6,
                  [](ProfileCalibration& p, double v) { p.flash2.call_floor_s = v; }),
        // Unset, both are 1 (no effect): a lone CTA at its paired pace, a short head dim at its compiled kernel's.
        {"flash2.lone_pace", KeyUnit::ratio, f.lone_pace.value_or(1.0), 1, 4, 0,
         [](ProfileCalibration& p, double v) { p.flash2.lone_pace = v; }},
        {"flash2.uneven_dim", KeyUnit::ratio, f.uneven_dim.value_or(1.0), 1, 2, 0,
         [](ProfileCalibration& p, double v) { p.flash2.uneven_dim = v; }},
    };
  };
  return s;
}

PartSpec flash2_decode() {
  PartSpec s;
  s.cases_of = "FlashAttention-2 decode calls (torch.sdpa.flash)";
  s.takes = [](const MeasuredCase& c, Impl) { return flash_call(c, KernelId::attention_decode); };
  s.errors = profile_errors;
  s.knobs = [](const Roofs& r, const Measurements&, Impl) {
    const ProductionDecode& d = r.flash2_decode;
    const bool had = d.measured();
    return std::vector<Knob>{
        time_knob("decode.call_floor", had ? d.call_floor_s : 2 * r.kernel_floor_s, 0.5e-6,
                  [](ProfileCalibration& p, double v) { p.decode.call_floor_s = v; }),
        {"decode.stream_bandwidth", KeyUnit::bytes_per_s, had ? d.stream_bandwidth : r.read_bandwidth, 1e9, 1e15, 0,
         [](ProfileCalibration& p, double v) { p.decode.stream_bandwidth = v; }},
        time_knob("decode.combine_per_split", had ? d.combine_per_split_s : 0.2e-6, 0.05e-6,
                  [](ProfileCalibration& p, double v) { p.decode.combine_per_split_s = v; }),
        time_knob("decode.nonsplit_tile", had && d.nonsplit_tile_s > 0 ? d.nonsplit_tile_s : 3e-6, 0.5e-6,
                  [](ProfileCalibration& p, double v) { p.decode.nonsplit_tile_s = v; }, 1e-9),
        {"decode.nonsplit_softmax_share", KeyUnit::share, had ? d.nonsplit_softmax_share : 0.1, 0, 0.95, 0,
         [](ProfileCalibration& p, double v) { p.decode.nonsplit_softmax_share = v; }},
        time_knob("decode.nonsplit_floor", had && d.nonsplit_floor_s >= 0 ? d.nonsplit_floor_s : r.kernel_floor_s, 0.5e-6,
                  [](ProfileCalibration& p, double v) { p.decode.nonsplit_floor_s = v; }),
        // The split kernel at a head dim short of its compiled one walks the padded kernel's pace times this
        // (attention_decode_flash2.cpp); h200-oddsplit's pairs are decode calls, so this part is where it is measured.
        {"flash2.uneven_dim", KeyUnit::ratio, r.flash2.uneven_dim.value_or(1.0), 1, 2, 0,
         [](ProfileCalibration& p, double v) { p.flash2.uneven_dim = v; }},
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
    case ProfilePart::small: return small();
    case ProfilePart::flash2: return flash2();
    case ProfilePart::flash2_decode: return flash2_decode();
  }
  throw std::logic_error("part_spec: unknown part");
}

}  // namespace perfmodel
