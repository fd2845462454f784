#include "perfmodel/gemm_tiling.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "perfmodel/checked.hpp"
#include "perfmodel/cublaslt_split.hpp"
#include "perfmodel/errors.hpp"

namespace perfmodel {

namespace {
// Without a + b - 1, which overflows for sizes near 2^63.
int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }
}  // namespace

std::optional<Tile> parse_tile(const std::string& text) {
  const char* p = text.data();
  const char* end = p + text.size();
  Tile t;
  auto side = [&](int64_t& v) {
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || next == p || v < 1 || v > kMaxTileSide) return false;
    p = next;
    return true;
  };
  if (!side(t.m) || p == end || *p != 'x') return std::nullopt;
  ++p;
  if (!side(t.n) || p != end) return std::nullopt;
  return t;
}

const std::vector<Tile>& default_tiles() {
  static const std::vector<Tile> tiles{{256, 128}, {128, 256}, {128, 128}, {128, 64},
                                       {64, 128},  {64, 64}};
  return tiles;
}

TilePlan plan_tile(int64_t m, int64_t n, int64_t k, int64_t batch, Tile tile, int sm_count,
                   double peak_flops, int64_t split_k) {
  if (tile.m < 1 || tile.n < 1 || tile.m > kMaxTileSide || tile.n > kMaxTileSide)
    throw InputError("tile " + tile.name() + ": each side must be 1.." + std::to_string(kMaxTileSide));
  if (sm_count < 1) throw InputError("a tile plan needs at least one SM");
  TilePlan p;
  p.tile = tile;
  p.split_k = std::max<int64_t>(1, split_k);
  p.tiles = checked_mul({ceil_div(m, tile.m), ceil_div(n, tile.n), batch, p.split_k}, "GEMM tiles");
  // One large tile fills an SM's tensor cores; smaller ones share the SM (register and shared
  // memory budgets allow about 256x128 worth of accumulators per SM).
  p.ctas_per_sm = std::max<int64_t>(1, (256 * 128) / (tile.m * tile.n));
  const int64_t slots = static_cast<int64_t>(sm_count) * p.ctas_per_sm;
  p.waves = ceil_div(p.tiles, slots);
  // The step is as long as its busiest SM: ceil(tiles / SMs) tiles run on it, whether resident
  // together or one after another. The busy share of the SMs is the wave efficiency (seed 001:
  // 1793^3 with 256x128 tiles = 120 tiles on 108 SMs -> 2 rounds, 120 / 216 = 56 %).
  const int64_t per_sm = ceil_div(p.tiles, sm_count);
  p.wave_efficiency = static_cast<double>(p.tiles) / static_cast<double>(per_sm * sm_count);
  // Operand reuse of a tm x tn tile: it does 2 tm tn FLOPs per (tm + tn) loaded elements; the
  // MMA pipeline stays fed only above a reuse of about 64 (a 128x128 tile), so smaller tiles
  // run proportionally slower. This is a mechanism, not a fit: reuse = tm tn / (tm + tn).
  const double reuse = static_cast<double>(tile.m * tile.n) / static_cast<double>(tile.m + tile.n);
  p.tile_efficiency = std::min(1.0, reuse / 64.0);
  const double k_slice = std::ceil(static_cast<double>(k) / p.split_k);
  p.k_per_cta = k_slice;
  const double tile_flops = 2.0 * tile.m * tile.n * k_slice;
  const double sm_peak = peak_flops / sm_count;
  p.compute_time_s = per_sm * tile_flops / (sm_peak * p.tile_efficiency);
  return p;
}

