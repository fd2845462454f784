// Carrying a calibration to another card of the same die (calibration_transfer.hpp).
#include "perfmodel/calibration_transfer.hpp"

#include <algorithm>
#include <fstream>

#include "perfmodel/catalogue.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

bool same_die(const Card& a, const Card& b) {
  return !a.architecture.empty() && a.architecture == b.architecture && a.compute_capability == b.compute_capability &&
         a.sm_count == b.sm_count && a.tensor_clock_hz == b.tensor_clock_hz;
}

namespace {

void scale(Measured& v, double k) {
  if (v) *v *= k;
}

bool same_nvlink(const Card& a, const Card& b) {
  const auto& x = a.interconnect.nvlink;
  const auto& y = b.interconnect.nvlink;
  if (!x || !y) return !x && !y;
  return x->generation == y->generation && x->bandwidth_per_direction == y->bandwidth_per_direction;
}

// A stream measured at efficiency `e` of the source's read rate, whose shortfall is the die's load latency over a fixed
// number of bytes in flight: the efficiency it reaches at the target's read rate (0 and >= 1 kept as they are).
double die_latency_stream_efficiency(double e, double source_read, double target_read) {
  if (!(e > 0) || e >= 1) return e;
  return 1.0 / (1.0 + (1.0 / e - 1.0) * target_read / source_read);
}

// The quantized kernels' weight streams, priced as shares of the read rate (quant_gemm_cost.cpp), at the target's read
// rate `target_read` (`source_read` the source's).
void carry_quant_streams(QuantCalibration& q, double source_read, double target_read) {
  // tinygemm W4A16's packed-weight "stream" is its SMs' unpacking, not DRAM: it ran at the H200's pace on the H100 at
  // every row count (validation/results/h100-quanth100: H100 / H200 0.99-1.01 median by M, at most 1.74 TB/s, half
  // the H100's read rate), where bf16 GEMVs ran 1.30x slower. Its rate carries as the die's, within the target's
  // read rate.
  if (q.int4.stream_efficiency > 0)
    q.int4.stream_efficiency = std::min(1.0, q.int4.stream_efficiency * source_read / target_read);
  // torch._int_mm's sm80 kernel and cuBLASLt's tensor-wise and block-scaled FP8 kernels price their weight stream as
  // the read rate over one fitted efficiency, with no die term beside it. Their streams keep a fixed number of loads
  // in flight (the tiles' stages), so a byte costs the DRAM's share plus a latency share that the die sets (Little's
  // law, 1/X = 1/read + latency / bytes in flight): the part of the source's efficiency short of 1 carries as time
  // per byte, not as a share. h100-quanth100's _int_mm GEMVs streamed at 3.18 TB/s on the H200 and 2.48 on the H100
  // (a 1.28 ratio at 100-262 MB, no intercept), where a share carries 1.43 and this 1.30; held out by
  // h100-quanth100c (_int_mm 5.5 -> 4.5 %, tensor-wise 5.4 -> 3.4 %, block 3.5 -> 3.2 % median).
  for (double* e :
       {&q.int8_mma_sync.stream_efficiency, &q.fp8_tensor.stream_efficiency, &q.fp8_block.stream_efficiency})
    *e = die_latency_stream_efficiency(*e, source_read, target_read);
}

}  // namespace

