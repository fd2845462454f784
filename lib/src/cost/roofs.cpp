// Roofs resolved once per (card, calibration): a measured value where the calibration has one,
// else the datasheet value times a documented default efficiency (docs/model.md, price.hpp).
#include "perfmodel/instructions.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/units.hpp"

#include <cstdio>

namespace perfmodel {

namespace {

// The profile's own kernels over the card's roofs (issue 10): only what the profile measured,
// each recorded as coming from the profile's section of the calibration file.
void apply_profile(Roofs& r, const ProfileCalibration& p, const std::string& file) {
  auto over = [&](const char* key, const Measured& measured, double& roof) {
    if (!measured) return;
    roof = *measured;
    r.sources[key] = file + ": profiles." + p.name + "." + key;
  };
  over("attention_peak", p.attention_peak, r.attention_peak);
  over("attention_softmax_share", p.attention_softmax_share, r.attention_softmax_share);
  over("attention_cta_fixed", p.attention_cta_fixed_s, r.attention_cta_fixed_s);
  r.attention_call_floor_s = p.attention_call_floor_s;
  if (p.decode.measured()) {
    r.production_decode = p.decode;
    // FlashAttention-2's split-KV decode: the profile's own block first (below, a profile without one takes
    // another's).
    r.flash2_decode = p.decode;
    r.sources["flash2_decode"] = file + ": profiles." + p.name + ".decode";
  }
  if (p.gemm.measured()) {
    over("gemm_fixed", p.gemm.fixed_s, r.gemm_fixed_s);
    over("gemm_split_k_reduce", p.gemm.split_k_reduce_s, r.gemm_split_k_s);
    over("gemm_cta_walk_per_1024_k", p.gemm.cta_walk_per_1024_k_s, r.gemm_cta_walk_s);
    over("gemm_stream_efficiency", p.gemm.stream_efficiency, r.gemm_stream_efficiency);
    over("gemm_peak.fp8", p.gemm.fp8_peak, r.peak[static_cast<int>(Precision::fp8)]);
    over("gemm_cta_walk_latency_share", p.gemm.cta_walk_latency_share, r.gemm_cta_walk_share);
    over("gemm_split_k_min_slice", p.gemm.split_k_min_slice, r.gemm_split_k_min_slice);
    over("gemm_xmma_tf32_fixed", p.gemm.xmma_tf32_fixed_s, r.gemm_xmma_tf32_fixed_s);
    over("gemm_cutlass_tf32_fixed", p.gemm.cutlass_tf32_fixed_s, r.gemm_cutlass_tf32_fixed_s);
    over("gemm_nvjet_fill_tiles", p.gemm.nvjet_fill_tiles, r.gemm_nvjet_fill_tiles);
    over("gemm_tile_refill", p.gemm.tile_refill, r.gemm_tile_refill);
    over("gemm_epilogue_tail", p.gemm.epilogue_tail, r.gemm_epilogue_tail);
    over("gemm_split_partials", p.gemm.split_partials, r.gemm_split_partials);
    over("gemm_nvjet_wave_tiles", p.gemm.nvjet_wave_tiles, r.gemm_nvjet_wave_tiles);
    // The bf16 / fp16 MMA level cuBLASLt's kernels reach over the card's gemm_peak (branch shortk).
    if (p.gemm.peak_scale) {
      for (Precision x : {Precision::bf16, Precision::fp16}) r.peak[static_cast<int>(x)] *= *p.gemm.peak_scale;
      r.sources["gemm_peak_scale"] = file + ": profiles." + p.name + ".gemm.peak_scale";
    }
  }
  r.host_per_kernel_s = p.host_per_kernel_s;
  r.host_per_step_s = p.host_per_step_s;
  r.host_per_aten_s = p.host_per_aten_s;
  r.host_per_module_s = p.host_per_module_s;
  r.host_per_aten_view_s = p.host_per_aten_view_s;
  r.aten = p.aten;
  if (p.aten.rows_measured() || p.aten.softmax_measured() || p.aten.strided_measured() || p.aten.grouped_mm_measured())
    r.sources["aten"] = file + ": profiles." + p.name + ".aten";
  if (p.inductor.measured()) {
    r.inductor = p.inductor;
    r.sources["inductor"] = file + ": profiles." + p.name + ".inductor";
  }
  r.fused_moe = p.fused_moe;
  if (p.fused_moe.measured()) r.sources["fused_moe"] = file + ": profiles." + p.name + ".fused_moe";
  r.flash2 = p.flash2;
  if (p.flash2.measured()) r.sources["flash2"] = file + ": profiles." + p.name + ".flash2";
  r.cudnn_decode = p.cudnn_decode;
  if (p.cudnn_decode.measured()) r.sources["cudnn_decode"] = file + ": profiles." + p.name + ".cudnn_decode";
  if (p.decode.measured()) r.sources["decode"] = file + ": profiles." + p.name + ".decode";
  r.graph_call_host_s = p.graph_call_host_s;
  r.graph_call_host_per_input_s = p.graph_call_host_per_input_s;
  r.graph_kernel_gap_s = p.graph_kernel_gap_s;
  r.graph_launch_per_node_s = p.graph_launch_per_node_s;
  r.harness_idle_s = p.harness_idle_s;
}


// Takes each roof from the calibration when it has it, else from a fallback, and records which
// (Roofs::sources) so that `--explain` can say where every input of a time comes from.
class RoofResolver {
 public:
  RoofResolver(Roofs& r, const Calibration* cal) : r_(r), cal_(cal) {}
  double take(const std::string& key, const Measured& measured, double fallback, const std::string& why) {
    if (cal_ && measured) {
      r_.sources[key] = cal_->source_file + ": " + key;
      return *measured;
    }
    r_.sources[key] = why;
    return fallback;
  }
  void note(const std::string& key, const std::string& why) { r_.sources[key] = why; }

