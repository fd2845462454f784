// Quantized GEMMs (docs/model.md, "Quantized linears"; issue 12).
#include <algorithm>
#include <cmath>

#include "kernel_costs.hpp"
#include "perfmodel/quant.hpp"
#include "perfmodel/gemm_tiling.hpp"

namespace perfmodel {

// Weight-only W4A16 (tinygemm; and torch int8pack W8A16 on a card without its two keys, see
// int8pack_cost below): two pipelines.
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
namespace {

// torch._weight_int8pack_mm's own CUDA kernel (PyTorch 2.11, aten/src/ATen/native/cuda/int8mm.cu,
// at::native::weight_int8pack_mm_kernel; the name h200-quant profiled): one thread per output,
// blocks of 16 x 16 threads (16 output channels x 16 rows of x), each thread walking all of K
// alone: acc += x[b][k] * float(w[n][k]), no tensor cores, no shared memory, no split of K. Its
// time is the busiest SM's K loop, from the launch shape:
//  - blocks = ceil(N/16) x ceil(M/16); rows past M exit at once, so a block runs ceil(rows/2)
//    warps of its 8 (a warp is 16 channels x 2 rows): 1 at M = 1, 2 at M = 4, 8 from 16;
//  - the busiest SM gets ceil(blocks / SMs) of them: the time steps with that count, not with
//    M x N (h200-quant8: 2112 -> 2128 channels at 16 rows, 132 -> 133 blocks, 331 -> 622 us;
//    h200-quant's Qwen2.5 N = 3584 / 4608 at 16-32 rows, 15-38 % slower per output than Llama);
//  - every K step of a warp is 16 byte loads from 16 weight rows K apart (16 L1 wavefronts) and
//    one or two of x: `warp_step_cycles` of the SM's load pipe, shared by the SM's warps;
//  - a thread's K steps are one dependent chain (loads, convert, FMA) of `thread_step_cycles`;
//    an SM holds max_threads / 256 blocks (8), further blocks wait a round.
// The two overlap only in part, as in weight_only_gemm_cost: K x hypot(rounds x chain, pipe).
// The two keys were fitted by fit_quant.py on FIT_SHAPES of h200-quant with late_company below
// (72.7 and 18.35 cycles; 75.9 and 18.63 without it; 18.35 is near the 17-18 wavefronts a warp's
// step issues). Past the first resident round at fewer than 16 rows the rest of the grid is not
// dealt one block per SM: late_company below.
//
// The busiest SM's share of the blocks past the first resident round, when every block runs
// `live` < 8 warps (1-15 rows). validation/results/h200-quant9 traced each block of this kernel
// (%smid, %globaltimer, clock64; validation/scripts/quant/int8pack_trace.py):
//  - none of the rest starts before a first-round block completes (an SM is refilled when one of
//    its blocks completes), and then all of it starts within ~1 us (M = 1, N = 28672: 736 blocks
//    between 297.6 and 298.4 us);
//  - an SM counts the slots of exited warps as free: at its first completion it takes
//    floor((64 - 7 x live) / 8) blocks at once (`first`: 7 at M = 1, 6 at M = 4, as traced), and
//    more at its next completions, up to max_blocks_per_sm or while a new block's 8 warps fit
//    (`hold`);
//  - so the rest lands on the SMs that free first: at M = 1 the busiest SM took 7 of 32 (8 SMs
//    used), 7 of 224 (48), 10 of 480 (74), 13 of 736 (86 SMs), kLateSkew = 13 / (736 / 132) =
//    2.33 times the mean where `first` does not bound it (read off that trace's placement, no time
//    fitted);
//  - a late block's K step is set by its company alone (131-146 cycles a step with 7-13 blocks
//    together, the first round's law for that company), so they are priced as one more round of
//    that many blocks (in batches of `hold`).
// Held out: h200-quant8's five cases past one round and h200-quant's gate/ups at M = 1 and 4
// (docs/accuracy-notes.md, branch quant9). Untested at 9-15 rows (live 5-7).
constexpr double kLateSkew = 2.33;

// The busiest SM's late blocks: at least a first refill, kLateSkew x the mean, at most what an SM
// holds (past that the rest spills to other SMs).
double late_company(double pending, double live, int sms, int resident, int warps_per_sm, double hold) {
  const double first = std::floor((warps_per_sm - (resident - 1) * live) / 8.0);
  return std::min({pending, hold, std::max(first, std::ceil(kLateSkew * pending / sms))});
}

KernelTimes int8pack_cost(const Op& op, const Roofs& r, const WeightOnlyCost& c) {
  const int64_t m = op.gemm.m * std::max<int64_t>(1, op.gemm.batch), n = op.gemm.n;
  const int64_t col_blocks = (n + 15) / 16, blocks = col_blocks * ((m + 15) / 16);
  // A warp spans warp_size / 16 rows of the 16 x 16 block (2 on NVIDIA's 32, 4 on a 64-wide wavefront).
  const int64_t rows_per_warp = std::max<int64_t>(1, std::min<int64_t>(16, r.card.limits.warp_size / 16));
  const int64_t full = 16 / rows_per_warp, rest = m % 16;
  const double warps = static_cast<double>(col_blocks * (full * (m / 16) + (rest + rows_per_warp - 1) / rows_per_warp));
  const int sms = std::max(1, r.card.sm_count);
  const int threads = r.card.limits.max_threads_per_sm > 0 ? r.card.limits.max_threads_per_sm : 2048;
  int resident = std::max(1, threads / 256);
  if (r.card.limits.max_blocks_per_sm > 0) resident = std::min(resident, r.card.limits.max_blocks_per_sm);
  const double per_sm = std::ceil(static_cast<double>(blocks) / sms);
  const double rounds = std::ceil(per_sm / resident);
  const double clock = r.card.cuda_clock_hz > 0 ? r.card.cuda_clock_hz : 1.98e9;
  double step = std::hypot(rounds * c.thread_step_cycles, per_sm * warps / static_cast<double>(blocks) * c.warp_step_cycles);
  const int warps_per_sm = r.card.limits.max_warps_per_sm > 0 ? r.card.limits.max_warps_per_sm : threads / 32;
  const double live = warps / static_cast<double>(blocks);
  const double pending = static_cast<double>(blocks) - static_cast<double>(resident) * sms;
  if (m < 16 && pending > 0 && warps_per_sm - (resident - 1) * live >= 16) {
    // The first round, then the busiest SM's late company (late_company), in batches of `hold`.
    const int max_blocks = r.card.limits.max_blocks_per_sm > 0 ? r.card.limits.max_blocks_per_sm : 32;
    const double hold = std::min<double>(max_blocks, std::floor((warps_per_sm - 8) / live) + 1);
    // Whole batches while the rest fills every SM to `hold` (none in any measured case), then the last.
    const double full = std::floor(pending / (hold * sms)), rest_blocks = pending - full * hold * sms;
    const double n = rest_blocks > 0 ? late_company(rest_blocks, live, sms, resident, warps_per_sm, hold) : 0.0;
    step = std::hypot(c.thread_step_cycles, resident * live * c.warp_step_cycles) +
           full * std::hypot(c.thread_step_cycles, hold * live * c.warp_step_cycles) +
           (n > 0 ? std::hypot(c.thread_step_cycles, n * live * c.warp_step_cycles) : 0.0);
  }
  KernelTimes t;
  t.compute_s = static_cast<double>(op.gemm.k) * step / clock;
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));  // 0.1-0.2 TB/s here: never binds
  t.fixed_s = op.launches * r.kernel_floor_s;  // x and scales to fp32, y back to bf16
  return t;
}

}  // namespace