TilePlan best_tile(int64_t m, int64_t n, int64_t k, int64_t batch, int sm_count,
                   double peak_flops) {
  // Score each candidate by the busiest SM's work (the same quantity plan_tile prices) and
  // plan only the winner: this runs once per GEMM of every predicted step.
  Tile best{0, 0};
  int64_t best_split = 1;
  double best_cost = 0;
  // Tile sides and splits are powers of two: shifts instead of divisions (this loop runs for
  // every GEMM of every predicted step).
  for (const Tile& t : default_tiles()) {
    const int sm_shift = __builtin_ctzll(static_cast<unsigned long long>(t.m));
    const int sn_shift = __builtin_ctzll(static_cast<unsigned long long>(t.n));
    const int64_t base_tiles = ((m + t.m - 1) >> sm_shift) * ((n + t.n - 1) >> sn_shift) * batch;
    // Split-K: when the output alone cannot fill the SMs, slice K (at least 256 deep each).
    const int64_t max_split =
        base_tiles >= sm_count ? 1 : std::max<int64_t>(1, std::min<int64_t>(k >> 8, sm_count / base_tiles));
    const double reuse = static_cast<double>(t.m * t.n) / static_cast<double>(t.m + t.n);
    const double eff = std::min(1.0, reuse / 64.0);
    int split_shift = 0;
    for (int64_t s = 1; s <= max_split; s *= 2, ++split_shift) {
      const int64_t per_sm = ceil_div(base_tiles * s, sm_count);
      const double cost = static_cast<double>(per_sm) * static_cast<double>(t.m * t.n) *
                          static_cast<double>((k + s - 1) >> split_shift) / eff;
      if (best.m == 0 || cost < best_cost * (1 - 1e-9)) {
        best = t;
        best_split = s;
        best_cost = cost;
      }
    }
  }
  return plan_tile(m, n, k, batch, best, sm_count, peak_flops, best_split);
}

namespace {
// The stream-K hybrid of `plan` (full waves tile by tile, the partial last wave split along K over
// all SMs, one partial-tile fix-up), whether or not it is faster; `plan` itself when it has no
// partial wave to stream or is split-K.
TilePlan streamed(const TilePlan& plan, int64_t k, int sm_count, double peak_flops, double fixup_s) {
  const int64_t full_waves = plan.tiles / sm_count;
  const int64_t rem = plan.tiles - full_waves * sm_count;
  if (rem == 0 || plan.split_k > 1) return plan;
  const double k_slice = std::ceil(static_cast<double>(k) / plan.split_k);
  const double tile_time = 2.0 * plan.tile.m * plan.tile.n * k_slice / (peak_flops / sm_count * plan.tile_efficiency);
  const double t = full_waves * tile_time + static_cast<double>(rem) * tile_time / sm_count + fixup_s;
  TilePlan s = plan;
  s.compute_time_s = t;
  s.stream_k = true;
  // With full waves a CTA walks all of K; a streamed partial wave alone gives each SM its share.
  if (full_waves == 0) s.k_per_cta = k_slice * static_cast<double>(rem) / sm_count;
  s.wave_efficiency = static_cast<double>(plan.tiles) * tile_time / (t * sm_count);
  return s;
}

// One fp32 partial tile written and read back at an SM's L2 port.
double fixup_time_s(const Tile& t, double fixup_rate) { return 2.0 * static_cast<double>(t.m * t.n) * 4.0 / fixup_rate; }
}  // namespace

TilePlan with_stream_k(const TilePlan& plan, int64_t k, int sm_count, double peak_flops, double fixup_s) {
  const TilePlan s = streamed(plan, k, sm_count, peak_flops, fixup_s);
  return s.compute_time_s < plan.compute_time_s ? s : plan;
}

TilePlan best_plan(int64_t m, int64_t n, int64_t k, int64_t batch, int sm_count, double peak_flops,
                   double fixup_rate) {
  TilePlan best = best_tile(m, n, k, batch, sm_count, peak_flops);
  if (!(fixup_rate > 0)) return best;
  // Skinny products (one row of 128-row tiles: decode GEMVs) run split-K kernels; only their
  // winner may stream its partial wave.
  if (m <= 128) return with_stream_k(best, k, sm_count, peak_flops, fixup_time_s(best.tile, fixup_rate));
  for (const Tile& t : default_tiles()) {
    const TilePlan s = with_stream_k(plan_tile(m, n, k, batch, t, sm_count, peak_flops), k, sm_count, peak_flops,
                                     fixup_time_s(t, fixup_rate));
    if (s.compute_time_s < best.compute_time_s * (1 - 1e-9)) best = s;
  }
  return best;
}

double PlanCosts::tile_refill_of(const TilePlan& p) const {
  if (!(tile_refill_s > 0) || sm_count < 1) return 0;
  // The busiest SM's tiles, one CTA per SM as nvjet runs them (cta_walk_of), all but the first refilled.
  const double per_sm = std::ceil(static_cast<double>(p.tiles) / sm_count);
  return tile_refill_s * std::max(0.0, per_sm - 1);
}

