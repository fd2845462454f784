// Quantized GEMMs (docs/model.md, "Quantized linears"; issue 12).
#include <algorithm>
#include <cmath>

#include "kernel_costs.hpp"
#include "perfmodel/gemm_tiling.hpp"

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
// h200-quant2's K and N sweeps at M = 16 and 128 give that kernel's two rates:
//  - one wave (tiles <= SMs): each CTA walks ceil(K/128) steps of a padded 128x128x128 MMA alone
//    on its SM; the time is linear in K at 0.31-0.33 us a step whatever N (32 CTAs: 6.9 us at
//    K = 1024 to 74 us at 28672), about 87 % of an SM's datasheet fp8 rate at 1980 MHz, above the
//    calibrated whole-card fp8 peak (measured on a power-capped 8192^3 product; the fit over all
//    one-wave shapes, padded M = 16 included, lands at 73 %);
//  - the weight stream of this kernel reaches about half the read rate (wide N at M = 16:
//    2.5 TB/s; tensor-wise cuBLASLt kernels on the same shapes 3.4-3.9).
// One wave also pays a prologue outside the K loop (the K sweep's intercept, ~4 us), and few rows
// with many CTAs pay the padded-row term (padded_row_time below). The four are the calibration's
// `quant: fp8_row_*` keys (fitted together by validation/scripts/quant/fit_quant.py on the fit
// half of h200-quant's row-wise shapes, its FIT_SHAPES); a card without them takes its datasheet
// rates and neither extra term. More than one wave keeps the plain tile plan at the calibrated
// peak.
namespace {

// The CUTLASS sm80 int8 tiles torch._int_mm's kernels come in ("cutlass_80_tensorop_i16832gemm_s8_
// {64x64, 128x64, 128x128, 128x256}_128x{3,5,6}" in h200-quant2's kernel names), all 128 deep.
constexpr int64_t kMmaSyncK = 128;
const Tile kMmaSyncTiles[] = {{64, 64}, {128, 64}, {128, 128}, {128, 256}};

bool runs_pytorch_int_mm(const Roofs& r) { return r.profile == "eager" || r.profile == "compiled"; }

// torch._int_mm on a card whose measured sm80 mma.sync cost the calibration carries (h200-quant2:
// ~870-990 TOP/s at M = 4096, half of Hopper's wgmma int8 rate; flat in M up to 64 padded rows).
// Each CTA walks ceil(K/128) steps, each a fixed latency (the loads and barriers of a multistage
// mma.sync pipeline, not hidden at one CTA per SM) plus its tile's MMA at the kernel's share of the
// SM's datasheet int8 rate; every wave adds one dependent pass (the pipeline's fill and the
// epilogue). The kernel is the tile of least time, as a tuned heuristic picks: small tiles when
// few CTAs fill the SMs, 128x256 at large M.
KernelTimes mma_sync_int8_cost(const Op& op, const Roofs& r) {
  const MmaSyncGemmCost& c = r.quant.int8_mma_sync;
  const double sms = static_cast<double>(r.card.sm_count);
  const double sm_rate = r.card.peak_flops(Precision::int8) / sms * c.mma_share;
  const double steps = std::ceil(static_cast<double>(op.gemm.k) / kMmaSyncK);
  KernelTimes t;
  double best = -1;
  for (const Tile& tile : kMmaSyncTiles) {
    const double ctas = std::ceil(static_cast<double>(op.gemm.m) / tile.m) *
                        std::ceil(static_cast<double>(op.gemm.n) / tile.n) * static_cast<double>(op.gemm.batch);
    const double waves = std::ceil(ctas / sms);
    const double step = c.step_s + 2.0 * static_cast<double>(tile.m * tile.n * kMmaSyncK) / sm_rate;
    const double time = waves * (r.pass_latency_s + steps * step);
    if (best < 0 || time < best) {
      best = time;
      t.tiling = plan_tile(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, tile, r.card.sm_count, sm_rate * sms);
    }
  }
  t.compute_s = best;
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
  t.fixed_s = op.launches * r.kernel_floor_s + r.gemm_fixed_s;
  return t;
}

// The padded-row effect of the row-scaled kernel (h200-quant, h200-quant2; docs/model.md
// "W8A8"): with fewer than 128 rows each CTA still receives the whole 128-row A tile every K step.
// Nsight Compute (h200-quant2/ncu.csv, three shapes) counts as many L2-to-SM read sectors at
// M = 16 as at M = 128 (98-100 %; the real rows alone would be 56 %), and at M = 16 the busiest
// L2 slice runs at 1.5-1.6x the mean (1.03-1.05x at M = 128; DRAM slices even in both): the
// padded rows' requests land on a few slices that every CTA visits each step. Those slices serve
// them one after another, a resource shared by all CTAs: tiles x K steps x padded share x
// `padded_row_step_s`. It binds from about 48 CTAs on (below, the CTAs' own K loops are longer),
// which is why the slowdown grows with the CTA count and is absent at 32; it is proportional to
// K, so it is not the epilogue's row-scale loads (once per tile), and the DRAM bytes are the same
// at M = 16 and 128. cuBLASLt takes rows in multiples of 16 (the padding serving engines apply),
// so 1-16 rows are 16.
double padded_row_time(const Op& op, const RowScaledFp8Cost& c, double tiles) {
  const double rows = 16.0 * std::ceil(static_cast<double>(op.gemm.m) / 16.0);
  if (c.padded_row_step_s <= 0 || rows >= 128) return 0;
  const double padded_share = (128.0 - rows) / 128.0;
  return tiles * std::ceil(static_cast<double>(op.gemm.k) / 128.0) * padded_share * c.padded_row_step_s;
}

}  // namespace

KernelTimes scaled_gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  // INT8 W8A8 as PyTorch runs it (eager, compiled); fused (vLLM / TensorRT-LLM: Hopper wgmma
  // kernels) takes the card's int8 peak through gemm_cost (docs/model.md, "INT8 W8A8").
  if (op.quant_weight == DType::int8 && !force_tile && runs_pytorch_int_mm(r) && r.quant.int8_mma_sync.measured())
    return mma_sync_int8_cost(op, r);
  static const Tile row_tile{128, 128};
  // Block-scaled FP8 (1x128 x 128x128) runs the same 128x128x128, 6-stage, cooperative tile
  // ("..._128x128_128x6_..._coopA_..._Ablk128" in h200-quant2's kernel names), with split-K only
  // at a few shapes; nothing of it was fitted (h200-quant2 README).
  const bool tile_128 = op.scaling == Scaling::row || (op.scaling == Scaling::block && op.quant_weight == DType::fp8);
  const bool forced = !force_tile && tile_128 && stream_k_capable(r.card);
  if (forced) force_tile = &row_tile;
  KernelTimes t = gemm_cost(op, r, force_tile);
  const bool hopper = !r.card.compute_capability.empty() && r.card.compute_capability[0] == '9';
  if (!forced || !hopper || op.quant_weight != DType::fp8 || !t.tiling) return t;
  const RowScaledFp8Cost& c = r.quant.fp8_row;
  if (t.tiling->tiles <= r.card.sm_count) {
    const double sm_rate = r.card.peak_flops(Precision::fp8) / r.card.sm_count * c.cta_mma_efficiency;
    t.compute_s = 2.0 * row_tile.m * row_tile.n * t.tiling->k_per_cta / sm_rate;
    t.fixed_s += c.one_wave_prologue_s;
  }
  t.compute_s = std::max(t.compute_s, padded_row_time(op, c, static_cast<double>(t.tiling->tiles)));
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r) / c.stream_efficiency);
  return t;
}

}  // namespace perfmodel
