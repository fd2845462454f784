#pragma once
// CTA tiles and wave quantization of a GEMM (seed 001 slides 39 and 44; NVIDIA "Matrix
// Multiplication Background" guide): the output is cut into tm x tn tiles, each tile runs on one
// SM, and tiles run in waves of (SMs x CTAs per SM). A partial last wave leaves SMs idle.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

struct Tile {
  int64_t m = 0, n = 0;
  std::string name() const { return std::to_string(m) + "x" + std::to_string(n); }
};

struct TilePlan {
  Tile tile;
  int64_t tiles = 0;         // ceil(M/tm) x ceil(N/tn) x batch
  int64_t ctas_per_sm = 1;   // resident tiles per SM
  int64_t waves = 0;         // ceil(tiles / (SMs x ctas_per_sm))
  double wave_efficiency = 0;  // tiles / (ceil(tiles / SMs) x SMs): busy share of the SMs
  int64_t split_k = 1;       // K split into this many slices (skinny GEMMs)
  double tile_efficiency = 1;  // MMA efficiency of the tile shape (operand reuse; see .cpp)
  double compute_time_s = 0;   // the busiest SM's tiles at its share of the peak
  bool stream_k = false;       // the last partial wave split along K over all SMs
  double k_per_cta = 0;        // the K depth one CTA walks: K / split_k, or a stream-K share
  double cta_walk_s = 0;       // the busiest SM's K loops at one CTA's pipeline pace (PlanCosts)
  // A split grid of cuBLASLt's 4-CTA clusters (cublaslt_split_grid: at most 112 of 132 SMs), not its
  // 2-CTA grid over every SM; set by cheapest_plan where a profile gives the split rule.
  bool cluster_split = false;
};

// The largest tile side a plan accepts: far above any CTA tile (256), small enough that tile
// products stay exact (issue 14: 2^32 x 2^32 overflowed to 0 and divided by it).
inline constexpr int64_t kMaxTileSide = 1 << 16;

// Parses "256x128" (both sides 1 .. kMaxTileSide, nothing after them); nullopt when malformed.
std::optional<Tile> parse_tile(const std::string& text);

// The tiles cuBLAS-class kernels pick among on tensor-core GPUs.
const std::vector<Tile>& default_tiles();

// Plan one tile: tiles, waves, wave efficiency and the compute time at `peak_flops`.
TilePlan plan_tile(int64_t m, int64_t n, int64_t k, int64_t batch, Tile tile, int sm_count,
                   double peak_flops, int64_t split_k = 1);

// The fastest plan among the default tiles (ties go to the larger tile), allowing split-K when
// the output has fewer tiles than SMs.
TilePlan best_tile(int64_t m, int64_t n, int64_t k, int64_t batch, int sm_count,
                   double peak_flops);

// Stream-K hybrid (CUTLASS / cuBLAS on Hopper and later): full waves run tile by tile, the
// tiles of the partial last wave are split along K over all SMs, and each split tile pays a
// fix-up (partial sums through L2). Returns `plan` unchanged when that is not faster.
// `fixup_s`: time to write and read back one fp32 partial tile at an SM's L2 port.
TilePlan with_stream_k(const TilePlan& plan, int64_t k, int sm_count, double peak_flops, double fixup_s);

// The fastest plan a library may run: the best tile with split-K, or, when `fixup_rate` > 0
// (bytes/s one SM writes and reads back partial sums at: stream-K capable), any default tile
// with its partial last wave streamed along K (a tile the split-K search passes over can win
// once its idle SMs take a share of K: 200 x 4608 x 3584 on 132 SMs runs 72 128x128 tiles).
// The plan by compute time alone (no fixed costs weighed): the calibration fit's
// (fit_gemm_plan, price.hpp says why it is not the priced one); price() runs cheapest_plan.
TilePlan best_plan(int64_t m, int64_t n, int64_t k, int64_t batch, int sm_count, double peak_flops,
                   double fixup_rate);

