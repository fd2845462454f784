// Quantized GEMMs (docs/model.md, "Quantized linears"; issue 12).
#include <algorithm>
#include <cmath>

#include "kernel_costs.hpp"

namespace perfmodel {

// Weight-only W4A16 / W8A16 (tinygemm, torch int8pack): two pipelines.
//  - The packed weights (and their scales and zeros) stream from DRAM at the kernel's own share
//    of the read rate (its loads wait on the unpacking, not only on DRAM): at small M this bounds.
//  - Every weight element is unpacked, scaled and shifted (and the scale/zero of its group
//    fetched) again for every row of x before its MMA: tinygemm walks x in row tiles and redoes
//    the dequantization per tile, and its time grows with M from M = 4 on (h200-quant: 1.8 us per
//    row at 6144x4096). That issue work, at the card's issue rate, bounds at large M; it is why
//    W4A16 becomes slower than bf16 past a few tens of rows.
// The two overlap only in part: the time is their quadrature sum, sqrt(mem^2 + issue^2) (the
// h200-quant M = 1..16 ramps lie on it; a plain max is 35 % fast at the crossing). The part of the
// shorter pipeline that does not hide is carried as a fixed cost so that price() keeps
// t = fixed + max(compute, memory) and the bound stays the longer pipeline.
KernelTimes weight_only_gemm_cost(const Op& op, const Roofs& r, const Tile*) {
  const WeightOnlyCost& c = op.quant_weight == DType::int8 ? r.quant.int8 : r.quant.int4;
  KernelTimes t;
  const double M = static_cast<double>(op.gemm.m), N = static_cast<double>(op.gemm.n),
               K = static_cast<double>(op.gemm.k);
  const double group = op.quant_group > 0 ? static_cast<double>(op.quant_group) : K;
  // One element's worth of work per group for its scale and zero.
  const double issue = c.issue_per_row_element * M * N * K * (1.0 + 1.0 / group) / r.issue_rate;
  t.compute_s = std::max(op.flops / effective_peak(r, op.precision), issue);
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r) / c.stream_efficiency);
  const double overlap = std::hypot(t.compute_s, t.memory_s) - std::max(t.compute_s, t.memory_s);
  t.fixed_s = op.launches * r.kernel_floor_s + overlap;
  return t;
}

// W8A8 / W4A4 with scales: a tensor-core GEMM at the input's peak (gemm_cost) whose epilogue
// multiplies by the scales (their bytes are in the op). cuBLASLt's outer-vector-scaled kernels
// (per-token x per-channel, "ovscale" in the kernel names) on Hopper come in one 128x128 tile
// without split-K (every row-wise case of h200-quant, M = 1..4096): few rows leave most SMs
// without a tile, so small-M row-wise products stream their weights through fewer SMs.
KernelTimes scaled_gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  static const Tile row_tile{128, 128};
  if (!force_tile && op.scaling == Scaling::row && stream_k_capable(r.card)) force_tile = &row_tile;
  return gemm_cost(op, r, force_tile);
}

}  // namespace perfmodel
