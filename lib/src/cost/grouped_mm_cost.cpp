// torch._grouped_mm as PyTorch eager runs it (transformers 5's grouped_mm experts): CUTLASS's sm90
// grouped GEMM (GemmUniversal over a GroupProblemShape, cluster 2 x 1) after
// prepare_grouped_gemm_data. PyTorch's GroupMM.cu (dispatch_bf16_grouped_kernel_on_tile_size)
// picks the kernel from the MEAN rows over ALL the weight's experts (the routed rows / E, not
// over the touched ones) and N: M <= 128 or N <= 128 runs KernelPtrArrayTmaWarpSpecializedPingpong
// with 64 x 128 tiles, anything larger KernelPtrArrayTmaWarpSpecializedCooperative with 128 x 256
// (h200-moe5: the kernel names at T = 128-4096 for three models follow this rule exactly). The
// 2 x 1 cluster's two CTAs take adjacent M tiles of one expert, so an expert with more than one
// M tile occupies an even number (a third tile brings its idle partner: DeepSeek-V2-Lite's 192
// rows on the pingpong kernel cost four 64-row tiles, h200-moe5 forced_pingpong). The MMA term
// runs at a kernel's own share of the GEMM peak: the pingpong kernel's two consumer warpgroups
// alternate on 64-row tiles (0.65 of the peak compute-bound, Mixtral's 512 rows per expert
// forced onto it), the cooperative kernel's split one 128-row tile (0.97). Tiles follow each
// expert's rows, which a router makes binomial, not balanced (expected_row_tiles).
// The kernel is persistent: at most one CTA per SM walks the tiles of
// every expert one after another, its producer warp running ahead across tiles, so a tile's
// pipeline fill overlaps the previous tile's K-loop and is paid once per CTA (in the floor: a
// per-tile fill fitted to 0 on the kernel cases, h200-moe-fused/README.md).
// A streaming tile takes two terms, summed (a CTA keeps a fixed number of bytes in flight, so
// its stream is latency-bound alone and slows as the card's DRAM queue fills):
//   - its own K-loop: the weight slab it fetches at one CTA's unloaded rate (Little's law: stages
//     in flight / DRAM latency). With two or more 64-row tiles per expert, the 2 x 1 cluster's
//     CTAs take adjacent row tiles of one column tile and each fetches half the slab (TMA
//     multicast);
//   - the card's stream: the wave's bytes (its CTAs' tiles) at the kernel's DRAM rate.
// Or its MMA work at the SM's share of the GEMM peak. Waves of 132 SMs follow the tiles per
// expert; few CTAs (decode's few touched experts) leave the per-CTA term alone: Mixtral's T = 1
// down projection walks K = 14336 on 64 CTAs at ~45 GB/s each, Qwen3's full card at ~23.
// Full pairs (h200-moe6): CUTLASS's group scheduler rounds an expert's M tiles up to the cluster
// (sm90_tile_scheduler_group.hpp: problem_blocks_m = round_up(ctas_along_m, 2)), so 1-64 rows run
// the same CTA pairs as 128, the partner's A rows out of bounds. At the same DRAM bytes (Nsight
// Compute: 1.88-1.90 GB at 8, 64 and 128 rows on Mixtral's gate_up) pairs whose rows fill them
// keep DRAM 78-81 % busy, pairs with 64 rows or fewer 57-63 %: 128 rows run 1.28x faster than 8
// at Mixtral's shapes, 96 nearly as fast, 65 as slow as 64. The pingpong kernel's tiles in full
// pairs therefore stream the op's bytes at `grouped_mm_full_pair_stream` with no per-CTA term.
//
// Branch moe9 (validation/scripts/moe/fit_grouped_mm9.py --table): counted per CTA tile of the
// cluster's pairs, every pair costs its K-loop whether its rows fill it or not: the 101 pingpong
// cases with rows set per expert and 2+ CTA tiles an SM (h200-moe-fused, h200-moe5/6/7) run 0.255-
// 0.384 us per 64-deep K step of a CTA tile, the idle partner of a 1-64-row expert counted (its
// A rows zero-filled by TMA, its MMAs run, only its stores dropped). For a one-pair expert the two terms above already price that: two CTAs
// fetching half the slab each cost what one tile fetching it all does. What the model lacked
// is an expert's pairs past the first: a partial last pair re-reads the weight slab at the card's
// stream (h200-moe7: 160 rows cost 1.79x (Qwen3) / 2.34x (Mixtral) the 128-row time, the partial
// pair as slow inside a two-pair expert as alone), while full further pairs cost their MMAs (h200-
// moe5's forced-pingpong experts of 2-16 full pairs run at the MMA share). So, per expert of r
// rows, P = ceil(r / 128) pairs: its first pass of the weight streams as a full pair in the first
// pair's full share (the ramp above; 1 when P >= 2), else at the two terms, and a partial last
// pair past the first adds the weight's bytes at `grouped_mm_stream` in its partial share. A
// router's rows take these over the binomial (branch moe6 credited exact rows only), so its one-
// pair experts earn their full-pair stream and its two-pair ones pay their partial pair: h200-
// moe7's mixtures run at their experts' average. No key refitted.
// Branch moe14 (h200-moe14, validation/scripts/moe/fit_grouped_mm14.py): the per-CTA term of a
// partial pair follows how many CTAs work one expert at once (our reading, not measured: the stage
// waits on A's L2 lines that those CTAs load in the same K-iteration). The persistent clusters walk
// the tiles expert-major, sm_count / 2 of them at once, so the c clusters of a wave on one expert
// read its A rows in the same K-iteration. Holding B's address set (1.88 GB at K 4096, cut 8 x 28672
// .. 128 x 1792) the one-pair r8 / r128 falls 1.28 -> 1.13 -> 1.06 -> 1.02 as c goes 66 -> 64 -> 28
// -> 14; Qwen3's 12 clusters an expert run as fast as its full pairs, Mixtral's 66 do not. So a CTA's
// first tile pays the whole per-CTA term (its pipeline fills from empty) and each later tile the
// share c_eff / W of it: c_eff the mean over clusters of the clusters of the same expert in the same
// wave, W the clusters a wave. Counted, not fitted. Opt-in (`grouped_mm_wave_sharing`, a share;
// validation/results/h200-moe14/moe14.calibration.yaml sets 1): it under-prices decode ops of 1-4
// rows an expert (Qwen3 / DeepSeek-V2-Lite T = 8, -16 to -19 %), so the MoE decode-step guards
// move out with it (h200-moe14/README.md).
// Branch moe15 (validation/scripts/moe/fit_grouped_mm15.py): with that law, short-K ops went under
// (Qwen3 down, K 768: -5 to -17 %, full pairs too). Each CTA tile ends in an epilogue (its stores)
// and a scheduler step to its next tile (a new group's TMA descriptors); the producer prefetches the
// next tile's stages meanwhile, which hides the switch in proportion to the K loop. So with the
// opt-in key `grouped_mm_tile_switch` (t, fitted: 0.38 us on the even half of the 206 non-fit cases
// sorted by run / name, the odd half held out; fit_grouped_mm15.py), each CTA tile a CTA walks (an
// expert's M tiles rounded up to the 2 x 1 cluster) adds t x 768 / K. Our reading, not profiled.
// validation/results/h200-moe15/moe15.calibration.yaml sets it with grouped_mm_wave_sharing 1.
// Branch moedef: the switch is serial to the larger of the memory and MMA terms, not inside the
// memory term. moe15's form left the compute-bound forced-pingpong cases of h200-moe5 (full pairs
// at the MMA share) short in proportion to 1 / K (Qwen3 down K 768 -17 %, DeepSeek-V2-Lite down
// K 1408 -5 %, Qwen3 gate_up K 2048 -4 %; Mixtral's K 4096 / 14336 fit the share): a short K loop
// does not hide the switch behind the other consumer's MMAs either (our reading, not profiled).
// Refitted in this form as moe15 fitted it (even half of the 206 non-fit cases): 0.29 us. Both keys
// are in hardware/h200.calibration.yaml since this branch: the decode-step guards moe14 and moe15
// failed pass once eager torch.topk is priced (moe_topk.cpp), the kernels the old over-price hid.
#include <algorithm>
#include <cmath>