// What a GEMM's price adds to a plan's compute time (gemm_cost.cpp): a plan is priced
// fixed_of(plan) + max(plan compute, memory), the cost the model then reports.
struct PlanCosts {
  double fixed_s = 0;       // every plan: launch floor, prologue and epilogue
  double per_1024_k_s = 0;  // per 1024 of K one CTA walks (its K loop's pipeline latency)
  double split_k_s = 0;     // a split-K plan's reduction kernel (its floor, where the next is priced)
  // ... plus this per split: the reduction reads each split's fp32 partials (M x N x 4 B) at the
  // card's read rate (cuBLASLt's splitKreduce, validation/results/h200-block11: 1.6 us + partials)
  double split_k_per_split_s = 0;
  // > 0 (branch gemmtile, opt-in key split_partials): the split GEMM kernel itself writes those partials, M x N x
  // 4 B a split, after its K loop: every CTA of a split grid ends its slice at once, so the writes are a tail, not
  // under the loop. This many bytes a split, at l2_write_rate while the partials fit l2_capacity (the reduce reads
  // them next), the rest at dram_write_rate. split_partials_write_of prices it; fixed_of adds it to split plans.
  double split_partial_bytes = 0;
  double l2_write_rate = 0, l2_capacity = 0, dram_write_rate = 0;
  double split_partials_write_of(const TilePlan& p) const;
  // > 0: cuBLASLt's split-K rule (gemm_tiling.cpp): a tile is split only min(SMs / its grid, K / this)
  // ways, when that is 2 or more; 0: every power of two up to min(K / 256, SMs).
  int64_t split_k_min_slice = 0;
  double memory_s = 0;      // the operand stream, the same for every plan
  // One CTA's K loop, per 1024 of K (0: not priced). A CTA keeps a fixed number of pipeline
  // stages of loads in flight, so by Little's law each K step waits (DRAM latency / stages),
  // whatever the tile's width: a grid of few CTAs cannot reach the card's read rate
  // (h200-gemm-small: 8 CTAs of a 512 x 2048 weight take 6 us, 2 of a 128 x 896 one 4 us).
  // Priced per plan, it is what tells cuBLASLt's unsplit small grids from split-K.
  double cta_walk_per_1024_k_s = 0;
  // The share of that pace (a 128x128 tile's) every tile pays whatever its width, the rest
  // scaling with the operand rows it loads per K step, tm + tn (the SM's load port: a 64x8 tile
  // walks K at about a third of a 128x128 tile's time, h200-gemm-chain's TinyLlama projections).
  // Below 0: not priced (the walk is the same for every tile and no skinny tile is offered).
  double cta_walk_latency_share = -1;
  // >= 0: the compute time every plan is priced at, whatever its tiles. A GEMV-shaped product (a few
  // rows) runs as dot products, not padded MMA tiles (gemm_cost); where no CTA walk is priced, choosing
  // its plan by the padded tiles' time and then pricing flops / peak made the time fall where the
  // choice left a split (SmolLM2-360M's o at 6 -> 7 rows on the L4, tests/test_properties.cpp).
  double gemv_compute_s = -1;
  // nvjet's one-wave tiles (nvjet_fill_tiles) offered where the walk is priced per tile (branch nvjettile;
  // a profile's gemm block opts in with nvjet_fill_tiles: 1).
  bool nvjet_fill_tiles = false;
  // Opt-in (branch gemmtile2, key nvjet_wave_tiles; validation/results/h200-gemmtile): where the block gives cuBLASLt's
  // split rule, its nvjet grids of whole waves. cuBLASLt sizes a tile's step-8 side for grids of 1 to 5 waves (the
  // sweep's kernel names: 128x144 at 640 x 7168 and 640 x 11008, 250 and 385 CTAs; 128x168 at 384-1024 rows, 258-528;
  // 128x176 at 896-1024 x 14336-16384, 656-658) and runs them tile by tile, no stream-K (priced at cuBLASLt's own tile,
  // whole waves, the sweep's 1-2-wave grids at full clock are 1.1 / 3.8 % against the hybrid's 4.2 / 10.1 %). So:
  // nvjet_fill_tiles for 1 .. kNvjetWaveTilesMaxWaves waves, no streamed hybrid, and kNvjetFillPaceCap on one-wave
  // grids only (where it was fitted).
  bool nvjet_wave_tiles = false;
  // > 0: each tile an SM runs after its first refills the K loop's stage ring from empty, one memory
  // latency not hidden behind the MMA (tile_refill_of; branch smallk). nvjet's stages fill the shared
  // memory (`_64x4` on 256x152: 4 x 52 KB, `_64x6` on 128x152: 6 x 36 KB), so the C tile's epilogue
  // staging takes the ring and the next tile's loads start after it. The first tile's fill is in fixed_s.
  double tile_refill_s = 0;
  int sm_count = 0;  // the SMs the tiles are spread over, for tile_refill_of
  double tile_refill_of(const TilePlan& p) const;
  // > 0: the output's write at the stream's rate (its share of memory_s). With epilogue_tail, the last
  // wave's C tiles are written after their mainloop, not under it (epilogue_tail_of; branch shortk):
  // a one-wave grid at short K writes all of C after its MMAs (h200-shortk).
  double write_s = 0;
  bool epilogue_tail = false;
  double epilogue_tail_of(const TilePlan& p) const;
  // The busiest SM's tiles one after another, each walking its K at its tile's pace.
  double cta_walk_of(const TilePlan& p, int sm_count) const;
  double fixed_of(const TilePlan& p) const;
  // The operand stream of a plan: memory_s, a fixed tail longer on cuBLASLt's 4-CTA cluster split grids.
  double stream_of(const TilePlan& p) const;
  // The price plans are chosen by (the cluster tail left out: cuBLASLt's heuristic does not see it) and
  // the time of the plan chosen (gemm_cost: its stream with the tail).
  double priced_s(const TilePlan& p) const;
  double time_of(const TilePlan& p) const;
  double compute_of(const TilePlan& p) const;  // the plan's compute, or gemv_compute_s where set
};

