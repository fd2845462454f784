// Tensor-core GEMMs: tiles and waves (gemm_tiling.hpp), split-K and stream-K, prologue and
// epilogue, and the weight stream of skinny products (docs/model.md, "GEMM").
#include <cctype>
#include <cstdlib>

#include "kernel_costs.hpp"

namespace perfmodel {

// cuBLAS schedules stream-K hybrids from Hopper (CC 9.0) on.
bool stream_k_capable(const Card& card) {
  return !card.compute_capability.empty() && std::isdigit(static_cast<unsigned char>(card.compute_capability[0])) &&
         std::atoi(card.compute_capability.c_str()) >= 9;
}

TilePlan gemm_plan(const Card& card, int64_t m, int64_t n, int64_t k, int64_t batch, double peak_flops) {
  // One fp32 partial tile is written and read back at an SM's L2 port (64 B per clock).
  const double fixup_rate = stream_k_capable(card) ? 64.0 * card.tensor_clock_hz : 0.0;
  return best_plan(m, n, k, batch, card.sm_count, peak_flops, fixup_rate);
}

KernelTimes gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  if (op.flops <= 0) return stream_cost(op, r, force_tile);
  const Card& card = r.card;
  const double peak = effective_peak(r, op.precision);
  KernelTimes t;
  t.tiling = force_tile ? plan_tile(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, *force_tile, card.sm_count, peak)
                        : gemm_plan(card, op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, peak);
  t.compute_s = t.tiling->compute_time_s;
  // GEMV-shaped products (a few rows) run as dot products, not padded MMA tiles.
  if (op.gemm.m <= 8) t.compute_s = op.flops / peak;
  // Prologue and epilogue, and the K loop one CTA walks (its pipeline latency is not hidden
  // behind a weight stream): fitted on the calibration's M and K ramps.
  t.fixed_s = op.launches * r.kernel_floor_s + r.gemm_fixed_s + r.gemm_fixed_per_k_s * t.tiling->k_per_cta / 1024.0;
  if (t.tiling->split_k > 1) t.fixed_s += r.kernel_floor_s + r.pass_latency_s;
  // The weight stream runs at the fitted share of a copy's read rate (its loads wait on the MMA
  // pipeline, not only on DRAM).
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r) / r.gemm_stream_efficiency);
  return t;
}

}  // namespace perfmodel