// A serving engine's weight-only GEMM (the fused profile): vLLM's Marlin / Machete and TensorRT-LLM's fpA_intB kernels
// are mixed-input tensor-core GEMMs that load the packed weights and their scales, convert them to bf16 in registers
// on the way to the MMA and keep cuBLASLt's tile structure; one kernel (Frantar et al. 2024, "MARLIN: Mixed-Precision
// Auto-Regressive Parallel Inference on Large Language Models": 3.87x over FP16 at batch 1-32 for 4-bit, against 4x
// of the bytes alone). Priced as the profile's own bf16 GEMM over the packed bytes (the op's bytes_read holds them:
// ops::gemm_wonly), MMAs at the bf16 rate; no new parameter. A CTA's K loop (the profile's cta_walk, fitted on bf16
// weights as a wait on loads in flight: Little's law) brings in a K step's packed bytes, so its walk shrinks with
// them. Not measured: neither kernel is installed on the lent H200 (the step report says so). The eager and compiled
// profiles keep the PyTorch kernels measured there (tinygemm, int8pack, the bf16 copy under Inductor), and a card's
// roofs without a profile price those too.
KernelTimes mixed_input_gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  Op g = op;
  g.launches = 1;
  const double n = static_cast<double>(op.gemm.n), k = static_cast<double>(op.gemm.k);
  const double packed = weight_storage_bytes(op.quant_weight, op.dtype, op.quant_group, Scaling::tensor, op.gemm.n, op.gemm.k);
  Roofs walk = r;
  walk.gemm_cta_walk_s *= std::min(1.0, packed / (n * k * bytes_of(op.dtype)));
  KernelTimes t = gemm_cost(g, walk, force_tile);
  // Few tokens do not pad a 64-row wgmma tile: Marlin's mma.sync MMAs take 16 rows at a time, spread over every SM
  // by its striped partition; Machete puts the tokens on the MMA's N side (8 and up). Below 64 rows the MMAs are the
  // tokens rounded up to 16 at the card's bf16 rate, where the weight stream is the longer part anyway.
  constexpr int64_t kMmaRows = 16, kWgmmaRows = 64;
  if (!force_tile && op.gemm.m < kWgmmaRows) {
    const double rows = static_cast<double>((op.gemm.m + kMmaRows - 1) / kMmaRows * kMmaRows);
    const double padded = 2.0 * rows * n * k * static_cast<double>(std::max<int64_t>(1, op.gemm.batch));
    t.compute_s = std::min(t.compute_s, padded / effective_peak(r, op.precision));
  }
  return t;
}

