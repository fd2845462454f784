#include "quant/quant_calibration_io.hpp"

#include <sstream>

namespace perfmodel::detail {

namespace {
// A share in (0, 1] and a positive instruction count, or absent.
WeightOnlyCost read_weight_only(MapReader& m, const std::string& prefix) {
  WeightOnlyCost c;
  const std::string eff = prefix + "_stream_efficiency", issue = prefix + "_issue_per_row_element";
  if (auto v = m.opt_number(eff)) {
    if (!(*v > 0 && *v <= 1)) m.fail(eff, "must be a share in (0, 1]");
    c.stream_efficiency = *v;
  }
  if (auto v = m.opt_number(issue)) {
    if (!(*v > 0 && *v < 1e6)) m.fail(issue, "must be a positive count of warp instructions");
    c.issue_per_row_element = *v;
  }
  return c;
}

void write_weight_only(std::ostream& o, const std::string& prefix, const WeightOnlyCost& c, const char* what) {
  if (c.stream_efficiency > 0)
    o << "  " << prefix << "_stream_efficiency: " << c.stream_efficiency << "   # " << what
      << ": packed-weight stream, share of the read rate\n";
  if (c.issue_per_row_element > 0)
    o << "  " << prefix << "_issue_per_row_element: " << c.issue_per_row_element
      << "   # warp instructions per row of x per weight element\n";
}

// A share in (0, 1], or absent (0).
double opt_share(MapReader& m, const std::string& key) {
  const auto v = m.opt_number(key);
  if (!v) return 0;
  if (!(*v > 0 && *v <= 1)) m.fail(key, "must be a share in (0, 1]");
  return *v;
}
}  // namespace

QuantCalibration parse_quant_calibration(MapReader m) {
  QuantCalibration c;
  c.source = m.opt_str("source").value_or("");
  c.int4 = read_weight_only(m, "int4");
  c.int8 = read_weight_only(m, "int8");
  // torch int8pack's thread-per-output kernel (quant_gemm_cost.cpp int8pack_cost): both or none.
  for (const char* key : {"int8_thread_step_cycles", "int8_warp_step_cycles"}) {
    if (auto v = m.opt_number(key)) {
      if (!(*v > 0 && *v < 1e5)) m.fail(key, "must be a positive count of SM clock cycles");
      (std::string(key) == "int8_thread_step_cycles" ? c.int8.thread_step_cycles : c.int8.warp_step_cycles) = *v;
    }
  }
  if ((c.int8.thread_step_cycles > 0) != (c.int8.warp_step_cycles > 0))
    m.fail(c.int8.thread_step_cycles > 0 ? "int8_thread_step_cycles" : "int8_warp_step_cycles",
           "needs int8_thread_step_cycles and int8_warp_step_cycles together");
  c.int8_mma_sync.fill_rate =
      m.opt_quantity("int8_mma_sync_fill_rate", Dimension::bytes_per_s, false, 1e14).value_or(0);
  c.int8_mma_sync.latency_s = m.opt_quantity("int8_mma_sync_latency", Dimension::seconds, false, 1e-3).value_or(0);
  c.int8_mma_sync.stream_efficiency = opt_share(m, "int8_mma_sync_stream_efficiency");
  {
    // The three describe one kernel: all or none.
    const char* keys[] = {"int8_mma_sync_fill_rate", "int8_mma_sync_latency", "int8_mma_sync_stream_efficiency"};
    const bool set[] = {c.int8_mma_sync.fill_rate > 0, c.int8_mma_sync.latency_s > 0, c.int8_mma_sync.stream_efficiency > 0};
    for (int i = 0; i < 3; ++i)
      if (set[i] && !(set[0] && set[1] && set[2]))
        m.fail(keys[i], "needs int8_mma_sync_fill_rate, int8_mma_sync_latency and int8_mma_sync_stream_efficiency beside it");
  }
  c.fp8_row.cta_mma_efficiency = opt_share(m, "fp8_row_cta_mma_efficiency");
  c.fp8_row.stream_efficiency = opt_share(m, "fp8_row_stream_efficiency");
  c.fp8_row.padded_row_step_s = m.opt_quantity("fp8_row_padded_row_step", Dimension::seconds, false, 1e-3).value_or(0);
  c.fp8_row.one_wave_prologue_s = m.opt_quantity("fp8_row_prologue", Dimension::seconds, false, 1e-3).value_or(0);
  c.fp8_row.padded_step_cap_s = m.opt_quantity("fp8_row_padded_step_cap", Dimension::seconds, false, 1e-3).value_or(0);
  c.fp8_row.sm_stream_bps = m.opt_quantity("fp8_row_sm_stream", Dimension::bytes_per_s, false, 1e13).value_or(0);
  c.fp8_row.padded_full_walker = m.opt_number("fp8_row_padded_full_walker").value_or(0);
  if (!(c.fp8_row.padded_full_walker >= 0 && c.fp8_row.padded_full_walker <= 1))
    m.fail("fp8_row_padded_full_walker", "must be a share in [0, 1]");
  c.fp8_row.l2_tile_bps = m.opt_quantity("fp8_row_l2_tile_rate", Dimension::bytes_per_s, false, 1e15).value_or(0);
  // The capped form prices waves with one SM's stream, and past 128 rows rounds fed by L2: the
  // three keys together (quant_gemm_cost.cpp).
  {
    const char* keys[] = {"fp8_row_padded_step_cap", "fp8_row_sm_stream", "fp8_row_l2_tile_rate"};
    const bool set[] = {c.fp8_row.padded_step_cap_s > 0, c.fp8_row.sm_stream_bps > 0, c.fp8_row.l2_tile_bps > 0};
    for (int i = 0; i < 3; ++i)
      if (set[i] && !(set[0] && set[1] && set[2]))
        m.fail(keys[i], "needs fp8_row_padded_step_cap, fp8_row_sm_stream and fp8_row_l2_tile_rate together");
  }
  c.fp8_block.cta_mma_efficiency = opt_share(m, "fp8_block_cta_mma_efficiency");
  c.fp8_block.stream_efficiency = opt_share(m, "fp8_block_stream_efficiency");
  c.fp8_block.one_wave_prologue_s = m.opt_quantity("fp8_block_prologue", Dimension::seconds, false, 1e-3).value_or(0);
  if ((c.fp8_block.cta_mma_efficiency > 0) != (c.fp8_block.stream_efficiency > 0))
    m.fail(c.fp8_block.cta_mma_efficiency > 0 ? "fp8_block_cta_mma_efficiency" : "fp8_block_stream_efficiency",
           "needs fp8_block_cta_mma_efficiency and fp8_block_stream_efficiency together");
  c.fp8_tensor.mma_efficiency = opt_share(m, "fp8_tensor_mma_efficiency");
  c.fp8_tensor.stream_efficiency = opt_share(m, "fp8_tensor_stream_efficiency");
  c.fp8_tensor.prologue_s = m.opt_quantity("fp8_tensor_prologue", Dimension::seconds, false, 1e-3).value_or(0);
  c.fp8_tensor.sm_fill_bps = m.opt_quantity("fp8_tensor_sm_fill", Dimension::bytes_per_s, false, 1e13).value_or(0);
  if (c.fp8_tensor.sm_fill_bps > 0 && !(c.fp8_tensor.mma_efficiency > 0))
    m.fail("fp8_tensor_sm_fill", "needs fp8_tensor_mma_efficiency and fp8_tensor_stream_efficiency");
  if ((c.fp8_tensor.mma_efficiency > 0) != (c.fp8_tensor.stream_efficiency > 0))
    m.fail(c.fp8_tensor.mma_efficiency > 0 ? "fp8_tensor_mma_efficiency" : "fp8_tensor_stream_efficiency",
           "needs fp8_tensor_mma_efficiency and fp8_tensor_stream_efficiency together");
  if (auto v = m.opt_number("fp8_kv_convert_per_element")) {
    if (!(*v > 0 && *v < 1e3)) m.fail("fp8_kv_convert_per_element", "must be a positive count of warp instructions");
    c.fp8_kv_convert_per_element = *v;
  }
  m.finish();
  return c;
}

std::string quant_calibration_yaml(const QuantCalibration& c) {
  std::ostringstream o;
  write_weight_only(o, "int4", c.int4, "tinygemm W4A16");
  write_weight_only(o, "int8", c.int8, "torch int8pack W8A16");
  if (c.int8.thread_step_cycles > 0 && c.int8.warp_step_cycles > 0)
    o << "  int8_thread_step_cycles: " << c.int8.thread_step_cycles
      << "   # torch int8pack (one thread per output): a thread's dependent chain per K step, SM cycles\n"
      << "  int8_warp_step_cycles: " << c.int8.warp_step_cycles
      << "   # one warp's K step on its SM's load pipe, SM cycles\n";
  if (c.int8_mma_sync.measured())
    o << "  int8_mma_sync_fill_rate: " << c.int8_mma_sync.fill_rate / 1e9
      << " GB/s   # torch._int_mm's sm80 mma.sync kernel: one SM's L2-to-shared fill rate\n"
      << "  int8_mma_sync_latency: " << c.int8_mma_sync.latency_s * 1e6
      << " us   # a lone CTA's load latency, hidden over its stages - 1\n"
      << "  int8_mma_sync_stream_efficiency: " << c.int8_mma_sync.stream_efficiency
      << "   # its weight stream, share of the read rate\n";
  if (c.fp8_row.cta_mma_efficiency > 0)
    o << "  fp8_row_cta_mma_efficiency: " << c.fp8_row.cta_mma_efficiency
      << "   # row-scaled FP8, one wave: share of an SM's datasheet fp8 rate\n";
  if (c.fp8_row.stream_efficiency > 0)
    o << "  fp8_row_stream_efficiency: " << c.fp8_row.stream_efficiency << "   # its weight stream, share of the read rate\n";
  if (c.fp8_row.padded_row_step_s > 0)
    o << "  fp8_row_padded_row_step: " << c.fp8_row.padded_row_step_s * 1e6
      << " us   # per CTA K step of a fully padded A tile and per CTA walking at once\n";
  if (c.fp8_row.one_wave_prologue_s > 0)
    o << "  fp8_row_prologue: " << c.fp8_row.one_wave_prologue_s * 1e6 << " us   # one wave: outside the K loop\n";
  if (c.fp8_row.padded_step_cap_s > 0)
    o << "  fp8_row_padded_step_cap: " << c.fp8_row.padded_step_cap_s * 1e6
      << " us   # the most a CTA's padded K step costs, however many CTAs walk at once\n";
  if (c.fp8_row.sm_stream_bps > 0)
    o << "  fp8_row_sm_stream: " << c.fp8_row.sm_stream_bps * 1e-9 << " GB/s   # one SM's weight stream alone, beside the card's\n";
  if (c.fp8_row.padded_full_walker > 0)
    o << "  fp8_row_padded_full_walker: " << c.fp8_row.padded_full_walker
      << "   # a full row tile's CTA beside a partial last tile's, share of one walking its padded step\n";
  if (c.fp8_row.l2_tile_bps > 0)
    o << "  fp8_row_l2_tile_rate: " << c.fp8_row.l2_tile_bps * 1e-12 << " TB/s   # past 128 rows: A + B tile bytes L2 hands the SMs\n";
  if (c.fp8_block.measured())
    o << "  fp8_block_cta_mma_efficiency: " << c.fp8_block.cta_mma_efficiency
      << "   # block-scaled FP8, one wave: share of an SM's datasheet fp8 rate\n"
      << "  fp8_block_stream_efficiency: " << c.fp8_block.stream_efficiency
      << "   # its weight stream, share of the read rate\n";
  if (c.fp8_block.one_wave_prologue_s > 0)
    o << "  fp8_block_prologue: " << c.fp8_block.one_wave_prologue_s * 1e6 << " us   # one wave: outside the K loop\n";
  if (c.fp8_tensor.measured())
    o << "  fp8_tensor_mma_efficiency: " << c.fp8_tensor.mma_efficiency
      << "   # tensor-wise FP8 (cuBLASLt nvjet): MMA share of the datasheet fp8 rate\n"
      << "  fp8_tensor_stream_efficiency: " << c.fp8_tensor.stream_efficiency
      << "   # its weight stream, share of the read rate\n";
  if (c.fp8_tensor.prologue_s > 0)
    o << "  fp8_tensor_prologue: " << c.fp8_tensor.prologue_s * 1e6 << " us   # outside the K loop\n";
  if (c.fp8_tensor.sm_fill_bps > 0)
    o << "  fp8_tensor_sm_fill: " << c.fp8_tensor.sm_fill_bps * 1e-9
      << " GB/s   # one SM's A + B fill on a small tile's K walk, a floor under the MMA and the stream\n";
  if (c.fp8_kv_convert_per_element > 0)
    o << "  fp8_kv_convert_per_element: " << c.fp8_kv_convert_per_element
      << "   # fp8 KV cache: warp instructions per K/V element converted in registers\n";
  std::string body = o.str();
  if (!body.empty() && !c.source.empty()) body = "  source: \"" + c.source + "\"\n" + body;
  if (body.empty()) return "";
  return "quant:   # weight-only GEMMs (validation/scripts/quant/fit_quant.py)\n" + body;
}

}  // namespace perfmodel::detail
