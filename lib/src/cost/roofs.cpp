// Roofs resolved once per (card, calibration): a measured value where the calibration has one,
// else the datasheet value times a documented default efficiency (docs/model.md, price.hpp).
#include "perfmodel/instructions.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

namespace {

// The profile's own kernels over the card's roofs (issue 10): only what the profile measured.
void apply_profile(Roofs& r, const ProfileCalibration& p) {
  if (p.attention_peak > 0) r.attention_peak = p.attention_peak;
  if (p.attention_softmax_share >= 0) r.attention_softmax_share = p.attention_softmax_share;
  if (p.attention_cta_fixed_s >= 0) r.attention_cta_fixed_s = p.attention_cta_fixed_s;
  r.attention_call_floor_s = p.attention_call_floor_s;
  if (p.decode.measured()) r.production_decode = p.decode;
  r.host_per_kernel_s = p.host_per_kernel_s;
  r.aten = p.aten;
  r.cudnn_decode = p.cudnn_decode;
  r.graph_call_host_s = p.graph_call_host_s;
}

}  // namespace

Roofs make_roofs(const Card& card, const Calibration* cal, std::optional<Impl> profile) {
  Roofs r;
  r.card = card;
  r.calibrated = cal != nullptr;
  if (cal) r.collectives = cal->collectives;
  auto pick = [](double measured, double fallback) { return measured > 0 ? measured : fallback; };
  const double stream = card.bandwidth * DefaultEfficiency::memory;
  const double copy = cal ? pick(cal->dram_bandwidth, stream) : stream;
  r.read_bandwidth = cal ? pick(cal->read_bandwidth, copy) : stream;
  r.write_bandwidth = cal ? pick(cal->write_bandwidth, copy) : stream;
  // Without a measurement the L2 is taken as 1.5x DRAM (measured 6.0 vs 4.0 TB/s on the H200);
  // it matters only for L2-resident cases.
  r.l2_bandwidth = cal ? pick(cal->l2_bandwidth, 1.5 * copy) : 1.5 * stream;
  for (int i = 0; i < kPrecisionCount; ++i) {
    const double nominal = card.peak[i];
    if (nominal <= 0) continue;
    const Precision p = static_cast<Precision>(i);
    const double eff = is_tensor(p) ? DefaultEfficiency::gemm : DefaultEfficiency::vector;
    r.peak[i] = cal ? pick(cal->gemm_peak[i], nominal * eff) : nominal * eff;
  }
  const double bf16 = card.peak[static_cast<int>(Precision::bf16)] > 0 ? card.peak[static_cast<int>(Precision::bf16)]
                                                                      : card.peak[static_cast<int>(Precision::fp16)];
  r.attention_peak = cal ? pick(cal->attention_peak, bf16 * DefaultEfficiency::attention) : bf16 * DefaultEfficiency::attention;
  if (cal && cal->attention_softmax_share >= 0) r.attention_softmax_share = cal->attention_softmax_share;
  if (cal && cal->attention_cta_fixed_s >= 0) r.attention_cta_fixed_s = cal->attention_cta_fixed_s;
  r.kernel_floor_s = cal ? pick(cal->kernel_floor_s, card.launch_overhead_s) : card.launch_overhead_s;
  r.kernel_switch_s = cal && cal->kernel_switch_s >= 0 ? cal->kernel_switch_s : 0.0;
  r.pass_latency_s = cal ? pick(cal->pass_latency_s, DefaultEfficiency::pass_latency_s) : DefaultEfficiency::pass_latency_s;
  r.l2_pass_latency_s = cal ? pick(cal->l2_pass_latency_s, DefaultEfficiency::l2_pass_latency_s) : DefaultEfficiency::l2_pass_latency_s;
  // GEMM fixed costs: a fitted 0 is a value (negative: not measured).
  r.gemm_fixed_s = cal && cal->gemm_fixed_s >= 0 ? cal->gemm_fixed_s : DefaultEfficiency::gemm_fixed_s;
  // Eager: the framework's dispatch per op when measured, else the CUDA launch's wall time.
  r.host_launch_s = cal ? pick(cal->eager_dispatch_s, pick(cal->host_launch_s, DefaultEfficiency::host_launch_s))
                        : DefaultEfficiency::host_launch_s;
  r.eager_view_s = cal ? pick(cal->eager_view_s, DefaultEfficiency::eager_view_s) : DefaultEfficiency::eager_view_s;
  r.decode.cpi = cal ? pick(cal->decode.cpi, DefaultEfficiency::decode_cpi) : DefaultEfficiency::decode_cpi;
  r.decode.cpi_per_cta = cal ? pick(cal->decode.cpi_per_cta, DefaultEfficiency::decode_cpi_per_cta) : DefaultEfficiency::decode_cpi_per_cta;
  r.decode.cta_fixed_s = cal ? pick(cal->decode.cta_fixed_s, DefaultEfficiency::decode_cta_fixed_s) : DefaultEfficiency::decode_cta_fixed_s;
  r.decode.combine_split_s = cal ? pick(cal->decode.combine_split_s, DefaultEfficiency::decode_combine_split_s)
                                 : DefaultEfficiency::decode_combine_split_s;
  r.decode.overlap = cal ? cal->decode.overlap : 0.0;
  r.gemm_fixed_per_k_s = cal && cal->gemm_fixed_per_k_s >= 0 ? cal->gemm_fixed_per_k_s : DefaultEfficiency::gemm_fixed_per_k_s;
  r.gemm_stream_efficiency = cal ? pick(cal->gemm_stream_efficiency, DefaultEfficiency::gemm_stream) : DefaultEfficiency::gemm_stream;
  const double issue_eff = cal ? pick(cal->issue_efficiency, DefaultEfficiency::issue) : DefaultEfficiency::issue;
  r.issue_rate = issue_slots_per_second(card) * issue_eff;
  if (cal) r.thread_chain_s = cal->thread_chain_s;
  r.l2_cyclic_capacity = cal && cal->l2_cyclic_capacity > 0 ? cal->l2_cyclic_capacity : card.l2_bytes / 2;
  if (cal) r.power = cal->power;
  // Bands measured for this profile on this card, else the uncalibrated distribution (wider).
  const std::string band_key = profile ? to_string(*profile) : "backend";
  const auto bands = cal ? cal->error_bands.find(band_key) : decltype(cal->error_bands)::const_iterator{};
  r.error_bands = cal && bands != cal->error_bands.end() ? bands->second : uncalibrated_error_bands();
  auto weight_only = [&](const WeightOnlyCost& m, const WeightOnlyCost& d) {
    return WeightOnlyCost{pick(m.stream_efficiency, d.stream_efficiency), pick(m.issue_per_row_element, d.issue_per_row_element)};
  };
  r.quant.int4 = weight_only(cal ? cal->quant.int4 : WeightOnlyCost{}, QuantDefaults::int4);
  r.quant.int8 = weight_only(cal ? cal->quant.int8 : WeightOnlyCost{}, QuantDefaults::int8);
  if (profile) {
    r.profile = to_string(*profile);
    if (const ProfileCalibration* p = cal ? find_profile(cal->profiles, r.profile) : nullptr) apply_profile(r, *p);
  }
  return r;
}

}  // namespace perfmodel