KernelTimes weight_only_gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  if (r.profile == "fused") return mixed_input_gemm_cost(op, r, force_tile);
  const WeightOnlyCost& c = op.quant_weight == DType::int8 ? r.quant.int8 : r.quant.int4;
  if (op.quant_weight == DType::int8 && c.thread_step_cycles > 0 && c.warp_step_cycles > 0) return int8pack_cost(op, r, c);
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
// peak. Since fp8cap10 a calibration with the fifth key (fp8_row_padded_step_cap, H200's) prices
// up to 128 rows wave by wave instead (row_fp8_by_waves below), and past 128 rows by rounds fed by
// L2 (row_fp8_row_tiles, fp8row11).
namespace {

// The CUTLASS sm80 int8 kernels torch._int_mm runs (h200-quant2's kernel names,
// "cutlass_80_tensorop_i16832gemm_s8_<tile>_128x<stages>"): all 128 deep; 4 warps of tile/2 x
// tile/2 each, 8 warps at 128x256.
struct MmaSyncTile {
  int64_t m, n;
  int stages;
};
constexpr int64_t kMmaSyncK = 128;
constexpr MmaSyncTile kInt8Small{64, 64, 6}, kInt8Narrow{128, 64, 3}, kInt8Square{128, 128, 5}, kInt8Wide{128, 256, 3};

bool runs_pytorch_int_mm(const Roofs& r) { return r.profile == "eager" || r.profile == "compiled"; }

// cuBLAS's pick among them (h200-quant2's kernel names), as a rule in M, N, K and the SM count,
// its thresholds read off the fit half of the shapes (fit_quant.py FIT_SHAPES; it names the
// profiled kernel in 53 of 54 fit cases and 48 of 54 held-out ones; the held-out misses are
// 128x256 where cuBLAS keeps 128x64 or 128x128 at 32-256 rows of the widest gate/up, within 12 %
// in time; h200-quant5's new shapes: 58 of 70, cuBLAS taking 128x256 only from 128 rows on,
// which the rule now says: 53 / 54 fit, 53 / 54 held out, 66 / 70 h200-quant5):
//  - 64x64 while its CTAs fill the SMs about once (<= 1.25 x SMs: two fit per SM);
//  - K < 4096: 128x64 (Qwen's K = 3584 never leaves it);
//  - 128x256 once its CTAs are more than 1.5 waves, and only from 128 rows on (a whole M tile:
//    in every case of h200-quant2 and h200-quant5 cuBLAS keeps 128x64 / 128x128 below 128 rows,
//    the widest gate/ups at 32-96 rows included, where this rule took 128x256 before quant6);
//  - else 128x128 for deep K (>= 8192), 128x64 below.
MmaSyncTile int8_heuristic_tile(int64_t m, int64_t n, int64_t k, int64_t batch, int sms) {
  auto ctas = [&](const MmaSyncTile& t) {
    return static_cast<double>((m + t.m - 1) / t.m * ((n + t.n - 1) / t.n) * batch);
  };
  if (ctas(kInt8Small) <= 1.25 * sms) return kInt8Small;
  if (k < 4096) return kInt8Narrow;
  if (m >= 128 && ctas(kInt8Wide) > 1.5 * sms) return kInt8Wide;
  return k >= 8192 ? kInt8Square : kInt8Narrow;
}

// torch._int_mm on a card whose sm80 mma.sync kernels the calibration measured (h200-quant2).
// Per 128-deep K step a CTA's tile costs, on its SM:
//   mma = 2 x tm x tn x 128 / (datasheet int8 / SMs)        the MMA, at the SM's full rate
//   w   = mma + (real A rows + tn) x 128 bytes / fill_rate   with the tile's fill into shared memory
// shared by the CTAs resident on the SM (shared memory: 64x64 x 6 stages 96 KB -> 2, 128x64 x 3
// 72 KB -> 3, the others 1): the busiest SM's ceil(CTAs / SMs) tiles take that many times w a
// step. Rows past M are zero-filled by the loads and cost no L2 traffic, so with CTAs contending
// few rows fill faster: 32 rows of the wide gate/up run 1.6x faster than 128 in the same 128x64
// kernel. A CTA alone on its SM is not faster with fewer rows (64x64 at 32 and 64 rows: same
// time): its step is its own chain, the whole tile written into shared memory (zero rows too)
// plus `latency` per (stages - 1) steps of loads in flight (the 3-stage 128x64 tile alone: 0.49
// us a step, the 6-stage one 0.375). Every round of resident CTAs adds a dependent pass; the
// weight stream reaches `stream_efficiency` of the read rate. Three keys (fit_quant.py on
// FIT_SHAPES); the MMA rate is the datasheet's (fitted with the fill term, the saturated 128x64
// and 128x256 kernels land within 1 % of it).
KernelTimes mma_sync_int8_cost(const Op& op, const Roofs& r) {
  const MmaSyncGemmCost& c = r.quant.int8_mma_sync;
  const int sms = r.card.sm_count;
  const double sm_rate = r.card.peak_flops(Precision::int8) / sms;
  const MmaSyncTile tile = int8_heuristic_tile(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, sms);
  const double m_tiles = std::ceil(static_cast<double>(op.gemm.m) / tile.m);
  const double ctas = m_tiles * std::ceil(static_cast<double>(op.gemm.n) / tile.n) * static_cast<double>(op.gemm.batch);
  const double tile_bytes = static_cast<double>(tile.stages * (tile.m + tile.n) * kMmaSyncK);  // int8
  const double smem = r.card.limits.shared_memory_per_sm > 0 ? r.card.limits.shared_memory_per_sm : 228.0 * 1024;
  const double resident = std::max(1.0, std::floor(smem / (tile_bytes + r.card.limits.reserved_shared_memory_per_block)));
  const double steps = std::ceil(static_cast<double>(op.gemm.k) / kMmaSyncK);
  const double real_rows = static_cast<double>(op.gemm.m) / m_tiles;
  const double mma = 2.0 * static_cast<double>(tile.m * tile.n * kMmaSyncK) / sm_rate;
  const double shared_step = mma + (real_rows + static_cast<double>(tile.n)) * kMmaSyncK / c.fill_rate;
  const double lone_step =
      mma + static_cast<double>((tile.m + tile.n) * kMmaSyncK) / c.fill_rate + c.latency_s / (tile.stages - 1);
  const double per_sm = std::ceil(ctas / sms), rounds = std::ceil(per_sm / resident);
  KernelTimes t;
  t.compute_s = std::max(per_sm * steps * shared_step, rounds * steps * lone_step) + rounds * r.pass_latency_s;
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r) / c.stream_efficiency);
  // The card-level fixed the int8 keys were fitted with (fit_quant.py, harness times): a profile's
  // kernel-only gemm block prices cuBLASLt's kernels, not CUTLASS's (validation/results/h200-gemm8).
  t.fixed_s = op.launches * r.kernel_floor_s + r.card_gemm_fixed_s;
  t.tiling = plan_tile(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, Tile{tile.m, tile.n}, sms, sm_rate * sms);
  return t;
}