 private:
  Roofs& r_;
  const Calibration* cal_;
};

std::string times(double v, const char* unit, double eff, const char* why) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", eff);
  return "datasheet " + format_si(v, unit) + " x " + buf + " (" + why + ")";
}

}  // namespace

const std::string& Roofs::source(const std::string& key) const {
  static const std::string none = "not used";
  const auto it = sources.find(key);
  return it == sources.end() ? none : it->second;
}

Roofs make_roofs(const Card& card, const Calibration* cal, std::optional<Impl> profile) {
  Roofs r;
  r.card = card;
  r.calibrated = cal != nullptr;
  if (cal) r.collectives = cal->collectives;
  RoofResolver take(r, cal);
  const char* mem_why = "default memory efficiency: large copies reach 75-90 %, seed 004 Day 13";
  const double stream = card.bandwidth * DefaultEfficiency::memory;
  const std::string stream_why = times(card.bandwidth, "B/s", DefaultEfficiency::memory, mem_why);
  // The copy rate (read + write counted) is required in a calibration; reads and writes fall back to it.
  const double copy = cal ? cal->dram_bandwidth : stream;
  const std::string copy_why = cal ? cal->source_file + ": dram_bandwidth" : stream_why;
  r.read_bandwidth = take.take("read_bandwidth", cal ? cal->read_bandwidth : Measured{}, copy, copy_why);
  r.write_bandwidth = take.take("write_bandwidth", cal ? cal->write_bandwidth : Measured{}, copy, copy_why);
  r.stream_one_bus = cal && cal->stream_one_bus && *cal->stream_one_bus >= 0.5;
  // Without a measurement the L2 is taken as 1.5x DRAM (measured 6.0 vs 4.0 TB/s on the H200);
  // it matters only for L2-resident cases.
  r.l2_bandwidth = take.take("l2_bandwidth", cal ? cal->l2_bandwidth : Measured{}, 1.5 * copy,
                             "1.5 x " + copy_why + " (L2 over DRAM, H200 measured 6.0 / 4.0 TB/s)");
  for (int i = 0; i < kPrecisionCount; ++i) {
    const double nominal = card.peak[i];
    if (nominal <= 0) continue;
    const Precision p = static_cast<Precision>(i);
    const bool tensor = is_tensor(p);
    const double eff = tensor ? DefaultEfficiency::gemm : DefaultEfficiency::vector;
    const std::string key = "gemm_peak." + std::string(to_string(p));
    r.peak[i] = take.take(key, cal ? cal->gemm_peak[i] : Measured{}, nominal * eff,
                          times(nominal, "FLOP/s", eff, tensor ? "default GEMM efficiency: cuBLAS large squares reach ~80 %"
                                                                  : "default CUDA-core efficiency"));
  }
  // fp16 accumulation runs on the same tensor cores as fp16 with fp32 accumulation, at the card
  // file's rate ratio (1 on datacenter parts, 2 on GeForce ones: reference A.2/A.4). Where only
  // fp16 was measured, its measured roof scaled by that ratio keeps the two consistent.
  const auto acc16 = static_cast<size_t>(Precision::fp16_acc16), fp16 = static_cast<size_t>(Precision::fp16);
  if (cal && !cal->gemm_peak[acc16] && cal->gemm_peak[fp16] && card.peak[acc16] > 0 && card.peak[fp16] > 0) {
    r.peak[acc16] = *cal->gemm_peak[fp16] * card.peak[acc16] / card.peak[fp16];
    take.note("gemm_peak.fp16_acc16", cal->source_file + ": gemm_peak.fp16 x datasheet fp16_acc16 / fp16");
  }
  const int bf16_i = static_cast<int>(Precision::bf16), fp16_i = static_cast<int>(Precision::fp16);
  const double bf16 = card.peak[bf16_i] > 0 ? card.peak[bf16_i] : card.peak[fp16_i];
  r.attention_peak = take.take("attention_peak", cal ? cal->attention_peak : Measured{}, bf16 * DefaultEfficiency::attention,
                               times(bf16, "FLOP/s", DefaultEfficiency::attention,
                                     "default flash-attention efficiency: about half the GEMM rate"));
  r.attention_softmax_share = take.take("attention_softmax_share", cal ? cal->attention_softmax_share : Measured{},
                                        r.attention_softmax_share, "not measured: 0");
  r.attention_cta_fixed_s = take.take("attention_cta_fixed", cal ? cal->attention_cta_fixed_s : Measured{},
                                      r.attention_cta_fixed_s, "not measured: 0");
  r.kernel_floor_s = cal ? cal->kernel_floor_s : card.launch_overhead_s;
  take.note("kernel_floor", cal ? cal->source_file + ": kernel_floor" : "card launch_overhead");
  r.kernel_switch_s = take.take("kernel_switch", cal ? cal->kernel_switch_s : Measured{}, 0.0, "not measured: 0");
  r.pass_latency_s = take.take("pass_latency", cal ? cal->pass_latency_s : Measured{}, DefaultEfficiency::pass_latency_s,
                               "default 0.8 us: about one DRAM round trip plus a block barrier");
  r.l2_pass_latency_s = take.take("l2_pass_latency", cal ? cal->l2_pass_latency_s : Measured{},
                                  DefaultEfficiency::l2_pass_latency_s, "default 0.4 us: about one L2 round trip");
  r.gemm_fixed_s = take.take("gemm_fixed", cal ? cal->gemm_fixed_s : Measured{}, DefaultEfficiency::gemm_fixed_s,
                             "default 2 us: cuBLAS prologue and epilogue");
  r.card_gemm_fixed_s = r.gemm_fixed_s;  // before a profile's gemm block (apply_profile) replaces it
  r.gemm_fixed_per_k_s = take.take("gemm_fixed_per_1024_k", cal ? cal->gemm_fixed_per_k_s : Measured{},
                                   DefaultEfficiency::gemm_fixed_per_k_s, "default 0.5 us per 1024 of K");
  r.gemm_stream_efficiency = take.take("gemm_stream_efficiency", cal ? cal->gemm_stream_efficiency : Measured{},
                                       DefaultEfficiency::gemm_stream, "default 0.9 of the read rate");
  // Eager: the framework's dispatch per op when measured, else the CUDA launch's wall time.
  const Measured dispatch = cal && cal->eager_dispatch_s ? cal->eager_dispatch_s : Measured{};
  r.host_launch_s = dispatch ? take.take("eager_dispatch", dispatch, 0.0, "")
                             : take.take("host_launch", cal ? cal->host_launch_s : Measured{}, DefaultEfficiency::host_launch_s,
                                         "default 6 us: PyTorch dispatch plus cudaLaunchKernel");
  r.eager_view_s = take.take("eager_view", cal ? cal->eager_view_s : Measured{}, DefaultEfficiency::eager_view_s,
                             "default 2 us: PyTorch dispatch of a view");
  const DecodeCalibration dec = cal ? cal->decode : DecodeCalibration{};
  r.decode.cpi = take.take("decode_cpi", dec.cpi, DefaultEfficiency::decode_cpi, "default 4.1: Nsight Compute on the H200");
  r.decode.cpi_per_cta = take.take("decode_cpi_per_cta", dec.cpi_per_cta, DefaultEfficiency::decode_cpi_per_cta,
                                   "default 1.8: Nsight Compute on the H200");
  r.decode.cta_fixed_s = take.take("decode_cta_fixed", dec.cta_fixed_s, DefaultEfficiency::decode_cta_fixed_s,
                                   "default 1 us: one DRAM round trip");
  r.decode.combine_split_s = take.take("decode_combine_per_split", dec.combine_split_s,
                                       DefaultEfficiency::decode_combine_split_s, "default 0.1 us: an L2 hit");
  r.decode.overlap = take.take("decode_overlap", dec.overlap, 0.0, "not measured: 0, the wave takes max(stream, chain)");
  const double issue_eff = take.take("issue_efficiency", cal ? cal->issue_efficiency : Measured{}, DefaultEfficiency::issue,
                                     "default 0.85: Nsight Compute issue slots busy");
  r.issue_rate = issue_slots_per_second(card) * issue_eff;
  if (cal) r.thread_chain_s = cal->thread_chain_s;
  r.l2_cyclic_capacity = take.take("l2_cyclic_capacity", cal ? cal->l2_cyclic_capacity : Measured{}, card.l2_bytes / 2,
                                   "half the card's L2");
  if (cal) r.power = cal->power;
  // Bands measured for this profile on this card, else the uncalibrated distribution (wider).
  const std::string band_key = profile ? to_string(*profile) : "backend";
  const auto bands = cal ? cal->error_bands.find(band_key) : decltype(cal->error_bands)::const_iterator{};
  r.error_bands = cal && bands != cal->error_bands.end() ? bands->second : uncalibrated_error_bands();
  // Collectives are NCCL's whatever the profile: their band is the collective fit's held-out one.
  if (r.collectives.held_out_errors) r.error_bands.sets["collective"] = *r.collectives.held_out_errors;
  auto pick = [](double measured, double fallback) { return measured > 0 ? measured : fallback; };
  auto weight_only = [&](const WeightOnlyCost& m, const WeightOnlyCost& d) {
    return WeightOnlyCost{pick(m.stream_efficiency, d.stream_efficiency), pick(m.issue_per_row_element, d.issue_per_row_element),
                          pick(m.thread_step_cycles, d.thread_step_cycles), pick(m.warp_step_cycles, d.warp_step_cycles)};
  };
  r.quant.int4 = weight_only(cal ? cal->quant.int4 : WeightOnlyCost{}, QuantDefaults::int4);
  r.quant.int8 = weight_only(cal ? cal->quant.int8 : WeightOnlyCost{}, QuantDefaults::int8);
  // Measured on this card (the section's source), else: torch._int_mm at the card's int8 peak,
  // the row-scaled FP8 kernel at its datasheet rates.
  const std::string quant_from = cal && !cal->quant.source.empty() ? cal->source_file + ": quant (" + cal->quant.source + ")" : "";
  if (cal && cal->quant.int8_mma_sync.measured()) {
    r.quant.int8_mma_sync = cal->quant.int8_mma_sync;
    take.note("quant.int8_mma_sync", quant_from.empty() ? cal->source_file + ": quant" : quant_from);
  } else {
    take.note("quant.int8_mma_sync", "not measured: torch._int_mm at the card's int8 GEMM peak");
  }
  const RowScaledFp8Cost row = cal ? cal->quant.fp8_row : RowScaledFp8Cost{};
  r.quant.fp8_row = {pick(row.cta_mma_efficiency, QuantDefaults::fp8_row.cta_mma_efficiency),
                     pick(row.stream_efficiency, QuantDefaults::fp8_row.stream_efficiency), row.padded_row_step_s,
                     row.one_wave_prologue_s, row.padded_step_cap_s, row.sm_stream_bps, row.l2_tile_bps,
                     row.padded_full_walker};
  // The block-scaled kernel's own keys, else the row-scaled kernel's (quant_gemm_cost.cpp).
  if (cal && cal->quant.fp8_block.measured()) r.quant.fp8_block = cal->quant.fp8_block;
  take.note("quant.fp8_block", cal && cal->quant.fp8_block.measured()
                                   ? (quant_from.empty() ? cal->source_file + ": quant" : quant_from)
                                   : "not measured: priced as the row-scaled kernel");
  // cuBLASLt's tensor-wise FP8 kernels' own keys, else the card's tile plan at its fp8 peak.
  if (cal && cal->quant.fp8_tensor.measured()) r.quant.fp8_tensor = cal->quant.fp8_tensor;
  take.note("quant.fp8_tensor", cal && cal->quant.fp8_tensor.measured()
                                    ? (quant_from.empty() ? cal->source_file + ": quant" : quant_from)
                                    : "not measured: the card's GEMM tile plan at its fp8 peak");
  const double kv_convert = cal ? cal->quant.fp8_kv_convert_per_element : 0;
  r.quant.fp8_kv_convert_per_element = pick(kv_convert, QuantDefaults::fp8_kv_convert_per_element);
  take.note("quant.fp8_kv_convert_per_element",
            kv_convert > 0 ? (quant_from.empty() ? cal->source_file + ": quant" : quant_from)
                           : "not measured: 2 thread instructions per element (cvt e4m3x2 -> f16x2 -> bf16x2)");
  take.note("quant.fp8_row", row.cta_mma_efficiency > 0 || row.stream_efficiency > 0
                                 ? (quant_from.empty() ? cal->source_file + ": quant" : quant_from)
                                 : "not measured: the datasheet fp8 rate per SM and the full read rate");
  if (profile) {
    r.profile = to_string(*profile);
    if (const ProfileCalibration* p = cal ? find_profile(cal->profiles, r.profile) : nullptr) apply_profile(r, *p, cal->source_file);
    // The fused profile's norms and softmax are measured through Inductor's kernels (its stand-in
    // for a serving engine's, profile_accuracy.cpp): without its own values it takes the compiled
    // profile's Inductor rates.
    const ProfileCalibration* c = cal ? find_profile(cal->profiles, to_string(Impl::compiled)) : nullptr;
    if (profile == Impl::fused && !r.inductor.measured() && c && c->inductor.measured()) {
      r.inductor = c->inductor;
      r.sources["inductor"] = cal->source_file + ": profiles.compiled.inductor (the fused profile's stand-in)";
    }
    // FlashAttention-2's kernel is the same whichever profile calls it (flash-attn 2 in a serving engine on
    // Ampere, transformers' flash_attention_2): a profile without its own flash2 block takes the one measured.
    for (const ProfileCalibration& q : cal ? cal->profiles : std::vector<ProfileCalibration>{}) {
      if (!r.flash2_decode.measured() && q.decode.measured()) {  // likewise its decode (the `decode:` block)
        r.flash2_decode = q.decode;
        r.sources["flash2_decode"] = cal->source_file + ": profiles." + q.name + ".decode (the same kernel in every profile)";
      }
      if (r.flash2.measured() || !q.flash2.measured()) continue;
      r.flash2 = q.flash2;
      r.sources["flash2"] = cal->source_file + ": profiles." + q.name + ".flash2 (the same kernel in every profile)";
    }
  }
  // The compiled profile's prefill runs uncompiled (runs_as, step.hpp): priced with eager's roofs.
  if (profile == Impl::compiled) r.uncompiled = std::make_shared<const Roofs>(make_roofs(card, cal, Impl::eager));
  return r;
}

}  // namespace perfmodel
