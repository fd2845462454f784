// hardware/<card>.calibration.yaml <-> Calibration (docs/calibration.md).
#include <cmath>
#include <cstdio>
#include <sstream>

#include "perfmodel/errors.hpp"

#include "perfmodel/calibration.hpp"
#include "catalogue/calibration_profiles.hpp"
#include "catalogue/calibration_error_bands.hpp"
#include "quant/quant_calibration_io.hpp"
#include "catalogue/yaml_reader.hpp"
#include "catalogue/collective_calibration.hpp"

namespace perfmodel {

namespace {
// Upper bounds after the unit is applied (issue 14: `decode_cpi: inf` and
// `gemm_stream_efficiency: 50` were accepted). Far above any measured roof, so only nonsense is
// refused; shares are shares.
constexpr double kMaxRate = 1e18;     // bytes/s
constexpr double kMaxFlops = 1e21;    // FLOP/s
constexpr double kMaxBytes = 1e18;
constexpr double kMaxTime = 1.0;      // seconds: every calibrated latency is microseconds
constexpr double kMaxCycles = 1e6;    // cycles per instruction
constexpr double kMaxExponent = 100;  // decode_overlap
constexpr double kMaxPower = 1e6;     // watts
}  // namespace

Calibration load_calibration(const std::string& path) {
  detail::MapReader r(detail::load_file(path), path, "");
  Calibration c;
  c.source_file = path;
  c.card_key = r.str("card");
  c.source_card = c.card_key;
  c.device_name = r.opt_str("device").value_or("");
  c.measured_on = r.opt_str("measured_on").value_or("");
  r.opt_str("git_sha");
  r.opt_str("driver");
  r.opt_str("note");
  c.dram_bandwidth = r.quantity("dram_bandwidth", Dimension::bytes_per_s, kMaxRate);
  c.read_bandwidth = r.opt_quantity("read_bandwidth", Dimension::bytes_per_s, false, kMaxRate);
  c.write_bandwidth = r.opt_quantity("write_bandwidth", Dimension::bytes_per_s, false, kMaxRate);
  c.stream_one_bus = r.opt_number("stream_one_bus", 0, 1);
  c.l2_bandwidth = r.opt_quantity("l2_bandwidth", Dimension::bytes_per_s, false, kMaxRate);
  c.l2_cyclic_capacity = r.opt_quantity("l2_cyclic_capacity", Dimension::bytes, false, kMaxBytes);
  if (auto g = r.opt_map("gemm_peak")) {
    for (int i = 0; i < kPrecisionCount; ++i)
      if (auto v = g->opt_quantity(std::string(to_string(static_cast<Precision>(i))), Dimension::flop_per_s, false, kMaxFlops))
        c.gemm_peak[i] = *v;
    g->finish();
  }
  c.attention_peak = r.opt_quantity("attention_peak", Dimension::flop_per_s, false, kMaxFlops);
  c.attention_softmax_share = r.opt_number("attention_softmax_share", 0, 1);
  c.attention_cta_fixed_s = r.opt_quantity("attention_cta_fixed", Dimension::seconds, true, kMaxTime);
  c.decode.cpi = r.opt_number("decode_cpi", 0, kMaxCycles);
  c.decode.cpi_per_cta = r.opt_number("decode_cpi_per_cta", 0, kMaxCycles);
  c.decode.cta_fixed_s = r.opt_quantity("decode_cta_fixed", Dimension::seconds, true, kMaxTime);
  c.decode.combine_split_s = r.opt_quantity("decode_combine_per_split", Dimension::seconds, true, kMaxTime);
  // The overlap exponent: 0 means max(stream, chain).
  c.decode.overlap = r.opt_number("decode_overlap", 0, kMaxExponent);
  c.kernel_floor_s = r.quantity("kernel_floor", Dimension::seconds, kMaxTime);
  c.kernel_switch_s = r.opt_quantity("kernel_switch", Dimension::seconds, true, kMaxTime);
  c.host_launch_s = r.opt_quantity("host_launch", Dimension::seconds, false, kMaxTime);
  c.eager_dispatch_s = r.opt_quantity("eager_dispatch", Dimension::seconds, false, kMaxTime);
  c.eager_view_s = r.opt_quantity("eager_view", Dimension::seconds, false, kMaxTime);
  c.pass_latency_s = r.opt_quantity("pass_latency", Dimension::seconds, true, kMaxTime);
  c.l2_pass_latency_s = r.opt_quantity("l2_pass_latency", Dimension::seconds, true, kMaxTime);
  c.gemm_fixed_s = r.opt_quantity("gemm_fixed", Dimension::seconds, true, kMaxTime);
  c.gemm_stream_efficiency = r.opt_number("gemm_stream_efficiency", 0, 1);
  c.gemm_fixed_per_k_s = r.opt_quantity("gemm_fixed_per_1024_k", Dimension::seconds, true, kMaxTime);
  c.issue_efficiency = r.opt_number("issue_efficiency", 0, 1);
  if (auto chains = r.opt_map("thread_chain")) {
    for (int i = 0; i < kKernelIdCount; ++i)
      c.thread_chain_s[i] = chains->opt_quantity(to_string(static_cast<KernelId>(i)), Dimension::seconds, true, kMaxTime);
    chains->finish();
  }
  c.power.limit_w = r.opt_quantity("power_limit", Dimension::watts, false, kMaxPower).value_or(0);
  c.power.idle_w = r.opt_quantity("idle_power", Dimension::watts, true, kMaxPower).value_or(0);
  c.power.tensor_w = r.opt_quantity("tensor_power", Dimension::watts, false, kMaxPower).value_or(0);
  c.power.attention_w = r.opt_quantity("attention_power", Dimension::watts, false, kMaxPower).value_or(0);
  c.power.burst_window_s = r.opt_quantity("power_burst_window", Dimension::seconds, false, kMaxTime).value_or(0);
  c.sustained_clock_scale = r.opt_number("sustained_clock_scale", 0, 1);
  if (auto ramp = r.opt_map("memory_ramp")) {
    c.ramp_t0_s = ramp->opt_quantity("t0", Dimension::seconds, true, kMaxTime).value_or(0);
    c.ramp_bandwidth = ramp->opt_quantity("bandwidth", Dimension::bytes_per_s, false, kMaxRate).value_or(0);
    ramp->finish();
  }
  if (auto coll = r.opt_map("collectives")) c.collectives = detail::parse_collective_calibration(*coll);
  if (auto quant = r.opt_map("quant")) c.quant = detail::parse_quant_calibration(*quant);
  c.profiles = detail::read_profiles(r);
  c.error_bands = detail::read_error_bands(r);
  c.sibling_error_bands = detail::read_sibling_error_bands(r);
  r.finish();
  return c;
}

namespace {
std::string q(double v, const char* unit, double scale) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g %s", v / scale, unit);
  return buf;
}
}  // namespace