// cuBLASLt's block-scaled kernel splits K (a "_splitK" kernel then cublasLt::splitKreduce) to
// give idle SMs work when the output is small and K long. Its launch grids give the counts (grid
// over the unsplit tiles: h200-quant5's 3 shapes, h200-quant6's 10), h200-quant2's times where it
// splits. The most parts s such that
//  - the parts' CTAs fill the SMs at most once: s x tiles <= SMs (Qwen2.5-32B and -14B down's 40
//    tiles at 16 rows: 3);
//  - their fp32 partials stay under 2^18 elements (1 MiB): s x rows x N < 2^18 (Llama-3.2-1B down:
//    3 at 16 and 32 rows, 2 at 48, none at 64; Qwen3-8B down: 3 at 16 rows where the SMs allow 4;
//    none at 16 x 8192 outputs: Llama-3-70B, Qwen2.5-72B down);
//  - each part walks more than 20 of the 128-deep K blocks: s < K / 2560 (K = 5120: no split,
//    whatever the output; 6144: 2; 8192: 3; 9728: 3; 11008: 4).
// Rows count in multiples of 16 (cuBLASLt's, and the engines' padding). It names every recorded
// count (h200-quant5: 70 of 70 grids, h200-quant6: 48 of 48, 18 of them split); it was set AFTER
// h200-quant6 was measured: the rule set before it (K >= 8192, parts bringing the rows to 48)
// named 35 of its 48 grids. Our reading of the three bounds (fill the SMs once, a 1 MiB
// workspace, a least depth a part) was not checked against cuBLASLt's source.
int64_t block_fp8_split(const Op& op, int sms) {
  const int64_t rows = 16 * ((op.gemm.m + 15) / 16);
  const int64_t tiles = (rows + 127) / 128 * ((op.gemm.n + 127) / 128) * std::max<int64_t>(1, op.gemm.batch);
  const double outputs = static_cast<double>(rows) * static_cast<double>(op.gemm.n);
  int64_t s = 1;
  while ((s + 1) * tiles <= sms && static_cast<double>(s + 1) * outputs < 262144.0 && op.gemm.k > 2560 * (s + 1)) ++s;
  return s;
}