// The plan a library that picks by predicted time runs (cuBLASLt's heuristics rank candidates by
// their estimated time; issue 14: a choice by compute time alone made prefill steps faster as the
// batch grew). Candidates: every default tile with every power-of-two split-K up to
// min(K / 256, SMs), and, when `fixup_rate` > 0 (cuBLAS on Hopper), every tile's stream-K hybrid
// (a partial last wave streamed behind at least one full wave), an unsplit grid that leaves SMs
// idle being split instead unless `costs` prices one CTA's K loop (gemm_tiling.cpp says why). The least priced_s wins (ties: the earlier
// candidate: larger tiles, fewer splits). Each candidate's price is non-decreasing in M, so the
// least of them is too, except where that one rule adds the unsplit grid as M grows.
// Where `costs` prices the walk per tile (cta_walk_latency_share), cuBLASLt's skinny tiles are
// candidates too: 8, 16 or 32 token rows by 64 or 128 weight rows (its nvjet_*_64x8, 128x8,
// 64x16, 128x32 kernels of h200-gemm-chain and h200-gemm-small at M <= 64).
TilePlan cheapest_plan(int64_t m, int64_t n, int64_t k, int64_t batch, int sm_count, double peak_flops,
                       double fixup_rate, const PlanCosts& costs);
const std::vector<Tile>& skinny_tiles();

// nvjet's one-wave tiles (branch nvjettile): one side in whole warpgroups of 64 rows (64 .. 256), the other
// the narrowest multiple of 8 up to 256 whose grid (token tiles x weight tiles x batch) fits `sm_count`
// CTAs, either way round (nvjet's `_TNT` and `_TNN` kernels). cheapest_plan offers them where the block
// prices one CTA's K walk, past kNvjetFillMinRows tokens. Tokens x weight rows, as Tile is.
inline constexpr int64_t kNvjetFillStep = 8;
inline constexpr int64_t kNvjetWarpgroupRows = 64;
inline constexpr int64_t kNvjetFillMaxSide = 256;
inline constexpr int64_t kNvjetFillMinRows = 128;
// Their MMA pace at most this share of the peak where a side is in steps of 8 (not whole warpgroups): the
// knee's law (1.0 past reuse 57) priced them 7-13 % fast (h200-gemm-small's Mistral q|k|v at 256 on 96x128
// -9.4 %). Fitted: least rms log error of the fused and eager GEMMs on the fit side (h200-production and
// h200-gemm-small even cases, h200-gemm-chain's Llama-3-8B and Qwen2.5-7B) over 0.80-1.0: fused 6.38 %
// at 1.0, 6.28 % at 0.88 (flat within 0.02 % from 0.85 to 0.92); validation/results/h200-nvjettile.
inline constexpr double kNvjetFillPaceCap = 0.88;
std::vector<Tile> nvjet_fill_tiles(int64_t m, int64_t n, int64_t batch, int sm_count);
// The most waves a grid of nvjet_fill_tiles is sized for under PlanCosts::nvjet_wave_tiles: the sweep's step-8 grids
// fill 1 to 5 waves (656-658 CTAs of 128x176 at 896-1024 rows); 3 to 8 give the same plans on the sweep's fit half.
inline constexpr int kNvjetWaveTilesMaxWaves = 5;

// nvjet's pipeline depth (branch gemmtile; read off the kernel names, nothing fitted): a kernel `..._{a}x{b}_{kt}x{S}_...`
// keeps S stages of kt-deep K tiles, each stage the two operand tiles' rows (a + b) x 128 B (kt 64 of bf16 / fp16,
// 128 of fp8), and S is as many as fit sm90's 227 KiB of shared memory a block less 16 KiB (the epilogue's), at most 16:
// all 189 nvjet tile shapes of the committed sets (105 bf16 `tst`, 37 fp16 `hsh`, 47 fp8 `qqtst`) follow it, e.g.
// 256x152 -> 4 (`_64x4`), 128x200 -> 5, 320x128 -> 3, 512x80 -> 2 (h200-heldout21's Mistral-Large gate|up at 700 rows),
// 128x8 -> 12, 64x40 -> 16. Tokens and weight rows alike (only their sum counts).
inline constexpr int64_t kNvjetSmemBytes = 232448;          // 227 KiB: an sm90 block's shared memory at most
inline constexpr int64_t kNvjetEpilogueSmemBytes = 16384;   // what the stages leave (the C tile's staging)
inline constexpr int64_t kNvjetStageRowBytes = 128;         // one operand row of one stage: 64 x 2 B or 128 x 1 B
inline constexpr int64_t kNvjetMaxStages = 16;
int64_t nvjet_stages(const Tile& t);

// Largest power-of-two square tile t with three t x t tiles (A, B and the accumulator C) in
// `smem_bytes` (seed 000 practice: 128 for bf16 in 100 KB).
int64_t max_square_tile(double smem_bytes, double bytes_per_element);
// Elements a tiled n x n matmul loads from slow memory with tile t: (n/t)^2 tiles x (n/t) steps
// x 2t^2 = 2n^3/t (seed 000 practice, seed 001 slide 38).
double tiled_matmul_loads(int64_t n, int64_t t);
// Elements the naive matmul loads: each of n^2 outputs reads a row and a column, 2n^3.
double naive_matmul_loads(int64_t n);

}  // namespace perfmodel