double PlanCosts::epilogue_tail_of(const TilePlan& p) const {
  // A split or streamed plan writes partials and reduces them: not this epilogue.
  if (!epilogue_tail || !(write_s > 0) || p.split_k > 1 || p.stream_k || p.tiles < 1 || sm_count < 1) return 0;
  // The last wave's tiles (at most one an SM) write their C after their K loop ends; the earlier waves'
  // writes run under the later tiles' loops.
  const double last = std::min<double>(static_cast<double>(p.tiles), sm_count);
  return write_s * last / static_cast<double>(p.tiles);
}

double PlanCosts::split_partials_write_of(const TilePlan& p) const {
  if (p.split_k < 2 || !(split_partial_bytes > 0) || !(l2_write_rate > 0) || !(dram_write_rate > 0)) return 0;
  const double bytes = split_partial_bytes * static_cast<double>(p.split_k);
  const double in_l2 = std::min(bytes, std::max(0.0, l2_capacity));
  return in_l2 / l2_write_rate + (bytes - in_l2) / dram_write_rate;
}

double PlanCosts::fixed_of(const TilePlan& p) const {
  return fixed_s + tile_refill_of(p) + epilogue_tail_of(p) + per_1024_k_s * p.k_per_cta / 1024.0 +
         (p.split_k > 1 ? split_k_s + split_k_per_split_s * static_cast<double>(p.split_k) + split_partials_write_of(p)
                        : 0.0);
}

double PlanCosts::stream_of(const TilePlan& p) const {
  // A split grid of 4-CTA clusters streams its operands a fixed tail longer (cublaslt_split.hpp, branch
  // splitk); a grid its CTAs' walk binds (few CTAs) hides it.
  return memory_s - epilogue_tail_of(p) + (p.cluster_split ? kClusterSplitTailS : 0.0);
}

namespace {
// nvjet's 16-stage kernels (`nvjet_sm90_tst_64x8_64x16_...`, `..._8x64_64x16_...`, 64x16, 64x32, 24x64,
// 32x64: a K tile of 64, 16 stages; validation/results/h200-block11 and h200-compiled2 kernel names):
// tiles of at most 96 operand rows, 1024 of K in flight.
constexpr int64_t kSixteenStageRows = 96;
constexpr double kSixteenStageK = 16 * 64;
}  // namespace

double PlanCosts::cta_walk_of(const TilePlan& p, int sm_count) const {
  if (!(cta_walk_per_1024_k_s > 0)) return 0;
  // The SM runs ceil(tiles / SMs) tiles one after another (cuBLASLt's nvjet kernels: one CTA per SM).
  const double per_sm = std::ceil(static_cast<double>(p.tiles) / sm_count);
  // A K step waits on its loads: a latency every tile pays, and (tm + tn) rows through the SM's
  // load port, relative to a 128x128 tile's 256 rows.
  const double rows = static_cast<double>(p.tile.m + p.tile.n) / 256.0;
  const double pace = cta_walk_latency_share >= 0 ? cta_walk_latency_share + (1 - cta_walk_latency_share) * rows : 1.0;
  double per_cta = p.k_per_cta / 1024.0 * cta_walk_per_1024_k_s * pace;
  // Where the block gives cuBLASLt's split rule (its nvjet kernels), a 16-stage tile (at most 96 operand
  // rows) puts its first 1024 of K in flight at once: that stretch is a fill (kNvjetFillShare of a 128x128
  // tile's pace, cublaslt_split.hpp), after which the stages hide the loads' latency and the walk paces at
  // the load port alone, the operand rows' share of the pace (branch compiled17: Llama-3-8B's k / v split
  // 3 ways, 1365 deep, 5.19 us, beside TinyLlama's 2048-deep o, 5.66 us; h200-compiled2, h200-block11).
  if (split_k_min_slice > 0 && cta_walk_latency_share >= 0 && p.tile.m + p.tile.n <= kSixteenStageRows) {
    const double filled = std::min(p.k_per_cta, kSixteenStageK);
    per_cta = filled / 1024.0 * cta_walk_per_1024_k_s * kNvjetFillShare +
              (p.k_per_cta - filled) / 1024.0 * cta_walk_per_1024_k_s * (1 - cta_walk_latency_share) * rows;
  }
  return per_sm * per_cta;
}

namespace {
constexpr double kSkinnyMaxK = 2048;
}  // namespace

const std::vector<Tile>& skinny_tiles() {
  static const std::vector<Tile> tiles{{32, 128}, {32, 64}, {16, 128}, {16, 64}, {8, 128}, {8, 64}};
  return tiles;
}