#include "kernel_costs.hpp"

namespace perfmodel {

namespace {

// An expert's M tiles for r rows: ceil(r / tile_m), past one tile an even number (cluster pairs).
double pair_tiles(int64_t r, int64_t tile_m) {
  const int64_t t = (r + tile_m - 1) / tile_m;
  return static_cast<double>(t > 1 ? t + t % 2 : t);
}

// The mean of f(r) over a touched expert's rows when a uniform router sends each of T tokens to it
// with probability k / E: its rows are Binomial(T, k / E), conditioned on at least one. A step's
// rows straddle the tile boundaries (h200-moe5: a random router's 469-546 rows per Mixtral
// expert cost 1.29x the balanced 512, its third 256-row pair on half the experts); at decode
// (a few rows, one tile) this is f(a few rows). Sums the pmf within 12 standard deviations of the
// mean. Without a router (or p = 1) it is f(rows).
template <class F>
double over_router_rows(int64_t tokens, int64_t top_k, int64_t experts, int64_t rows, F f) {
  const double T = static_cast<double>(tokens);
  const double p = static_cast<double>(top_k) / static_cast<double>(experts);
  if (tokens < 1 || top_k < 1 || experts < 1 || !(p < 1)) return f(rows);
  const double mean = T * p, sd = std::sqrt(T * p * (1 - p));
  const int64_t lo = std::max<int64_t>(1, static_cast<int64_t>(std::floor(mean - 12 * sd)));
  const int64_t hi = std::min<int64_t>(tokens, static_cast<int64_t>(std::ceil(mean + 12 * sd)));
  // At most ~4096 evaluations (a huge prefill's wide spread is sampled at an even stride).
  const int64_t stride = std::max<int64_t>(1, (hi - lo) / 4096);
  const double log_t = std::lgamma(T + 1), log_p = std::log(p), log_q = std::log1p(-p);
  double mass = 0, sum = 0;
  for (int64_t r = lo; r <= hi; r += stride) {
    const double x = static_cast<double>(r);
    const double w = std::exp(log_t - std::lgamma(x + 1) - std::lgamma(T - x + 1) + x * log_p + (T - x) * log_q);
    mass += w;
    sum += w * f(r);
  }
  return mass > 0 ? sum / mass : f(rows);
}

// One expert's cluster pairs on the pingpong kernel (2 x 64 rows each), for r rows: how many, the
// share of its first pair that streams as a full pair, and how much of its last pair is a partial
// pair beyond the first. A pair counts in full from 3/4 of its rows real, not below 1/2, linearly
// between (h200-moe6's rows sweep: 96 rows stream within 6 % of 128, 65 within 4 % of 64).
struct Pairs {
  double pairs = 1, first_full = 0, further_partial = 0;
};
Pairs expert_pairs(int64_t r) {
  const int64_t pairs = std::max<int64_t>(1, (r + 127) / 128);
  const double fill = static_cast<double>(r - 128 * (pairs - 1)) / 128.0;
  const double full = std::clamp((fill - 0.5) / 0.25, 0.0, 1.0);  // the last pair's full share
  if (pairs == 1) return {1, full, 0};
  return {static_cast<double>(pairs), 1, 1 - full};
}

// The op's experts' mean pairs (their rows exact, or a router's binomial).
Pairs pair_mix(const Op& op) {
  auto mean = [&op](auto field) {
    return over_router_rows(op.moe.tokens, op.moe.top_k, op.moe.experts, op.gemm.m,
                            [field](int64_t r) { return field(expert_pairs(r)); });
  };
  return {mean([](const Pairs& p) { return p.pairs; }), mean([](const Pairs& p) { return p.first_full; }),
          mean([](const Pairs& p) { return p.further_partial; })};
}

// c_eff / W (branch moe14): `experts` experts of `each` clusters laid out expert-major in waves of
// `per_wave` clusters; c_eff = sum over each wave's expert parts of part^2 / all clusters.
double wave_sharing(int64_t experts, double each, int64_t per_wave) {
  const int64_t m = std::max<int64_t>(1, std::llround(each));
  const int64_t total = std::max<int64_t>(1, experts) * m;
  const int64_t w = std::max<int64_t>(1, std::min(per_wave, total));
  double acc = 0;
  for (int64_t e = 0; e < std::max<int64_t>(1, experts); ++e) {
    const int64_t a = e * m, b = a + m;
    for (int64_t wave = a / w; wave * w < b; ++wave) {
      const double p = static_cast<double>(std::min(b, (wave + 1) * w) - std::max(a, wave * w));
      acc += p * p;
    }
  }
  return std::min(1.0, acc / static_cast<double>(total) / static_cast<double>(w));
}

// The tile switch's key (`grouped_mm_tile_switch`) is its time at this K (branch moe15).
constexpr double kTileSwitchK = 768;

// CTA tiles each CTA walks: the experts' M tiles, a cluster pair at least (CUTLASS rounds an
// expert's M tiles up to the 2 x 1 cluster), times the column tiles, over the CTAs.
double cta_tiles_per_cta(const Op& op, int64_t tile_m, int64_t tile_n, int64_t sm_count) {
  const double row_tiles = over_router_rows(op.moe.tokens, op.moe.top_k, op.moe.experts, op.gemm.m,
                                            [tile_m](int64_t r) { return std::max(2.0, pair_tiles(r, tile_m)); });
  const double tiles = static_cast<double>(op.gemm.batch) * row_tiles *
                       static_cast<double>((op.gemm.n + tile_n - 1) / tile_n);
  return tiles / std::min(tiles, static_cast<double>(sm_count));
}

}  // namespace

GroupedMmTiles grouped_mm_tiles(const Op& op, int64_t sm_count) {
  GroupedMmTiles t;
  const int64_t rows = op.gemm.m;  // rows per touched expert (grouped_gemm.cpp)
  // GroupMM.cu's M: the routed rows over every expert of the weight (op.moe), else per group.
  const double mean_rows = op.moe.experts > 0 ? static_cast<double>(op.moe.tokens) * static_cast<double>(op.moe.top_k) /
                                                    static_cast<double>(op.moe.experts)
                                              : static_cast<double>(rows);
  t.cooperative = mean_rows > 128 && op.gemm.n > 128;
  t.tile_m = t.cooperative ? 128 : 64;
  t.tile_n = t.cooperative ? 256 : 128;
  t.row_tiles = over_router_rows(op.moe.tokens, op.moe.top_k, op.moe.experts, rows,
                                 [&t](int64_t r) { return pair_tiles(r, t.tile_m); });
  t.rows_per_tile = std::min(rows, t.tile_m);
  if (!t.cooperative) t.full_pair_share = pair_mix(op).first_full;
  t.tiles = static_cast<int64_t>(std::ceil(static_cast<double>(op.gemm.batch) * t.row_tiles - 1e-9)) *
            ((op.gemm.n + t.tile_n - 1) / t.tile_n);
  t.ctas = std::max<int64_t>(1, std::min(t.tiles, sm_count));
  t.waves = (t.tiles + t.ctas - 1) / t.ctas;
  t.cols_per_tile = std::min(op.gemm.n, t.tile_n);
  return t;
}

namespace {

// The pingpong kernel's weight passes (branch moe9; the header comment): the first pass of each
// expert's weight streams as a full pair in its first pair's full share (at the full-pair
// stream), the rest at the two terms; a partial last pair past the first re-reads the weight
// slab at the card's stream. Full further pairs cost their MMAs (the compute term).
double pingpong_memory_s(const Op& op, const AtenKernels& a, double two_terms, double first_full) {
  const double further_partial = pair_mix(op).further_partial;
  // The weight's share of the op's bytes (torch._grouped_mm is bf16 throughout: one element size).
  const double n = static_cast<double>(op.gemm.n), k = static_cast<double>(op.gemm.k),
               m = static_cast<double>(op.gemm.m);
  const double weight_share = n * k / (n * k + m * (k + n));
  const double full = a.grouped_mm_full_pair_stream > 0 ? a.grouped_mm_full_pair_stream : a.grouped_mm_stream;
  return (1 - first_full) * two_terms + first_full * op.bytes() / full +
         op.bytes() * weight_share * further_partial / a.grouped_mm_stream;
}

}  // namespace

KernelTimes grouped_gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  // The fused profile's engine runs vLLM's fused_moe kernel (fused_moe_cost.cpp).
  if (r.fused_moe.measured() && !force_tile && op.gemm.batch >= 1 && op.gemm.m >= 1) return fused_moe_gemm_cost(op, r);
  const AtenKernels& a = r.aten;
  if (!a.grouped_mm_measured() || force_tile || op.gemm.batch < 1 || op.gemm.m < 1) return gemm_cost(op, r, force_tile);
  const GroupedMmTiles g = grouped_mm_tiles(op, r.card.sm_count);
  const double tile_flops = 2.0 * static_cast<double>(g.rows_per_tile) * static_cast<double>(g.cols_per_tile) *
                            static_cast<double>(op.gemm.k);
  const double share = g.cooperative ? a.grouped_mm_cooperative_mma_share : a.grouped_mm_pingpong_mma_share;
  const double sm_peak = effective_peak(r, op.precision) * share / r.card.sm_count;
  const double waves = static_cast<double>(g.waves);
  KernelTimes t;
  t.fixed_s = a.grouped_mm_floor_s;
  t.fixed_parts = {{"grouped GEMM floor (prepare_grouped_gemm_data and the persistent kernel's fill)", t.fixed_s, "aten"}};
  // What one tile streams from DRAM: the op's bytes over its tiles (an expert's weight slab is
  // read once; its further row tiles hit it in L2 or share it by multicast).
  const double tile_bytes = op.bytes() / static_cast<double>(g.tiles);
  const double row_tiles = std::max(1.0, g.row_tiles);  // per touched expert
  const double fetched = tile_bytes * row_tiles / std::min(2.0, row_tiles);
  // The per-CTA term's waves: all of them (moe9), or on the pingpong kernel, in the opt-in share
  // `grouped_mm_wave_sharing`, the first and c_eff / W of each later one (branch moe14; only a
  // partial pair's share of the two terms uses it).
  double cta_waves = waves;
  if (!g.cooperative && a.grouped_mm_wave_sharing > 0) {
    const double each = static_cast<double>((op.gemm.n + g.tile_n - 1) / g.tile_n) * std::max(1.0, g.row_tiles / 2);
    const double shared = 1 + (waves - 1) * wave_sharing(op.gemm.batch, each, r.card.sm_count / 2);
    cta_waves += a.grouped_mm_wave_sharing * (shared - waves);
  }
  t.memory_s = waves * (fetched / a.grouped_mm_cta_rate * (cta_waves / waves) +
                        tile_bytes * static_cast<double>(g.ctas) / a.grouped_mm_stream);
  if (!g.cooperative) t.memory_s = pingpong_memory_s(op, a, t.memory_s, g.full_pair_share);
  t.compute_s = waves * tile_flops / sm_peak;
  if (!g.cooperative && a.grouped_mm_tile_switch_s > 0) {  // the unhidden tile switch (branches moe15, moedef)
    const double tile_switch = a.grouped_mm_tile_switch_s * kTileSwitchK / static_cast<double>(op.gemm.k) *
                               cta_tiles_per_cta(op, g.tile_m, g.tile_n, r.card.sm_count);
    t.fixed_s += tile_switch;
    t.fixed_parts.push_back({"tile switches a CTA walks (epilogue, next group's descriptors), 768 / K of the key each", tile_switch, "aten"});
  }
  TilePlan plan;  // what `perfmodel ops` reports: the kernel's tiles and their waves
  plan.tile = {g.tile_m, g.tile_n};
  plan.tiles = g.tiles;
  plan.waves = g.waves;
  plan.wave_efficiency = static_cast<double>(g.tiles) / (waves * static_cast<double>(r.card.sm_count));
  plan.compute_time_s = t.compute_s;
  plan.k_per_cta = static_cast<double>(op.gemm.k);
  t.tiling = plan;
  return t;
}

}  // namespace perfmodel