Calibration transfer_calibration(const Calibration& cal, const Card& from, const Card& to) {
  if (!same_die(from, to))
    throw InputError("calibration of '" + from.key + "' cannot price '" + to.key + "': not the same die (" +
                     from.architecture + ", " + std::to_string(from.sm_count) + " SMs against " + to.architecture +
                     ", " + std::to_string(to.sm_count) + ")");
  if (!(to.bandwidth > 0) || !(from.l2_bytes > 0) || !(to.l2_bytes > 0) || !(cal.dram_bandwidth > 0))
    throw InputError("calibration transfer from '" + from.key + "' to '" + to.key +
                     "': both cards need a memory bandwidth and an L2 size");
  Calibration c = cal;
  c.card_key = to.key;
  c.source_card = cal.source_card.empty() ? cal.card_key : cal.source_card;
  // DRAM: a copy (read + write) is the card's own: HBM3 and HBM3e do not reach the same share of
  // their datasheet rates for it (the H200's copy 83 %, the H100's 90 %: validation/results/
  // h100-second/bw.txt), so the target keeps the default copy efficiency. A read stream keeps the
  // source's share of its datasheet rate (the read rate scales with the datasheets), and so does
  // every kernel stream priced as a share of the read rate: the H100's GEMV weight streams and
  // cuDNN's decode ran 0.67 / 0.71 of the H200's pace (datasheets 0.70; h100-first against
  // h200-production), where the default copy as the read rate priced 0.63.
  const double copy = to.bandwidth * DefaultEfficiency::memory;
  const double source_read = cal.read_bandwidth ? *cal.read_bandwidth : cal.dram_bandwidth;
  const double stream = to.bandwidth / from.bandwidth;  // a stream keeps its share of the datasheet rate
  c.source_file = cal.source_file + " (measured on " + c.source_card + ", carried to " + to.key +
                  ": same die; the copy at the datasheet default, reads at the source's share)";
  c.dram_bandwidth = copy;
  c.read_bandwidth = source_read * stream;
  carry_quant_streams(c.quant, source_read, *c.read_bandwidth);
  c.write_bandwidth.reset();
  c.ramp_bandwidth = copy;
  scale(c.l2_cyclic_capacity, to.l2_bytes / from.l2_bytes);
  for (ProfileCalibration& p : c.profiles) {
    // FlashAttention-2's split-KV CTAs: a wave's stream is DRAM's, one CTA's own pace is the die's (Little's law), so a
    // part-full wave can fill the slower DRAM (attention_decode_flash2.cpp; h100-first / h100-second's split calls).
    if (p.decode.cta_stream_bandwidth <= 0 && from.sm_count > 0)
      p.decode.cta_stream_bandwidth = p.decode.stream_bandwidth / (2.0 * from.sm_count);
    p.decode.stream_bandwidth *= stream;
    p.cudnn_decode.stream_bandwidth *= stream;
    // The grouped GEMM's shared stream is DRAM's; one CTA's own stream is its loads in flight over
    // the memory latency (Little's law), the same on both HBM generations to first order.
    p.aten.grouped_mm_stream *= stream;
    p.aten.grouped_mm_full_pair_stream *= stream;  // the full pairs' stream is DRAM's too
    // Likewise vLLM's fused_moe (cta_rate carries). At half lines (BLOCK_K 32) the same kernel streams slower than at
    // full ones, the same DRAM bytes with the L2 busier (h200-moe5 / moe6): that shortfall is the die's time per byte,
    // kept while the full-line stream scales (h100-moeh100: Mixtral's 64 x 64 x 32 decode GEMMs ran 1.24x the H200's
    // time, priced 1.43x with the half-line stream scaled, 1.26x with the die's part kept; h100-moeh100b, 26 new
    // layers, decided it by a rule set before its run: grouped GEMMs 7.1 % against 10.4 % median).
    if (p.fused_moe.half_line_stream) {
      const double full = p.fused_moe.stream ? *p.fused_moe.stream : source_read;
      *p.fused_moe.half_line_stream =
          full * stream * die_latency_stream_efficiency(*p.fused_moe.half_line_stream / full, full, full * stream);
    }
    if (p.fused_moe.stream) *p.fused_moe.stream *= stream;
    // Its L2 tile rate goes with the L2's slices, which the die enables with its memory partitions (the H100 SXM's
    // 50 MB against the H200's 60 MB: five HBM stacks of six). The H100's prefills moved the same tile loads at
    // 0.84-0.85 of the H200's rate at the same clock (h100-moeh100 against h200-moe-fused2, 2048 tokens, three
    // models; fit_fused_moe_l2.py), 50 / 60 = 0.83.
    scale(p.fused_moe.l2_tile_rate, to.l2_bytes / from.l2_bytes);
  }
  // The error bands: this card's own where the file holds them (`sibling_error_bands:`, measured on this card with
  // the file carried), set by set; the rest were measured on the source card, and say so where each is shown.
  const auto own = cal.sibling_error_bands.find(to.key);
  for (auto& [profile, bands] : c.error_bands) {
    const ErrorBands* mine = nullptr;
    if (own != cal.sibling_error_bands.end())
      if (auto it = own->second.find(profile); it != own->second.end()) mine = &it->second;
    if (!mine) {
      bands.source += "; measured on " + c.source_card + ", none on " + to.key + " (calibration carried, same die)";
      continue;
    }
    std::string from_source;
    for (const auto& [set, q] : mine->sets) bands.sets[set] = q;
    for (const auto& [set, q] : bands.sets)
      if (!mine->sets.count(set)) from_source += (from_source.empty() ? "" : ", ") + set;
    bands.source = mine->source + " (measured on " + to.key + ", calibration carried from " + c.source_card + ")" +
                   (from_source.empty() ? "" : "; " + from_source + ": measured on " + c.source_card + ", none on " + to.key);
  }
  c.sibling_error_bands.clear();
  // NCCL's link latencies and bus bandwidths belong to the NVLink; another NVLink has none measured.
  if (!same_nvlink(from, to)) c.collectives = CollectiveCalibration{};
  return c;
}

std::optional<Calibration> sibling_calibration(const Catalogue& cat, const Card& card) {
  for (const std::string& key : cat.card_keys()) {
    if (key == card.key) continue;
    const std::string path = cat.calibration_path(key);
    if (!std::ifstream(path).good()) continue;
    const Card other = cat.card(key);
    if (!same_die(other, card)) continue;
    return transfer_calibration(load_calibration(path), other, card);
  }
  return std::nullopt;
}

}  // namespace perfmodel