namespace {
// cuBLASLt's narrow nvjet tiles, tokens x weight rows (cheapest_plan says where they are offered).
const std::vector<Tile>& narrow_tiles() {
  static const std::vector<Tile> tiles{{24, 64}, {48, 64}, {64, 8}, {64, 24}, {64, 48}};
  return tiles;
}
}  // namespace

namespace {
// The narrowest side, a multiple of kNvjetFillStep up to kNvjetFillMaxSide, that splits `rows` into at most
// `tiles` tiles; 0 where none does.
int64_t narrowest_side(int64_t rows, int64_t tiles) {
  if (tiles < 1) return 0;
  const int64_t side = std::max<int64_t>(kNvjetFillStep, ceil_div(ceil_div(rows, tiles), kNvjetFillStep) * kNvjetFillStep);
  return side <= kNvjetFillMaxSide ? side : 0;
}
}  // namespace

std::vector<Tile> nvjet_fill_tiles(int64_t m, int64_t n, int64_t batch, int sm_count) {
  // nvjet's tile is one wgmma shape: one side in whole warpgroups of 64 rows (the MMA's M), the other the
  // MMA's N, any multiple of 8 up to 256, sized so that one wave of CTAs covers the product. The kernel
  // names (weight rows x tokens) show both layouts: `_TNT` kernels put the weight rows on the 64-row side
  // and size the tokens in steps of 8 (h200-heldout18: 128x72 at 777 x 1536, 12 x 11 = 132 CTAs; 64x72 at
  // 2222 x 256, 124; 128x152 at 5000 x 512, 132; h200-heldout16: 256x72 at 777 x 3072, 132), `_TNN`
  // kernels the other way round (80x128 at 250 x 5120, 128 CTAs; 96x128 at 250 x 6144, 128; 112x128 at
  // 1024 x 3584 in h200-production, 256 = two waves). For each 64-row side, the narrowest step-8 side
  // whose grid fits the SMs. Tokens x weight rows here, as Tile is.
  std::vector<Tile> tiles;
  if (m < 1 || n < 1 || batch < 1 || sm_count < 1) return tiles;
  auto add = [&](Tile t) {
    if (t.m > 0 && t.n > 0 && std::none_of(tiles.begin(), tiles.end(), [&](const Tile& o) { return o.m == t.m && o.n == t.n; }))
      tiles.push_back(t);
  };
  for (int64_t whole = kNvjetWarpgroupRows; whole <= kNvjetFillMaxSide; whole += kNvjetWarpgroupRows) {
    // Weight rows on the warpgroups, tokens in steps of 8 (`_TNT`); a side past N pads only.
    if (whole == kNvjetWarpgroupRows || ceil_div(n, whole - kNvjetWarpgroupRows) > ceil_div(n, whole)) {
      const int64_t across = ceil_div(n, whole) * batch;
      if (across <= sm_count) add(Tile{narrowest_side(m, sm_count / across), whole});
    }
    // Tokens on the warpgroups, weight rows in steps of 8 (`_TNN`).
    if (whole == kNvjetWarpgroupRows || ceil_div(m, whole - kNvjetWarpgroupRows) > ceil_div(m, whole)) {
      const int64_t down = ceil_div(m, whole) * batch;
      if (down <= sm_count) add(Tile{whole, narrowest_side(n, sm_count / down)});
    }
  }
  return tiles;
}

int64_t nvjet_stages(const Tile& t) {
  if (t.m < 1 || t.n < 1) return 0;
  const int64_t stage = (t.m + t.n) * kNvjetStageRowBytes;
  return std::clamp<int64_t>((kNvjetSmemBytes - kNvjetEpilogueSmemBytes) / stage, 0, kNvjetMaxStages);
}