std::string to_yaml(const Calibration& c) {
  // A calibration without its two required roofs would load back as nonsense (issue 14:
  // `calibrate --from-raw` on no points wrote `dram_bandwidth: 0 GB/s`); refuse to write it.
  if (!(c.dram_bandwidth > 0) || !std::isfinite(c.dram_bandwidth))
    throw InputError("calibration for card '" + c.card_key +
                     "' has no measured DRAM bandwidth (no copy points?); not writing it");
  if (!(c.kernel_floor_s > 0) || !std::isfinite(c.kernel_floor_s))
    throw InputError("calibration for card '" + c.card_key +
                     "' has no measured kernel floor (no launch points?); not writing it");
  std::ostringstream o;
  o << "# Measured roofs of one card, written by `perfmodel calibrate --on-gpu` (docs/calibration.md).\n";
  o << "card: " << c.card_key << "\n";
  if (!c.device_name.empty()) o << "device: \"" << c.device_name << "\"\n";
  if (!c.measured_on.empty()) o << "measured_on: \"" << c.measured_on << "\"\n";
  o << "dram_bandwidth: " << q(c.dram_bandwidth, "GB/s", 1e9) << "   # large copy, read + write counted\n";
  if (c.read_bandwidth) o << "read_bandwidth: " << q(*c.read_bandwidth, "GB/s", 1e9) << "   # fitted: copy and add\n";
  if (c.write_bandwidth) o << "write_bandwidth: " << q(*c.write_bandwidth, "GB/s", 1e9) << "\n";
  if (c.stream_one_bus) o << "stream_one_bus: " << *c.stream_one_bus << "   # the minority direction at write_bandwidth (stream_rate.hpp)\n";
  if (c.l2_bandwidth) o << "l2_bandwidth: " << q(*c.l2_bandwidth, "GB/s", 1e9) << "\n";
  if (c.l2_cyclic_capacity)
    o << "l2_cyclic_capacity: " << q(*c.l2_cyclic_capacity, "MB", 1e6) << "   # what a re-run working set may keep in L2 (random replacement)\n";
  o << "gemm_peak:   # per SM slot x SMs: the 8192^3 measurement over its wave efficiency\n";
  for (int i = 0; i < kPrecisionCount; ++i)
    if (c.gemm_peak[i])
      o << "  " << to_string(static_cast<Precision>(i)) << ": " << q(*c.gemm_peak[i], "TFLOP/s", 1e12) << "\n";
  if (c.attention_peak) o << "attention_peak: " << q(*c.attention_peak, "TFLOP/s", 1e12) << "   # flash prefill, head dim 128\n";
  if (c.attention_softmax_share)
    o << "attention_softmax_share: " << *c.attention_softmax_share << "   # of a K/V tile's time at head dim 128, independent of the head dim\n";
  if (c.attention_cta_fixed_s)
    o << "attention_cta_fixed: " << q(*c.attention_cta_fixed_s, "us", 1e-6) << "   # per CTA: Q tile in, O tile out\n";
  const DecodeCalibration& d = c.decode;
  if (d.cpi) o << "decode_cpi: " << *d.cpi << "   # flash-decoding: cycles per warp instruction, CTA alone on its SM (Nsight Compute)\n";
  if (d.cpi_per_cta) o << "decode_cpi_per_cta: " << *d.cpi_per_cta << "   # ... plus this per further CTA on the SM\n";
  if (d.cta_fixed_s) o << "decode_cta_fixed: " << q(*d.cta_fixed_s, "us", 1e-6) << "   # flash-decoding: a CTA's first-tile wait\n";
  if (d.overlap) o << "decode_overlap: " << *d.overlap << "   # wave = (stream^n + chain^n)^(1/n)\n";
  if (d.combine_split_s) o << "decode_combine_per_split: " << q(*d.combine_split_s, "us", 1e-6) << "   # flash-decoding combine\n";
  o << "kernel_floor: " << q(c.kernel_floor_s, "us", 1e-6) << "   # smallest kernel, graph replay\n";
  if (c.kernel_switch_s) o << "kernel_switch: " << q(*c.kernel_switch_s, "us", 1e-6) << "   # ... plus this after a different kernel\n";
  if (c.host_launch_s) o << "host_launch: " << q(*c.host_launch_s, "us", 1e-6) << "   # eager launch, wall time\n";
  if (c.eager_dispatch_s) o << "eager_dispatch: " << q(*c.eager_dispatch_s, "us", 1e-6) << "   # PyTorch: host time per op that launches a kernel\n";
  if (c.eager_view_s) o << "eager_view: " << q(*c.eager_view_s, "us", 1e-6) << "   # PyTorch: host time per op that launches none\n";
  if (c.pass_latency_s) o << "pass_latency: " << q(*c.pass_latency_s, "us", 1e-6) << "   # memory ramp excess over the floor\n";
  if (c.l2_pass_latency_s) o << "l2_pass_latency: " << q(*c.l2_pass_latency_s, "us", 1e-6) << "   # smallest copy (L2-resident) over the floor\n";
  if (c.gemm_fixed_s) o << "gemm_fixed: " << q(*c.gemm_fixed_s, "us", 1e-6) << "   # fitted on the M ramp (M = 1 .. 4096)\n";
  if (c.gemm_fixed_per_k_s) o << "gemm_fixed_per_1024_k: " << q(*c.gemm_fixed_per_k_s, "us", 1e-6) << "   # fitted on the K ramp\n";
  if (c.gemm_stream_efficiency) o << "gemm_stream_efficiency: " << *c.gemm_stream_efficiency << "   # small-M GEMMs: share of the read rate\n";
  if (c.issue_efficiency) o << "issue_efficiency: " << *c.issue_efficiency << "   # share of issue slots busy, fused softmaxes\n";
  if (c.power.known()) {
    o << "power_limit: " << q(c.power.limit_w, "W", 1) << "   # enforced board power cap\n";
    o << "idle_power: " << q(c.power.idle_w, "W", 1) << "   # board draw, clocked and idle\n";
    o << "tensor_power: " << q(c.power.tensor_w, "W", 1) << "   # a tensor-bound GEMM's draw beyond idle at full clock\n";
    if (c.power.attention_w > 0) o << "attention_power: " << q(c.power.attention_w, "W", 1) << "   # the flash prefill kernel's, same\n";
    if (c.power.burst_window_s > 0)
      o << "power_burst_window: " << q(c.power.burst_window_s, "ms", 1e-3) << "   # from rest, a load above the cap runs this long at full clock\n";
  }
  if (c.sustained_clock_scale)
    o << "sustained_clock_scale: " << *c.sustained_clock_scale << "   # that GEMM sustained at the cap: burst time / sustained time\n";
  bool any_chain = false;
  for (const Measured& v : c.thread_chain_s) any_chain = any_chain || v.has_value();
  if (any_chain) {
    o << "thread_chain:   # small kernels: a thread's dependent chain beyond a copy's, per iteration of its loop (tiny L2-resident launches)\n";
    for (int i = 0; i < kKernelIdCount; ++i)
      if (c.thread_chain_s[i]) o << "  " << to_string(static_cast<KernelId>(i)) << ": " << q(*c.thread_chain_s[i], "us", 1e-6) << "\n";
  }
  if (c.ramp_bandwidth > 0) {
    o << "memory_ramp:   # t = t0 + bytes / bandwidth, least squares over elementwise kernels\n";
    o << "  t0: " << q(c.ramp_t0_s, "us", 1e-6) << "\n";
    o << "  bandwidth: " << q(c.ramp_bandwidth, "GB/s", 1e9) << "\n";
  }
  o << detail::collective_calibration_yaml(c.collectives);
  o << detail::quant_calibration_yaml(c.quant);
  detail::write_profiles(o, c.profiles);
  detail::write_error_bands(o, c.error_bands);
  detail::write_sibling_error_bands(o, c.sibling_error_bands);
  return o.str();
}

}  // namespace perfmodel