// The padded-row effect of the row-scaled kernel (h200-quant, h200-quant2; docs/model.md
// "W8A8"): with fewer than 128 rows each CTA still receives the whole 128-row A tile every K step.
// Nsight Compute (h200-quant2/ncu.csv, three shapes) counts as many L2-to-SM read sectors at
// M = 16 as at M = 128 (98-100 %; the real rows alone would be 56 %), and at M = 16 the busiest
// L2 slice runs at 1.5-1.6x the mean (1.03-1.05x at M = 128; DRAM slices even in both): the
// padded rows' requests land on a few slices that every CTA visits each step. By default those
// slices serve every tile's padded steps one after another: tiles x K steps x padded share x
// `padded_row_step_s`. With `padded_step_cap_s` (quant9; the H200 default since fp8cap10) a
// CTA's K step waits on them in proportion to the CTAs walking at once (one an SM, min(tiles,
// SMs)) x padded share x `padded_row_step_s`, up to the cap, and the busiest SM walks
// ceil(tiles / SMs) CTAs one after another (branch quant9, from h200-quant and h200-quant2's
// times at 16 rows: a CTA's K step is 0.31-0.33 us at 32 CTAs (the MMA alone), 0.43 at 48, 0.51
// at 64, 0.66 at 80 and 0.65-0.71 from 128 CTAs on, 1 to 4 waves: the K sweep's N = 16384,
// 28672, 57344 and the gate/ups of Llama-3-8B, Qwen2.5-7B, Llama-3-70B; before quant9 the step
// grew with every tile and priced those 21-42 % slow; the default since fp8cap10 priced the 128-row
// stream there wave by wave, row_fp8_by_waves). Why it
// stops growing near 80 CTAs is not known (the same A-tile requests from many CTAs merging in
// L2 is a guess, not measured). It binds from about 48 CTAs on (below, the CTAs' own K loops
// are longer), which is why the slowdown is absent at 32; it is proportional to K, so it is not
// the epilogue's row-scale loads (once per tile), and the DRAM bytes are the same at M = 16 and
// 128. cuBLASLt takes rows in multiples of 16 (the padding serving engines apply), so 1-16 rows
// are 16.
double padded_row_time(const Op& op, const RowScaledFp8Cost& c, double tiles, int sms) {
  const double rows = 16.0 * std::ceil(static_cast<double>(op.gemm.m) / 16.0);
  if (c.padded_row_step_s <= 0 || rows >= 128) return 0;
  const double padded_share = (128.0 - rows) / 128.0;
  const double steps = std::ceil(static_cast<double>(op.gemm.k) / 128.0);
  // Without the cap (a calibration before fp8cap10): every tile's padded steps on the one resource.
  if (c.padded_step_cap_s <= 0) return tiles * steps * padded_share * c.padded_row_step_s;
  // With the cap the padded share is 1 - rows / 256: the per-CTA step at 64 CTAs (Llama-3-70B
  // down, K = 28672) is 0.51 / 0.49 / 0.40 us at 16 / 32 / 64 rows (0.32 at 128, the MMA): 64
  // rows cost 0.8x of 16 rows' step, not the 0.57x a share of padded rows would give.
  const double share = 1.0 - rows / 256.0;
  const double walking = std::min(tiles, static_cast<double>(sms)), waves = std::ceil(tiles / sms);
  return waves * steps * std::min(c.padded_step_cap_s, walking * share * c.padded_row_step_s);
}

// fp8cap10 (validation/results/h200-fp8cap10): `fp8_row_sm_stream` (RowScaledFp8Cost::sm_stream_bps)
// is one SM's share of the row-scaled kernel's weight stream. A CTA's loads reach at most this rate
// on their own, however idle DRAM is, so a wave of w CTAs streams its bytes in
// bytes / (read rate x stream_efficiency) + bytes / (w x this): at 128 rows, 64 CTAs (Llama-3-70B
// down) stream at 3.3 TB/s, 96-132 CTAs at 3.7-3.9 (h200-fp8cap10's probe). Fitted with four of the
// fp8_row keys on FIT_SHAPES (fit_quant.py; stream_efficiency held at 1, the copy's read rate).

// Row-scaled FP8 with the padded step capped (fp8cap10, from quant9's opt-in): the CTAs run one
// per SM (192 KB of six 128x128x128 stages), so the busiest SM walks ceil(tiles / SMs) of them one
// after another and each wave of w CTAs takes
//     prologue + max(K steps x MMA step, K steps x padded step(w), its share of the stream)
// the prologue (pipeline fill and epilogue) on every CTA, the stream (the weight columns its CTAs
// read) at the card's rate plus one SM's (fp8_row_sm_stream). h200-fp8cap10's probe at 128 rows
// shows the waves: 132 CTAs 22.7 us, 144 CTAs 33.3 us (12 CTAs in a second wave cost one CTA's own
// K loop), 224 CTAs 37.0 us (92 CTAs' stream). Past 128 rows: row_fp8_row_tiles below.
KernelTimes row_fp8_row_tiles(const Op& op, const Roofs& r, KernelTimes t, double mma, double card_stream);