namespace {
// nvjet's MMA pace on a tile of at least 64 x 64 (branch gemm15, validation/results/h200-gemm15): the
// busiest SM's work over the measured time (less the block's fixed cost) on the tile cuBLASLt ran
// (kernel name, one CTA an SM) is 0.49-0.61 on 64x64, 0.75 on 96x64, 0.71-0.82 on 128x64 and 1.0 on
// 112x128 where plan_tile's law (reuse / 64) gives 0.50, 0.60, 0.67 and 0.93: a K step's operand rows
// come in at the SM's load rate, peak / knee bytes an SM, and nvjet's rate is the higher one. The
// knee is fitted (least squares on log efficiency) on fit_gemm.py's fit half of the M >= 256
// torch.linear cases that ran unsplit on such a tile (24 cases, 5 of them on tiles under reuse 64);
// validation/scripts/production/gemm15_tile_eff.py. The narrower nvjet tiles keep the law: their
// time is the K loop's walk (cta_walk_of), not the MMA.
constexpr double kNvjetReuseKnee = 57.0;

TilePlan nvjet_efficiency(TilePlan p) {
  const double reuse = static_cast<double>(p.tile.m * p.tile.n) / static_cast<double>(p.tile.m + p.tile.n);
  const double eff = std::min(1.0, reuse / kNvjetReuseKnee);
  p.compute_time_s *= p.tile_efficiency / eff;
  p.tile_efficiency = eff;
  return p;
}
}  // namespace

CublasltSplit cublaslt_split_grid(int64_t grid, int64_t k, int sm_count, int64_t min_slice) {
  if (grid < 1 || min_slice < 1 || sm_count < 1) return {};
  // nvjet's split grids at M <= 128 (cublaslt_split.hpp): the 4-CTA cluster grid first, the whole
  // card's 2-CTA grid where it cuts each CTA's slice by a ring of stages or more (and every grid the
  // cluster cap leaves unsplit: Llama-3-8B's o, 64 tiles x 2).
  const int64_t cluster_cap = static_cast<int64_t>(sm_count) * kClusterGridNumerator / kClusterGridDenominator;
  const int64_t by_depth = k / min_slice;
  const int64_t clustered = std::min<int64_t>(cluster_cap / grid, by_depth);
  const int64_t wide = std::min<int64_t>(sm_count / grid, by_depth);
  const double kd = static_cast<double>(k);
  int64_t s = clustered;
  bool on_clusters = true;
  if (wide > clustered) {
    const double slice_gain = kd / static_cast<double>(std::max<int64_t>(1, clustered)) - kd / static_cast<double>(wide);
    if (slice_gain >= kWiderGridMinGainK) {
      s = wide;
      on_clusters = false;
    }
  }
  if (s < 2) return {};
  return {s, on_clusters};
}

int64_t cublaslt_split(int64_t grid, int64_t k, int sm_count, int64_t min_slice) {
  return cublaslt_split_grid(grid, k, sm_count, min_slice).splits;
}

double PlanCosts::priced_s(const TilePlan& p) const {
  // The cluster split grid's tail (stream_of) is left out of the choice: cuBLASLt's heuristic does not see
  // it (with it, 7 of h200-block11's 36 split calls were priced unsplit); gemm_cost adds it to the plan chosen.
  return fixed_of(p) + std::max({compute_of(p), memory_s - epilogue_tail_of(p), p.cta_walk_s});
}

double PlanCosts::time_of(const TilePlan& p) const {
  return fixed_of(p) + std::max({compute_of(p), stream_of(p), p.cta_walk_s});
}

double PlanCosts::compute_of(const TilePlan& p) const { return gemv_compute_s >= 0 ? gemv_compute_s : p.compute_time_s; }

namespace {
constexpr int64_t kShortSplitK = 512;  // two 256-deep K stages: the least slice worth a split's reduction
}  // namespace

