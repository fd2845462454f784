// The `profiles:` section of a calibration file <-> ProfileCalibration (docs/calibration.md,
// "profiles"): per implementation profile, what its own kernels cost on the card.
#include "catalogue/calibration_profiles.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "perfmodel/workload.hpp"

namespace perfmodel {

const ProfileCalibration* find_profile(const std::vector<ProfileCalibration>& profiles, const std::string& name) {
  for (const ProfileCalibration& p : profiles)
    if (p.name == name) return &p;
  return nullptr;
}

namespace detail {

namespace {

Measured share(MapReader& r, const std::string& key) {
  const Measured v = r.opt_number(key);
  if (v && !(*v >= 0 && *v <= 1)) r.fail(key, "must be a share between 0 and 1");
  return v;
}

// PyTorch's own kernels (profile_calibration.hpp, AtenKernels); every key optional.
AtenKernels read_aten(MapReader& m) {
  AtenKernels a;
  auto time = [&](const char* key) { return m.opt_quantity(key, Dimension::seconds, true).value_or(-1); };
  a.norm_floor_s = time("norm_floor");
  a.rmsnorm_chain_s = time("rmsnorm_chain");
  a.layernorm_chain_s = time("layernorm_chain");
  if (auto n = m.opt_number("norm_ctas_per_sm")) {
    if (*n < 1 || *n > 32 || *n != std::floor(*n)) m.fail("norm_ctas_per_sm", "must be a whole number from 1 to 32");
    a.norm_ctas_per_sm = static_cast<int>(*n);
  }
  auto wave_share = [&](const char* key) {  // branch normwaves
    const Measured v = m.opt_number(key);
    if (v && !(*v >= 0 && *v <= 2)) m.fail(key, "must be a number from 0 to 2");
    return v.value_or(-1);
  };
  a.norm_wave_ramp = wave_share("norm_wave_ramp");
  a.norm_tail_wave = wave_share("norm_tail_wave");
  if (auto v = m.opt_number("norm_issue_ipc")) {  // branch normissue
    if (!(*v > 0) || *v > 4) m.fail("norm_issue_ipc", "must be in (0, 4] warp instructions a clock (4 schedulers an SM)");
    a.norm_issue_ipc = *v;
  }
  if (auto v = m.opt_number("norm_overlap")) {
    if (!(*v >= 1) || *v > 16) m.fail("norm_overlap", "must be a p-norm exponent from 1 (the limits add) to 16 (the largest alone)");
    a.norm_overlap = *v;
  }
  if ((a.norm_issue_ipc > 0) != (a.norm_overlap > 0))
    m.fail(a.norm_issue_ipc > 0 ? "norm_overlap" : "norm_issue_ipc", "norm_issue_ipc and norm_overlap go together");
  a.softmax_floor_s = time("softmax_floor");
  a.softmax_warp_chain_s = time("softmax_warp_chain");
  a.softmax_reg_chain_s = time("softmax_reg_chain");
  a.softmax_smem_chain_s = time("softmax_smem_chain");
  auto rate = [&](const char* key) {
    const Measured v = m.opt_number(key);
    if (v && (!(*v > 0) || !std::isfinite(*v))) m.fail(key, "must be a positive number (elements per second)");
    return v.value_or(0);
  };
  a.softmax_warp_rate = rate("softmax_warp_elements_per_s");
  a.softmax_warp_wide_rate = rate("softmax_warp_wide_elements_per_s");
  auto ipc = [&](const char* key) {  // branch softmaxocc: warp instructions a clock an SM, (0, 4]
    const Measured v = m.opt_number(key);
    if (v && (!(*v > 0) || *v > 4)) m.fail(key, "must be in (0, 4] warp instructions a clock (4 schedulers an SM)");
    return v.value_or(0);
  };
  a.softmax_block_ipc = ipc("softmax_block_ipc");
  a.softmax_block_lone_ipc = ipc("softmax_block_lone_ipc");
  if ((a.softmax_block_ipc > 0) != (a.softmax_block_lone_ipc > 0))
    m.fail(a.softmax_block_ipc > 0 ? "softmax_block_lone_ipc" : "softmax_block_ipc",
           "softmax_block_ipc and softmax_block_lone_ipc go together");
  if (auto rate = m.opt_number("strided_elements_per_s")) {
    if (!(*rate > 0) || !std::isfinite(*rate)) m.fail("strided_elements_per_s", "must be a positive number");
    a.strided_rate = *rate;
  }
  a.strided_floor_s = time("strided_floor");
  if (auto rate = m.opt_number("cat_elements_per_s")) {
    if (!(*rate > 0) || !std::isfinite(*rate)) m.fail("cat_elements_per_s", "must be a positive number");
    a.cat_rate = *rate;
  }
  if (auto rate = m.opt_number("cast_elements_per_s")) {
    if (!(*rate > 0) || !std::isfinite(*rate)) m.fail("cast_elements_per_s", "must be a positive number");
    a.cast_rate = *rate;
  }
  if (auto rate = m.opt_number("int8_cast_elements_per_s")) {
    if (!(*rate > 0) || !std::isfinite(*rate)) m.fail("int8_cast_elements_per_s", "must be a positive number");
    a.int8_cast_rate = *rate;
  }
  if (auto rate = m.opt_number("generic_operand_elements_per_s")) {
    if (!(*rate > 0) || !std::isfinite(*rate)) m.fail("generic_operand_elements_per_s", "must be a positive number");
    a.generic_operand_rate = *rate;
  }
  a.grouped_mm_floor_s = time("grouped_mm_floor");
  a.grouped_mm_cta_rate = m.opt_quantity("grouped_mm_cta_rate", Dimension::bytes_per_s).value_or(0);
  a.grouped_mm_stream = m.opt_quantity("grouped_mm_stream", Dimension::bytes_per_s).value_or(0);
  a.grouped_mm_full_pair_stream = m.opt_quantity("grouped_mm_full_pair_stream", Dimension::bytes_per_s).value_or(0);
  if (const Measured v = share(m, "grouped_mm_wave_sharing")) a.grouped_mm_wave_sharing = *v;
  a.grouped_mm_tile_switch_s = std::max(0.0, time("grouped_mm_tile_switch"));
  for (auto [key, field] : {std::pair{"grouped_mm_pingpong_mma_share", &a.grouped_mm_pingpong_mma_share},
                            std::pair{"grouped_mm_cooperative_mma_share", &a.grouped_mm_cooperative_mma_share}})
    if (const Measured v = share(m, key)) {
      if (!(*v > 0)) m.fail(key, "must be a share above 0");
      *field = *v;
    }
  m.finish();
  return a;
}

ProfileCalibration read_one(MapReader r, const std::string& name) {
  ProfileCalibration p;
  p.name = name;
  p.fitted_on = r.opt_str("fitted_on").value_or("");
  p.attention_peak = r.opt_quantity("attention_peak", Dimension::flop_per_s);
  p.attention_softmax_share = share(r, "attention_softmax_share");
  p.attention_cta_fixed_s = r.opt_quantity("attention_cta_fixed", Dimension::seconds, true);
  p.attention_call_floor_s = r.opt_quantity("attention_call_floor", Dimension::seconds, true);
  if (auto d = r.opt_map("decode")) {
    ProductionDecode& x = p.decode;
    x.call_floor_s = d->quantity("call_floor", Dimension::seconds);
    x.stream_bandwidth = d->quantity("stream_bandwidth", Dimension::bytes_per_s);
    x.combine_per_split_s = d->opt_quantity("combine_per_split", Dimension::seconds, true).value_or(0);
    x.nonsplit_tile_s = d->opt_quantity("nonsplit_tile", Dimension::seconds, true).value_or(0);
    x.nonsplit_softmax_share = share(*d, "nonsplit_softmax_share").value_or(0);
    x.nonsplit_floor_s = d->opt_quantity("nonsplit_floor", Dimension::seconds, true).value_or(-1);
    if (auto split = d->opt_str("split_kv")) {
      if (*split != "true" && *split != "false") d->fail("split_kv", "must be true or false");
      x.split_kv = *split == "true";
    }
    d->finish();
  }
  if (auto d = r.opt_map("cudnn_decode")) {
    CudnnDecode& x = p.cudnn_decode;
    x.kernel_floor_s = d->quantity("kernel_floor", Dimension::seconds);
    x.reduction_floor_s = d->quantity("reduction_floor", Dimension::seconds);
    x.stream_bandwidth = d->quantity("stream_bandwidth", Dimension::bytes_per_s);
    x.cta_latency_s = d->opt_quantity("cta_latency", Dimension::seconds, true);
    x.masked_resident = d->opt_number("masked_resident");  // optional (branch compres)
    if (x.masked_resident && *x.masked_resident != 0 && *x.masked_resident != 1) d->fail("masked_resident", "must be 0 or 1");
    d->finish();
  }
  if (auto f = r.opt_map("flash2")) {  // branch flash2: every key required
    Flash2Prefill& x = p.flash2;
    auto need = [&](const char* key, Measured v) {
      if (!v) f->fail(key, "is required in a flash2 block");
      return v;
    };
    x.mma_peak = need("mma_peak", f->opt_quantity("mma_peak", Dimension::flop_per_s));
    x.softmax_s = need("softmax", f->opt_quantity("softmax", Dimension::seconds, true));
    x.mask_s = need("mask", f->opt_quantity("mask", Dimension::seconds, true));
    x.smem_share = need("smem_share", share(*f, "smem_share"));
    x.cta_fixed_s = need("cta_fixed", f->opt_quantity("cta_fixed", Dimension::seconds, true));
    x.call_floor_s = need("call_floor", f->opt_quantity("call_floor", Dimension::seconds, true));
    x.lone_pace = f->opt_number("lone_pace");
    if (x.lone_pace && !(*x.lone_pace >= 1 && *x.lone_pace <= 2))
      f->fail("lone_pace", "must be between 1 and 2 (a CTA alone runs at most twice its paired pace)");
    x.uneven_dim = f->opt_number("uneven_dim");
    if (x.uneven_dim && !(*x.uneven_dim >= 1 && *x.uneven_dim <= 2))
      f->fail("uneven_dim", "must be between 1 and 2 (a short head dim costs at least its padded kernel's call)");
    x.combine_per_split_s = f->opt_quantity("combine_per_split", Dimension::seconds);
    if (x.combine_per_split_s && *x.combine_per_split_s > 10e-6)
      f->fail("combine_per_split", "must be at most 10 us (an L2 round trip a split)");
    x.split_gap_per_cta_s = f->opt_quantity("split_gap_per_cta", Dimension::seconds, true);
    if (x.split_gap_per_cta_s && *x.split_gap_per_cta_s > 1e-6)
      f->fail("split_gap_per_cta", "must be at most 1 us a CTA");
    x.combine_dram_per_split_s = f->opt_quantity("combine_dram_per_split", Dimension::seconds);
    if (x.combine_dram_per_split_s && *x.combine_dram_per_split_s > 10e-6)
      f->fail("combine_dram_per_split", "must be at most 10 us (a DRAM round trip a split)");
    f->finish();
  }
  if (auto g = r.opt_map("gemm")) {
    ProductionGemm& x = p.gemm;
    auto time = [&](const char* key) {
      const Measured v = g->opt_quantity(key, Dimension::seconds, true);
      if (!v) g->fail(key, "is required in a gemm block (a time, e.g. 2.5 us)");
      return v;
    };
    x.fixed_s = time("fixed");
    x.split_k_reduce_s = time("split_k_reduce");
    x.cta_walk_per_1024_k_s = time("cta_walk_per_1024_k");
    if (!(*x.cta_walk_per_1024_k_s > 0)) g->fail("cta_walk_per_1024_k", "must be above 0");
    x.stream_efficiency = share(*g, "stream_efficiency");
    if (!x.stream_efficiency || !(*x.stream_efficiency > 0)) g->fail("stream_efficiency", "must be a share above 0, at most 1");
    x.fp8_peak = g->opt_quantity("fp8_peak", Dimension::flop_per_s);
    x.cta_walk_latency_share = share(*g, "cta_walk_latency_share");  // optional
    x.split_k_min_slice = g->opt_number("split_k_min_slice");           // optional (branch block11)
    if (x.split_k_min_slice && !(*x.split_k_min_slice >= 1)) g->fail("split_k_min_slice", "must be a K depth of at least 1");
    x.xmma_tf32_fixed_s = g->opt_quantity("xmma_tf32_fixed", Dimension::seconds, true);  // optional (branch fp8tf32)
    x.cutlass_tf32_fixed_s = g->opt_quantity("cutlass_tf32_fixed", Dimension::seconds, true);  // optional (branch tf32split)
    x.nvjet_fill_tiles = g->opt_number("nvjet_fill_tiles");  // optional (branch nvjettile)
    x.tile_refill = g->opt_number("tile_refill");  // optional (branch smallk)
    if (x.tile_refill && *x.tile_refill != 0 && *x.tile_refill != 1) g->fail("tile_refill", "must be 0 or 1");
    x.peak_scale = g->opt_number("peak_scale");  // optional (branch shortk)
    x.epilogue_tail = g->opt_number("epilogue_tail");  // optional (branch shortk)
    if (x.epilogue_tail && *x.epilogue_tail != 0 && *x.epilogue_tail != 1) g->fail("epilogue_tail", "must be 0 or 1");
    x.split_partials = g->opt_number("split_partials");  // optional (branch gemmtile)
    if (x.split_partials && *x.split_partials != 0 && *x.split_partials != 1) g->fail("split_partials", "must be 0 or 1");
    x.nvjet_wave_tiles = g->opt_number("nvjet_wave_tiles");  // optional (branch gemmtile2)
    if (x.nvjet_wave_tiles && *x.nvjet_wave_tiles != 0 && *x.nvjet_wave_tiles != 1) g->fail("nvjet_wave_tiles", "must be 0 or 1");
    if (x.peak_scale && !(*x.peak_scale >= 0.5 && *x.peak_scale <= 1.5)) g->fail("peak_scale", "must be 0.5 .. 1.5");
    if (x.nvjet_fill_tiles && *x.nvjet_fill_tiles != 0 && *x.nvjet_fill_tiles != 1) g->fail("nvjet_fill_tiles", "must be 0 or 1");
    g->finish();
  }
  if (auto g = r.opt_map("fused_moe")) {
    FusedMoeGemm& x = p.fused_moe;
    x.floor_s = g->quantity("floor", Dimension::seconds);
    x.cta_rate = g->quantity("cta_rate", Dimension::bytes_per_s);
    x.stream = g->quantity("stream", Dimension::bytes_per_s);
    x.half_line_stream = g->opt_quantity("half_line_stream", Dimension::bytes_per_s);
    x.mma_efficiency = share(*g, "mma_efficiency");
    if (!x.mma_efficiency || !(*x.mma_efficiency > 0)) g->fail("mma_efficiency", "must be a share above 0, at most 1");
    x.l2_tile_rate = g->opt_quantity("l2_tile_rate", Dimension::bytes_per_s);
    x.l2_stream_norm = g->opt_number("l2_stream_norm");
    if (x.l2_stream_norm && !(*x.l2_stream_norm >= 1 && *x.l2_stream_norm <= 16))
      g->fail("l2_stream_norm", "must be 1 .. 16");
    if (x.l2_stream_norm && !x.l2_tile_rate) g->fail("l2_stream_norm", "needs l2_tile_rate");
    g->finish();
  }
  p.host_per_kernel_s = r.opt_quantity("host_per_kernel", Dimension::seconds, true);
  p.host_per_step_s = r.opt_quantity("host_per_step", Dimension::seconds, true);
  p.host_per_aten_s = r.opt_quantity("host_per_aten", Dimension::seconds, true);
  p.host_per_module_s = r.opt_quantity("host_per_module", Dimension::seconds, true);
  p.host_per_aten_view_s = r.opt_quantity("host_per_aten_view", Dimension::seconds, true);
  p.graph_call_host_s = r.opt_quantity("graph_call_host", Dimension::seconds, true).value_or(0);
  p.graph_call_host_per_input_s = r.opt_quantity("graph_call_host_per_input", Dimension::seconds, true).value_or(0);
  p.graph_kernel_gap_s = r.opt_quantity("graph_kernel_gap", Dimension::seconds, true).value_or(0);
  p.graph_launch_per_node_s = r.opt_quantity("graph_launch_per_node", Dimension::seconds, true).value_or(0);
  p.harness_idle_s = r.opt_quantity("harness_idle", Dimension::seconds, true).value_or(0);
  if (auto m = r.opt_map("aten")) p.aten = read_aten(*m);
  if (auto m = r.opt_map("inductor")) {
    auto rate = [&](const char* key) {
      const Measured v = m->opt_number(key);
      if (v && (!(*v > 0) || !std::isfinite(*v))) m->fail(key, "must be a positive number (elements per second)");
      return v.value_or(0);
    };
    p.inductor.rmsnorm_rate = rate("rmsnorm_elements_per_s");
    p.inductor.layernorm_rate = rate("layernorm_elements_per_s");
    p.inductor.softmax_rate = rate("softmax_elements_per_s");
    auto walk = [&](const char* key) { return m->opt_quantity(key, Dimension::seconds, true).value_or(0); };
    p.inductor.looped_row_s = walk("looped_row");
    p.inductor.rmsnorm_block_s = walk("rmsnorm_block");
    p.inductor.layernorm_block_s = walk("layernorm_block");
    p.inductor.softmax_block_s = walk("softmax_block");
    p.inductor.whole_row_saved_s = walk("whole_row_saved");
    p.inductor.rmsnorm_group_s = walk("rmsnorm_group");
    p.inductor.rmsnorm_group_block_s = walk("rmsnorm_group_block");
    const Measured from = m->opt_number("walk_from_cols");  // columns (branch eltwise14)
    if (from && (!(*from > 0) || !std::isfinite(*from))) m->fail("walk_from_cols", "must be a positive number (columns)");
    p.inductor.walk_from_cols = from.value_or(0);
    const Measured rot = m->opt_number("rotary_call_l2");  // 0 or 1 (branch rotary)
    if (rot && *rot != 0 && *rot != 1) m->fail("rotary_call_l2", "must be 0 or 1");
    p.inductor.rotary_call_l2 = rot.value_or(0);
    auto ipc = [&](const char* key) {  // branch splitodd: warp instructions a clock an SM, (0, 4]
      const Measured v = m->opt_number(key);
      if (v && (!(*v > 0) || *v > 4)) m->fail(key, "must be in (0, 4] warp instructions a clock (4 schedulers an SM)");
      return v.value_or(0);
    };
    p.inductor.split_ipc_cta = ipc("split_ipc_cta");
    p.inductor.split_ipc_sm = ipc("split_ipc_sm");
    if ((p.inductor.split_ipc_cta > 0) != (p.inductor.split_ipc_sm > 0))
      m->fail(p.inductor.split_ipc_cta > 0 ? "split_ipc_sm" : "split_ipc_cta", "split_ipc_cta and split_ipc_sm go together");
    m->finish();
  }
  r.finish();
  return p;
}

std::string q(double v, const char* unit, double scale) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g %s", v / scale, unit);
  return buf;
}

void write_aten(std::ostream& o, const AtenKernels& a) {
  const std::pair<const char*, double> times[] = {
      {"norm_floor", a.norm_floor_s},           {"rmsnorm_chain", a.rmsnorm_chain_s},
      {"layernorm_chain", a.layernorm_chain_s}, {"softmax_floor", a.softmax_floor_s},
      {"softmax_warp_chain", a.softmax_warp_chain_s}, {"softmax_reg_chain", a.softmax_reg_chain_s},
      {"softmax_smem_chain", a.softmax_smem_chain_s}, {"strided_floor", a.strided_floor_s},
      {"grouped_mm_floor", a.grouped_mm_floor_s}};
  bool any = a.strided_rate > 0 || a.softmax_warp_rate > 0 || a.softmax_block_ipc > 0 || a.softmax_warp_wide_rate > 0 || a.cat_rate > 0 || a.cast_rate > 0 || a.int8_cast_rate > 0 || a.generic_operand_rate > 0 || a.grouped_mm_cta_rate > 0 ||
             a.grouped_mm_stream > 0;
  for (const auto& [k, v] : times) any = any || v >= 0;
  if (!any) return;
  o << "    aten:\n";
  for (const auto& [k, v] : times)
    if (v >= 0) o << "      " << k << ": " << q(v, "us", 1e-6) << "\n";
  if (a.rows_measured()) o << "      norm_ctas_per_sm: " << a.norm_ctas_per_sm << "\n";
  if (a.norm_wave_ramp >= 0) o << "      norm_wave_ramp: " << a.norm_wave_ramp << "\n";
  if (a.norm_tail_wave >= 0) o << "      norm_tail_wave: " << a.norm_tail_wave << "\n";
  if (a.norm_issue_ipc > 0) o << "      norm_issue_ipc: " << a.norm_issue_ipc << "\n";
  if (a.norm_overlap > 0) o << "      norm_overlap: " << a.norm_overlap << "\n";
  if (a.softmax_warp_rate > 0) o << "      softmax_warp_elements_per_s: " << a.softmax_warp_rate << "\n";
  if (a.softmax_warp_wide_rate > 0) o << "      softmax_warp_wide_elements_per_s: " << a.softmax_warp_wide_rate << "\n";
  if (a.softmax_block_ipc > 0) o << "      softmax_block_ipc: " << a.softmax_block_ipc << "\n";
  if (a.softmax_block_lone_ipc > 0) o << "      softmax_block_lone_ipc: " << a.softmax_block_lone_ipc << "\n";
  if (a.strided_rate > 0) o << "      strided_elements_per_s: " << a.strided_rate << "\n";
  if (a.cat_rate > 0) o << "      cat_elements_per_s: " << a.cat_rate << "\n";
  if (a.cast_rate > 0) o << "      cast_elements_per_s: " << a.cast_rate << "\n";
  if (a.int8_cast_rate > 0) o << "      int8_cast_elements_per_s: " << a.int8_cast_rate << "\n";
  if (a.generic_operand_rate > 0) o << "      generic_operand_elements_per_s: " << a.generic_operand_rate << "\n";
  if (a.grouped_mm_cta_rate > 0) o << "      grouped_mm_cta_rate: " << q(a.grouped_mm_cta_rate, "GB/s", 1e9) << "\n";
  if (a.grouped_mm_stream > 0) o << "      grouped_mm_stream: " << q(a.grouped_mm_stream, "GB/s", 1e9) << "\n";
  if (a.grouped_mm_pingpong_mma_share != 1)
    o << "      grouped_mm_pingpong_mma_share: " << a.grouped_mm_pingpong_mma_share << "\n";
  if (a.grouped_mm_cooperative_mma_share != 1)
    o << "      grouped_mm_cooperative_mma_share: " << a.grouped_mm_cooperative_mma_share << "\n";
  if (a.grouped_mm_full_pair_stream > 0)
    o << "      grouped_mm_full_pair_stream: " << q(a.grouped_mm_full_pair_stream, "GB/s", 1e9) << "\n";
  if (a.grouped_mm_wave_sharing > 0) o << "      grouped_mm_wave_sharing: " << a.grouped_mm_wave_sharing << "\n";
  if (a.grouped_mm_tile_switch_s > 0)
    o << "      grouped_mm_tile_switch: " << q(a.grouped_mm_tile_switch_s, "us", 1e-6) << "\n";
}

}  // namespace

std::vector<ProfileCalibration> read_profiles(MapReader& calibration) {
  std::vector<ProfileCalibration> out;
  auto section = calibration.opt_map("profiles");
  if (!section) return out;
  for (const std::string& name : section->keys()) {
    if (name != to_string(Impl::fused) && name != to_string(Impl::eager) && name != to_string(Impl::compiled))
      section->fail(name, "unknown profile '" + name + "' (known: fused, eager, compiled)");
    out.push_back(read_one(section->map(name), name));
  }
  section->finish();
  return out;
}

void write_profiles(std::ostream& o, const std::vector<ProfileCalibration>& profiles) {
  if (profiles.empty()) return;
  o << "profiles:   # what each implementation profile's own kernels cost on this card\n";
  for (const ProfileCalibration& p : profiles) {
    o << "  " << p.name << ":\n";
    if (!p.fitted_on.empty()) o << "    fitted_on: \"" << p.fitted_on << "\"\n";
    if (p.attention_peak) o << "    attention_peak: " << q(*p.attention_peak, "TFLOP/s", 1e12) << "\n";
    if (p.attention_softmax_share) o << "    attention_softmax_share: " << *p.attention_softmax_share << "\n";
    if (p.attention_cta_fixed_s) o << "    attention_cta_fixed: " << q(*p.attention_cta_fixed_s, "us", 1e-6) << "\n";
    if (p.attention_call_floor_s)
      o << "    attention_call_floor: " << q(*p.attention_call_floor_s, "us", 1e-6) << "\n";
    if (p.decode.measured()) {
      const ProductionDecode& d = p.decode;
      o << "    decode:\n";
      o << "      call_floor: " << q(d.call_floor_s, "us", 1e-6) << "\n";
      o << "      stream_bandwidth: " << q(d.stream_bandwidth, "GB/s", 1e9) << "\n";
      o << "      combine_per_split: " << q(d.combine_per_split_s, "us", 1e-6) << "\n";
      o << "      nonsplit_tile: " << q(d.nonsplit_tile_s, "us", 1e-6) << "\n";
      o << "      nonsplit_softmax_share: " << d.nonsplit_softmax_share << "\n";
      if (d.nonsplit_floor_s >= 0) o << "      nonsplit_floor: " << q(d.nonsplit_floor_s, "us", 1e-6) << "\n";
      if (!d.split_kv) o << "      split_kv: false\n";
    }
    if (p.gemm.measured()) {
      const ProductionGemm& g = p.gemm;
      o << "    gemm:\n";
      o << "      fixed: " << q(*g.fixed_s, "us", 1e-6) << "\n";
      o << "      split_k_reduce: " << q(*g.split_k_reduce_s, "us", 1e-6) << "\n";
      o << "      cta_walk_per_1024_k: " << q(*g.cta_walk_per_1024_k_s, "us", 1e-6) << "\n";
      o << "      stream_efficiency: " << *g.stream_efficiency << "\n";
      if (g.fp8_peak) o << "      fp8_peak: " << q(*g.fp8_peak, "TFLOP/s", 1e12) << "\n";
      if (g.cta_walk_latency_share) o << "      cta_walk_latency_share: " << *g.cta_walk_latency_share << "\n";
      if (g.split_k_min_slice) o << "      split_k_min_slice: " << *g.split_k_min_slice << "\n";
      if (g.xmma_tf32_fixed_s) o << "      xmma_tf32_fixed: " << q(*g.xmma_tf32_fixed_s, "us", 1e-6) << "\n";
      if (g.cutlass_tf32_fixed_s) o << "      cutlass_tf32_fixed: " << q(*g.cutlass_tf32_fixed_s, "us", 1e-6) << "\n";
      if (g.nvjet_fill_tiles) o << "      nvjet_fill_tiles: " << *g.nvjet_fill_tiles << "\n";
      if (g.tile_refill) o << "      tile_refill: " << *g.tile_refill << "\n";
      if (g.peak_scale) o << "      peak_scale: " << *g.peak_scale << "\n";
      if (g.epilogue_tail) o << "      epilogue_tail: " << *g.epilogue_tail << "\n";
      if (g.split_partials) o << "      split_partials: " << *g.split_partials << "\n";
      if (g.nvjet_wave_tiles) o << "      nvjet_wave_tiles: " << *g.nvjet_wave_tiles << "\n";
    }
    if (p.fused_moe.measured()) {
      const FusedMoeGemm& g = p.fused_moe;
      o << "    fused_moe:\n";
      o << "      floor: " << q(*g.floor_s, "us", 1e-6) << "\n";
      o << "      cta_rate: " << q(*g.cta_rate, "GB/s", 1e9) << "\n";
      o << "      stream: " << q(*g.stream, "GB/s", 1e9) << "\n";
      if (g.half_line_stream) o << "      half_line_stream: " << q(*g.half_line_stream, "GB/s", 1e9) << "\n";
      o << "      mma_efficiency: " << *g.mma_efficiency << "\n";
      if (g.l2_tile_rate) o << "      l2_tile_rate: " << q(*g.l2_tile_rate, "GB/s", 1e9) << "\n";
      if (g.l2_stream_norm) o << "      l2_stream_norm: " << *g.l2_stream_norm << "\n";
    }
    if (p.flash2.measured()) {
      const Flash2Prefill& f = p.flash2;
      o << "    flash2:\n";
      o << "      mma_peak: " << q(*f.mma_peak, "TFLOP/s", 1e12) << "\n";
      o << "      softmax: " << q(*f.softmax_s, "ns", 1e-9) << "\n";
      o << "      mask: " << q(*f.mask_s, "ns", 1e-9) << "\n";
      o << "      smem_share: " << *f.smem_share << "\n";
      o << "      cta_fixed: " << q(*f.cta_fixed_s, "us", 1e-6) << "\n";
      o << "      call_floor: " << q(*f.call_floor_s, "us", 1e-6) << "\n";
      if (f.lone_pace) o << "      lone_pace: " << *f.lone_pace << "\n";
      if (f.uneven_dim) o << "      uneven_dim: " << *f.uneven_dim << "\n";
      if (f.combine_per_split_s) o << "      combine_per_split: " << q(*f.combine_per_split_s, "us", 1e-6) << "\n";
      if (f.split_gap_per_cta_s) o << "      split_gap_per_cta: " << q(*f.split_gap_per_cta_s, "ns", 1e-9) << "\n";
      if (f.combine_dram_per_split_s)
        o << "      combine_dram_per_split: " << q(*f.combine_dram_per_split_s, "us", 1e-6) << "\n";
    }
    if (p.cudnn_decode.measured()) {
      const CudnnDecode& d = p.cudnn_decode;
      o << "    cudnn_decode:\n";
      o << "      kernel_floor: " << q(d.kernel_floor_s, "us", 1e-6) << "\n";
      o << "      reduction_floor: " << q(d.reduction_floor_s, "us", 1e-6) << "\n";
      o << "      stream_bandwidth: " << q(d.stream_bandwidth, "GB/s", 1e9) << "\n";
      if (d.cta_latency_s) o << "      cta_latency: " << q(*d.cta_latency_s, "us", 1e-6) << "\n";
      if (d.masked_resident) o << "      masked_resident: " << *d.masked_resident << "\n";
    }
    if (p.graph_call_host_s > 0) o << "    graph_call_host: " << q(p.graph_call_host_s, "us", 1e-6) << "\n";
    if (p.graph_call_host_per_input_s > 0)
      o << "    graph_call_host_per_input: " << q(p.graph_call_host_per_input_s, "us", 1e-6) << "\n";
    if (p.graph_kernel_gap_s > 0) o << "    graph_kernel_gap: " << q(p.graph_kernel_gap_s, "us", 1e-6) << "\n";
    if (p.graph_launch_per_node_s > 0)
      o << "    graph_launch_per_node: " << q(p.graph_launch_per_node_s, "us", 1e-6) << "\n";
    if (p.harness_idle_s > 0) o << "    harness_idle: " << q(p.harness_idle_s, "us", 1e-6) << "\n";
    if (p.host_per_kernel_s) o << "    host_per_kernel: " << q(*p.host_per_kernel_s, "us", 1e-6) << "\n";
    if (p.host_per_step_s) o << "    host_per_step: " << q(*p.host_per_step_s, "us", 1e-6) << "\n";
    if (p.host_per_aten_s) o << "    host_per_aten: " << q(*p.host_per_aten_s, "us", 1e-6) << "\n";
    if (p.host_per_module_s) o << "    host_per_module: " << q(*p.host_per_module_s, "us", 1e-6) << "\n";
    if (p.host_per_aten_view_s) o << "    host_per_aten_view: " << q(*p.host_per_aten_view_s, "us", 1e-6) << "\n";
    write_aten(o, p.aten);
    if (p.inductor.measured()) {
      o << "    inductor:\n";
      const std::pair<const char*, double> rates[] = {{"rmsnorm_elements_per_s", p.inductor.rmsnorm_rate},
                                                      {"layernorm_elements_per_s", p.inductor.layernorm_rate},
                                                      {"softmax_elements_per_s", p.inductor.softmax_rate}};
      for (const auto& [k, v] : rates)
        if (v > 0) o << "      " << k << ": " << v << "\n";
      const std::pair<const char*, double> walks[] = {{"looped_row", p.inductor.looped_row_s},
                                                      {"rmsnorm_block", p.inductor.rmsnorm_block_s},
                                                      {"layernorm_block", p.inductor.layernorm_block_s},
                                                      {"softmax_block", p.inductor.softmax_block_s},
                                                      {"whole_row_saved", p.inductor.whole_row_saved_s},
                                                      {"rmsnorm_group", p.inductor.rmsnorm_group_s},
                                                      {"rmsnorm_group_block", p.inductor.rmsnorm_group_block_s}};
      for (const auto& [k, v] : walks)
        if (v > 0) o << "      " << k << ": " << q(v, "us", 1e-6) << "\n";
      if (p.inductor.walk_from_cols > 0) o << "      walk_from_cols: " << p.inductor.walk_from_cols << "\n";
      if (p.inductor.rotary_call_l2 > 0) o << "      rotary_call_l2: " << p.inductor.rotary_call_l2 << "\n";
      if (p.inductor.split_ipc_cta > 0) o << "      split_ipc_cta: " << p.inductor.split_ipc_cta << "\n";
      if (p.inductor.split_ipc_sm > 0) o << "      split_ipc_sm: " << p.inductor.split_ipc_sm << "\n";
    }
  }
}

}  // namespace detail

}  // namespace perfmodel