KernelTimes row_fp8_by_waves(const Op& op, const Roofs& r, KernelTimes t) {
  const RowScaledFp8Cost& c = r.quant.fp8_row;
  const int sms = r.card.sm_count;
  const double tiles = static_cast<double>(t.tiling->tiles);
  const double steps = std::ceil(static_cast<double>(op.gemm.k) / 128.0);
  const double sm_rate = r.card.peak_flops(Precision::fp8) / sms * c.cta_mma_efficiency;
  const double mma = 2.0 * 128 * 128 * 128 * steps / sm_rate;
  const double card_stream = with_l2_hit(op, r, stream_memory_s(op, r) / c.stream_efficiency);
  if (op.gemm.m > 128) return row_fp8_row_tiles(op, r, t, mma, card_stream);
  double chain = 0, total = 0;
  bool stream_bound = false;
  auto wave = [&](double w, double count) {
    const double own = std::max(mma, padded_row_time(op, c, w, sms));
    const double stream = card_stream * w / tiles + op.bytes() / (tiles * c.sm_stream_bps);
    if (total == 0) stream_bound = stream > own;
    chain += count * (c.one_wave_prologue_s + own);
    total += count * (c.one_wave_prologue_s + std::max(own, stream));
  };
  const double full = std::floor(tiles / sms), rest = tiles - full * sms;
  if (full > 0) wave(sms, full);
  if (rest > 0) wave(rest, 1);
  // The sum of the waves is the time; it is reported on the side its first wave waits on.
  t.compute_s = stream_bound ? chain : total;
  t.memory_s = stream_bound ? total : card_stream;
  return t;
}

// fp8row11 (validation/results/h200-fp8row11: Nsight Compute's DRAM bytes and grids, and timed row
// sweeps over 192-1024 rows): past 128 rows the row tiles over one weight column do not re-read it
// from DRAM: every case read the weight once (o70 at 128 / 256 / 512 rows 68 / 69 / 75 MB, down70
// at 128 / 256 rows 239 / 242 MB, N = 16384 at 512 rows, four row tiles over 128 columns in four
// rounds, 69 MB; the gate/ups at 256 rows, 117-470 MB over 4-7 rounds, 1.00-1.03x). What grows
// with the row tiles is what L2 hands the SMs: every CTA pulls its A tile and its whole B column
// (2 x 128 x K bytes), so with twice the tiles over the same weight the L2-to-SM traffic doubles
// while DRAM stays (o70: 25.2 -> 29.4 us, 128 -> 256 rows; down70
// 77.4 -> 95.5 us; Nsight Compute's L2 read sectors there run at 5.6-6.5 TB/s, about the card's
// L2 copy rate). Past 132 tiles the grid is 132 CTAs (persistent), each walking its tiles one
// after another: the prologue is paid once (the next tile's fill overlaps the last's epilogue;
// o70 at 1024 rows, 4 rounds, runs 102.5 us, under 4 x (K loop + prologue)). Each round of w
// CTAs takes the longest of
//   - a CTA's K loop (the MMA chain), or the padded-row step of a partial last row tile: its
//     w / row-tiles CTAs walking plus `fp8_row_padded_full_walker` of each full tile's CTA beside them
//     (fp8row12, below), in padded_row_time's law (1 - last rows / 256, up to the cap);
//   - its share of the weight at the card's rate plus one CTA's own column (128 x K) at one
//     SM's rate (fp8_row_sm_stream: past 128 rows a CTA still pulls its whole column);
//   - w x 2 x 128 x K bytes at `fp8_row_l2_tile_rate` (RowScaledFp8Cost::l2_tile_bps).
// The rate is fitted (fit_quant.py fit_row_tiles) on FIT_SHAPES' 18 cases past 128 rows
// (h200-quant's fit half), the five fp8_row keys kept as fp8cap10 fitted them. It counts nominal
// tile bytes: 1.7x the card's L2 copy rate (Nsight Compute counts 0.50-0.73 of the nominal bytes as
// L2 read sectors; where the rest is served was not measured). It cannot bind at 128 rows or
// fewer (each CTA its own column: 2 x its column at 10.6 TB/s is under one column at the read rate).
//
// fp8row12 (validation/results/h200-fp8row12: rows 136-256 at 32, 48 and 64 columns, K = 8192 and
// 28672, grids from the profiler: one CTA a tile, 64-128 CTAs): a partial last row tile's padded
// step grows with every CTA walking, not only that tile's. From the two K at 64 columns (128 CTAs,
// (down - o) / 160 steps) it is 0.70 / 0.62 / 0.53 / 0.43 us at 16 / 32 / 64 / 96 last rows:
// 0.71-0.74 x (1 - rows / 256), that share's law at <= 128 rows, with 84 CTAs walking where 64 are
// padded; at 32 columns (64 CTAs) 16-32 last rows add 0.07-0.09 us a step over the full tiles'
// (fp8row11's law: none). A full tile's CTA counts fp8_row_padded_full_walker of a padded one: its A rows
// share the L2 slices the padded rows' requests land on (our reading; slices not measured).
// Fitted (fit_quant.py fit_padded_walkers, a grid over [0, 1]) on h200-fp8row12's N = 8192 and
// 4096 rows at K = 8192 (12 cases); its down (K = 28672) and N = 6144 (96 CTAs) held out.
KernelTimes row_fp8_row_tiles(const Op& op, const Roofs& r, KernelTimes t, double mma, double card_stream) {
  const RowScaledFp8Cost& c = r.quant.fp8_row;
  const double sms = r.card.sm_count, tiles = static_cast<double>(t.tiling->tiles);
  const double rows = 16.0 * std::ceil(static_cast<double>(op.gemm.m) / 16.0);
  const double row_tiles = std::ceil(rows / 128.0), last_rows = rows - 128.0 * (row_tiles - 1);
  const double steps = std::ceil(static_cast<double>(op.gemm.k) / 128.0);
  const double column = 128.0 * static_cast<double>(op.gemm.k);  // one CTA's fp8 B column (and A tile)
  double chain = 0, total = 0;
  bool fed = false;
  auto round = [&](double w, double count) {
    double own = mma;
    if (last_rows < 128 && c.padded_row_step_s > 0) {
      const double padded = w / row_tiles, walking = padded + c.padded_full_walker * (w - padded);
      own = std::max(own, steps * std::min(c.padded_step_cap_s, walking * (1.0 - last_rows / 256.0) * c.padded_row_step_s));
    }
    const double feed = std::max(card_stream * w / tiles + column / c.sm_stream_bps, w * 2.0 * column / c.l2_tile_bps);
    if (total == 0) fed = feed > own;
    chain += count * own;
    total += count * std::max(own, feed);
  };
  const double full = std::floor(tiles / sms), rest = tiles - full * sms;
  if (full > 0) round(sms, full);
  if (rest > 0) round(rest, 1);
  // As row_fp8_by_waves: the sum of the rounds, reported on the side its first round waits on.
  t.compute_s = fed ? chain : total;
  t.memory_s = fed ? total : card_stream;
  t.fixed_s += c.one_wave_prologue_s;
  return t;
}