TilePlan cheapest_plan(int64_t m, int64_t n, int64_t k, int64_t batch, int sm_count, double peak_flops,
                       double fixup_rate, const PlanCosts& costs) {
  // Slices at least 256 deep and at most one per SM: bounded by K and the card, never by M.
  const int64_t max_split = std::max<int64_t>(1, std::min<int64_t>(k / 256, sm_count));
  std::optional<TilePlan> best;
  double best_s = 0;
  auto consider = [&](TilePlan p) {
    p.cta_walk_s = costs.cta_walk_of(p, sm_count);
    const double t = costs.priced_s(p);
    if (!best || t < best_s * (1 - 1e-12)) {
      best = p;
      best_s = t;
    }
  };
  std::vector<Tile> tiles = default_tiles();
  // Skinny tiles only where they fit the rows (cuBLASLt picks them at M <= 64) and the walk is
  // priced per tile: a plan of few wide CTAs is what tells them apart.
  if (costs.cta_walk_latency_share >= 0 && costs.cta_walk_per_1024_k_s > 0)
    for (const Tile& t : skinny_tiles())
      if (m <= 2 * t.m || (t.m == 32 && m <= 64)) tiles.push_back(t);
  // Where the block gives cuBLASLt's split rule (nvjet kernels), its narrow tiles too. Kernel names of
  // h200-gemm-small and h200-block11 (weight rows x tokens): 64x24 and 64x48 at M = 128-512 on N = 512,
  // 24x64, 48x64, 56x64 at M = 64-128, 8x64 on N = 8 at M = 64-512 (our reading: nvjet sizes a tile
  // side in steps of 8 so that the grid nears the SMs). Here tokens x weight rows; the walk prices
  // their (tm + tn) operand rows a K step (branch gemm14, validation/results/h200-gemm14).
  if (costs.split_k_min_slice > 0 && costs.cta_walk_latency_share >= 0 && costs.cta_walk_per_1024_k_s > 0)
    for (const Tile& t : narrow_tiles())
      if (m > 32 && m <= 8 * t.m) tiles.push_back(t);
  // nvjet's one-wave tiles, one side whole warpgroups and the other in steps of 8 (nvjet_fill_tiles; branch
  // nvjettile), past the rows the narrow tiles serve, where the block prices one CTA's K walk per tile and
  // opts in (`nvjet_fill_tiles: 1`: validation/results/h200-nvjettile's calibration, in the fused and eager
  // blocks; the committed calibration's fused block only). Their time is the existing laws': the MMA at
  // plan_tile's reuse law (nvjet's knee where the split rule is given) capped at kNvjetFillPaceCap, the walk
  // at their operand rows. In the eager block test_moe_accuracy's eager kernel p90 goes 8.004 % (bound 8 %).
  if (costs.nvjet_fill_tiles && costs.cta_walk_latency_share >= 0 && costs.cta_walk_per_1024_k_s > 0 &&
      m > kNvjetFillMinRows)
    // Opt-in (nvjet_wave_tiles, where the block gives the split rule): grids of up to kNvjetWaveTilesMaxWaves waves.
    for (int waves = 1; waves <= (costs.nvjet_wave_tiles && costs.split_k_min_slice > 0 ? kNvjetWaveTilesMaxWaves : 1); ++waves)
      for (const Tile& t : nvjet_fill_tiles(m, n, batch, sm_count * waves))
        if (std::none_of(tiles.begin(), tiles.end(), [&](const Tile& o) { return o.m == t.m && o.n == t.n; }))
          tiles.push_back(t);
  // cuBLASLt's split-K on Hopper (validation/results/h200-block11: nvjet kernel names and grids at
  // M = 1-128, alone and in the fused step): a tile whose grid leaves SMs idle is split s ways, s the
  // most with grid x s <= SMs and K / s >= split_k_min_slice, and not split where that s is 1. Where a
  // profile gives the depth, those are the only splits; else every power of two.
  const bool cublaslt_splits = costs.split_k_min_slice > 0;
  // Opt-in (PlanCosts::nvjet_wave_tiles): cuBLASLt's nvjet grids run whole waves, no stream-K hybrid.
  const bool whole_waves = costs.nvjet_wave_tiles && cublaslt_splits;
  for (const Tile& t : tiles) {
    std::vector<int64_t> splits{1};
    bool on_clusters = false;
    if (cublaslt_splits) {
      const int64_t grid = ceil_div(m, t.m) * ceil_div(n, t.n) * batch;
      const CublasltSplit rule = cublaslt_split_grid(grid, k, sm_count, costs.split_k_min_slice);
      if (rule.splits >= 2 && rule.splits <= max_split) {
        splits.push_back(rule.splits);
        // The 4-CTA cluster spans 4 weight-row tiles (block11's grids: [4, 24, 1] for 96 tiles of 64x8);
        // a grid of fewer runs on smaller clusters (the router's 8x64 1x1 / 1x2, Llama-3-70B TP8's k / v
        // 64x8 2x1 at N = 128: h200-gemm-small kernel names) and pays no cluster tail.
        on_clusters = rule.clustered && ceil_div(n, t.n) >= kClusterCtas;
      }
    } else {
      for (int64_t split = 2; split <= max_split; split *= 2) splits.push_back(split);
    }
    for (const int64_t split : splits) {
      TilePlan p = plan_tile(m, n, k, batch, t, sm_count, peak_flops, split);
      p.cluster_split = split > 1 && on_clusters;
      // nvjet's MMA pace where the block gives cuBLASLt's split rule (its kernels), on tiles the rows
      // fill (as in every case the knee was fitted on; on the M = 1 chains a padded 64x64 tile priced
      // at it wins plans cuBLASLt does not run: held-out chain median 3.2 -> 3.4 %).
      if (cublaslt_splits && std::min(t.m, t.n) >= 64 && m >= t.m) p = nvjet_efficiency(p);
      // A one-wave tile whose weight rows are the step-8 side (`_TNN`: tokens on the warpgroups) runs its MMA
      // at most kNvjetFillPaceCap of the peak, wherever its reuse passes the knee (branch nvjettile, fitted on
      // TNN tiles only: Mistral q|k|v 96x128, Qwen2-1.5B gate|up 144x128). The `_TNT` tiles (weight rows on
      // the warpgroups, tokens in steps of 8) run at the knee's pace uncapped (branch smallk): capped, the
      // same 144 side priced +11.7 % as 128x144 (h200-heldout18's fp16 down at 400) where the TNN 144x128 was
      // -12.5 % uncapped, and every TNT step-8 tile at M > 128 of h200-heldout18 priced 11-15 % over.
      // Under nvjet_wave_tiles, on one-wave grids only (the cap's fit; a 2-wave 128x168 grid runs at the knee's pace).
      if (costs.nvjet_fill_tiles && m > kNvjetFillMinRows && t.n % kNvjetWarpgroupRows != 0 &&
          p.tile_efficiency > kNvjetFillPaceCap && !(whole_waves && p.tiles > sm_count)) {
        p.compute_time_s *= p.tile_efficiency / kNvjetFillPaceCap;
        p.tile_efficiency = kNvjetFillPaceCap;
      }
      // cuBLASLt runs a skinny tile's K loop at most 2048 deep (h200-gemm-small and h200-gemm-chain
      // kernel names: K <= 2048 unsplit on 64x8 / 128x8 / 64x16 tiles, K >= 3584 split-K).
      if (t.m < 64 && p.k_per_cta > kSkinnyMaxK) continue;
      // cuBLAS on Hopper splits a grid that leaves SMs idle along K and reduces it with
      // splitKreduce (h200-production's skinny GEMMs; h200x2-tp's K-halved decode projections,
      // where the unsplit 64x64 grid priced 1-2 us under them). The model's stream runs at one
      // rate however few CTAs issue it, so that unsplit grid is not offered. Known cost: at the M
      // where a tile's grid first fills the SMs the split's reduction drops out of the price
      // (a step of at most floor + one sweep; none over tests/test_properties.cpp's grid).
      // Where one CTA's K loop is priced (cta_walk_per_1024_k), few CTAs stream slowly and the unsplit
      // grid competes on its price: cuBLASLt runs it where K is short (h200-gemm-small: N = 512,
      // K = 2048 unsplit, K = 3584 split-K with splitKreduce).
      // A K too short to split into two slices of kShortSplitK each is run unsplit (at K = 960 the rule
      // split SmolLM2-360M's 16-row gate_up 480 deep on the B200 and priced it over the 128-row call:
      // tests/test_properties.cpp; cuBLASLt on the H200 splits no slice under 1280, split_k_min_slice).
      if (split == 1 && fixup_rate > 0 && max_split > 1 && k >= 2 * kShortSplitK && p.tiles < sm_count &&
          !(costs.cta_walk_per_1024_k_s > 0))
        continue;
      consider(p);
      // The stream-K hybrid streams a partial wave behind full ones. With no full wave the
      // product is split-K's (cuBLAS adds a splitKreduce kernel there: h200-production's small-M
      // and small-N GEMMs); streaming all of it would price no reduction and run 20-30 % under
      // the measured skinny GEMMs.
      if (split == 1 && fixup_rate > 0 && p.tiles >= sm_count && !whole_waves)
        consider(streamed(p, k, sm_count, peak_flops, fixup_time_s(t, fixup_rate)));
    }
  }
  return *best;
}

int64_t max_square_tile(double smem_bytes, double bytes_per_element) {
  int64_t t = 1;
  while (3.0 * static_cast<double>(2 * t) * static_cast<double>(2 * t) * bytes_per_element <= smem_bytes) t *= 2;
  return t;
}

double tiled_matmul_loads(int64_t n, int64_t t) {
  const double nt = static_cast<double>(n) / static_cast<double>(t);
  return nt * nt * nt * 2.0 * static_cast<double>(t) * static_cast<double>(t);
}

double naive_matmul_loads(int64_t n) {
  return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
}

}  // namespace perfmodel