// fp8mm14 (validation/results/h200-fp8mm14): cuBLASLt's tensor-wise FP8 kernels on Hopper
// ("nvjet_sm90_qqtst_<tile>_..." in h200-quant, h200-quant2, h200-production). Their tiles are
// sized to the rows and to the SMs (64x8 / 64x16 / 128x16 / 256x16 / 384x16 at 16 rows, 48x64 to
// 112x128 at 64-128, 112x128 / 144x128 / 128x160 from 1024 on), so a padded 128-row tile (the
// row-scaled kernel's) and wave quantization (the plain tile plan's) are both absent; what the
// data show instead:
//  - from 1024 rows on the MMA runs at 1350-1470 TFLOP/s whatever the shape (the calibrate
//    suite's 8192^3 fp8 cube 1435 at a power-capped 1515 MHz), above the calibration's gemm_peak
//    fp8 (1271, which prices those 8-16 % slow): `fp8_tensor_mma_efficiency` of the datasheet rate;
//  - at 16 rows the weight streams at 3.7-4.3 TB/s (K and N sweeps), at 128 rows the MMA and the
//    stream add in part (N = 28672 at 128 rows: 36 us where either alone is 21 and 30 us): the
//    two overlap as (mma^3 + stream^3)^(1/3) (kOverlapPower, chosen among 2, 3, 4 on the fit half);
//  - a fixed `fp8_tensor_prologue` (launch, pipeline fill, epilogue) under every call.
//  - cuBLASLt splits K at small outputs and long K (a "_splitK" kernel, then splitKreduce_kernel):
//    one more launch and pass (tensor_fp8_splits).
// The three keys are fitted by validation/scripts/quant/fit_fp8_tensor.py on FIT_SHAPES' tensor-wise
// cases of h200-quant; held out: its other shapes, h200-quant2's sweeps, h200-production's
// _scaled_mm and the calibrate suite's fp8 cubes. Not priced: a short K loop's own latency (N =
// 1024 at 16 / 128 rows, 32 K steps, runs 1.6 / 2.2 us over K = 1024 at N = 4096, the same bytes).
constexpr double kOverlapPower = 3.0;

// Whether cuBLASLt splits K: K > 5120 and fewer than 2^17 outputs (rows in multiples of 16),
// read off the fit half's kernel names (split: Llama-3-8B down at 16 rows, 65536 outputs; not:
// at 32 rows, 131072; Llama-3-70B down at 16 rows, 131072; no K <= 4096), the K bound moved from
// 4096 to 5120 by h200-fp8mm14's probe (Qwen2.5-14B o, K = 5120, 16 rows: not split; its
// pre-registered prices had K > 4096 and named 62 of its 63 kernels). It names all 146 kernels of
// h200-quant, h200-quant2 and h200-production (12 split) and the probe's 63 (9 split).
bool tensor_fp8_splits(const Op& op) {
  const int64_t rows = 16 * ((op.gemm.m + 15) / 16);
  return op.gemm.k > 5120 && static_cast<double>(rows) * static_cast<double>(op.gemm.n * op.gemm.batch) < 131072.0;
}

// Branch fp8tf32 (validation/results/h200-fp8tf32): one SM's operand fill on the K walk. At 64-256
// rows on small N cuBLASLt runs one wave of 86-128 CTAs with small tiles (24x64 .. 64x104, K tile
// 128, 10-16 stages), each walking all of K; every step takes (tn + tm) x 128 bytes of A and B into
// the CTA's shared memory, and those steps run at 96-120 GB/s an SM whatever the tile (64x32 113,
// 64x40 108, 48x64 105-129, 64x64 100-119, 64x104 112, 128x64 112-118 GB/s: fp8_cases.py --table):
// one SM's L2 -> shared-memory port (64 B a clock, 127 GB/s at 1980 MHz), not DRAM, not the MMA
// (h200-fp8mm14's N = 1536 at 128 / 256 rows, -30 % before; h200-heldout18's 64x40 at 200 rows,
// -29 %). cuBLASLt's tile choice is not modelled, so the bytes are the least any tile of the grid's
// output share takes a step: a square of rows x N / SMs, 2 sqrt(rows N / SMs) x K an SM. The walk
// pipelines with the MMA and the stream: a floor under their overlap. `fp8_tensor_sm_fill` (100 GB/s,
// fit_fp8_walk.py on FIT_SHAPES' half and the probe's even cases) absorbs the tiles' excess over the
// square and the partial grids (86-128 of 132 CTAs).
double tensor_fp8_walk_s(const Op& op, const Roofs& r) {
  const TensorScaledFp8Cost& c = r.quant.fp8_tensor;
  if (!(c.sm_fill_bps > 0) || r.card.sm_count <= 0) return 0.0;
  const double rows = static_cast<double>(16 * ((op.gemm.m + 15) / 16));
  const double share = rows * static_cast<double>(op.gemm.n * op.gemm.batch) / r.card.sm_count;
  return 2.0 * std::sqrt(share) * static_cast<double>(op.gemm.k) / c.sm_fill_bps;
}

KernelTimes tensor_fp8_cost(const Op& op, const Roofs& r, KernelTimes t) {
  const TensorScaledFp8Cost& c = r.quant.fp8_tensor;
  t.compute_s = op.flops / (r.card.peak_flops(Precision::fp8) * c.mma_efficiency);
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r) / c.stream_efficiency);
  double both = std::pow(std::pow(t.compute_s, kOverlapPower) + std::pow(t.memory_s, kOverlapPower), 1.0 / kOverlapPower);
  // The walk, where it binds, is the memory side (L2 into the SMs) of the kernel's time.
  const double walk = tensor_fp8_walk_s(op, r);
  if (walk > both) {
    t.memory_s = walk;
    both = walk;
  }
  t.fixed_s = op.launches * r.kernel_floor_s + c.prologue_s + both - std::max(t.compute_s, t.memory_s);
  // splitKreduce: its launch and one pass over the (few) fp32 partials.
  if (tensor_fp8_splits(op)) t.fixed_s += r.kernel_floor_s + r.pass_latency_s;
  return t;
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
  if (!force_tile && hopper && op.scaling == Scaling::tensor && op.quant_weight == DType::fp8 && r.quant.fp8_tensor.measured())
    return tensor_fp8_cost(op, r, t);
  if (!forced || !hopper || op.quant_weight != DType::fp8 || !t.tiling) return t;
  // The block-scaled kernel with its own keys: no padded-row term (h200-quant2: its time at
  // M = 16 is M = 128's), split-K at small outputs and long K (block_fp8_split) with its reduce.
  if (op.scaling == Scaling::block && r.quant.fp8_block.measured()) {
    const BlockScaledFp8Cost& b = r.quant.fp8_block;
    const int64_t split = block_fp8_split(op, r.card.sm_count);
    const double tiles = std::ceil(static_cast<double>(op.gemm.m) / row_tile.m) *
                         std::ceil(static_cast<double>(op.gemm.n) / row_tile.n) * static_cast<double>(op.gemm.batch);
    if (tiles * static_cast<double>(split) <= r.card.sm_count) {
      const double steps = std::ceil(std::ceil(static_cast<double>(op.gemm.k) / 128.0) / static_cast<double>(split));
      const double sm_rate = r.card.peak_flops(Precision::fp8) / r.card.sm_count * b.cta_mma_efficiency;
      t.compute_s = 2.0 * row_tile.m * row_tile.n * 128.0 * steps / sm_rate;
      t.fixed_s += b.one_wave_prologue_s;
    }
    t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r) / b.stream_efficiency);
    if (split > 1) {
      // splitKreduce: reads the fp32 partials, writes the output; one more launch and pass.
      const double mn = static_cast<double>(op.gemm.m * op.gemm.n * op.gemm.batch);
      t.fixed_s += r.kernel_floor_s + r.pass_latency_s + 4.0 * static_cast<double>(split) * mn / r.read_bandwidth +
                   2.0 * mn / r.write_bandwidth;
    }
    return t;
  }
  const RowScaledFp8Cost& c = r.quant.fp8_row;
  if (c.padded_step_cap_s > 0) return row_fp8_by_waves(op, r, t);
  if (t.tiling->tiles <= r.card.sm_count) {
    const double sm_rate = r.card.peak_flops(Precision::fp8) / r.card.sm_count * c.cta_mma_efficiency;
    t.compute_s = 2.0 * row_tile.m * row_tile.n * t.tiling->k_per_cta / sm_rate;
    t.fixed_s += c.one_wave_prologue_s;
  }
  t.compute_s = std::max(t.compute_s, padded_row_time(op, c, static_cast<double>(t.tiling->tiles), r.card.sm_count));
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r) / c.stream_efficiency);
  return t;
}

}  // namespace perfmodel
