// vLLM's fused_moe grouped GEMM (vllm/model_executor/layers/fused_moe/fused_moe.py,
// fused_moe_kernel): the fused profile's `grouped_gemm` when its calibration measured the kernel
// (profiles.fused.fused_moe). One Triton launch walks the routed rows sorted by expert, each
// expert's run padded to BLOCK_M by moe_align_block_size; a CTA takes one BLOCK_M x BLOCK_N
// output tile of one expert and streams that expert's BLOCK_N x K weight slab through its
// pipeline (every row block of an expert re-reads the slab). Not persistent: many small CTAs
// per SM, so the resident CTAs of a wave share the card's stream.
//   memory: waves x slab / cta_rate + the op's bytes / stream: one CTA's K-loop is latency-bound
//     (Mixtral T = 1's down projection: 256 CTAs walk K = 14336 at ~32 GB/s each), and all the
//     bytes share the card's stream (h200-moe-fused2: 4.1 TB/s at many experts). At BLOCK_K 32
//     a K step loads 64 bytes of each weight row, half a 128-byte line, and the stream falls to
//     `half_line_stream` (h200-moe5: Mixtral's decode GEMMs at 64 x 64 x 32 stream 2.6-3.0 TB/s,
//     the same kernel at BLOCK_K 64 4.2-4.3; more stages, 8 warps or BLOCK_N 128 do not move
//     it, and the 64 x 64 x 32 kernel keeps 8 CTAs an SM by its 64 registers a thread). At
//     BLOCK_K 32 the per-CTA term scales with the SMs' CTA slots in use (h200-moe6: the same
//     kernel streams 3.0-3.1 TB/s with ~4 CTAs an SM, Mixtral's w2 at K = 14336 and K = 4096,
//     and 2.7-2.9 with all 8 slots full at any K; Nsight Compute: the same DRAM bytes, the L2
//     80-86 % busy in both): the half-line streams' cost grows with how many walk at once, which
//     the per-CTA term carries; a single K walk alone (w2 under half the slots) was +22-27 %;
//     since h200-moe7 (the same GEMM over N at K 4096 and 14336: 256-1536 CTAs; the moe6 form
//     above is gone, its per-CTA term scaled by the slots in use): the half-line stream falls
//     with the CTAs resident an SM, 1 / stream linear in them (3.1 TB/s at ~4 an SM, 2.7-2.8 with
//     all 8), and few CTAs (~2 an SM: 2.0-2.1 TB/s at either K) are bound by their own K-loops,
//     each ~8 GB/s under load (Little's law at the loaded latency): memory = max(waves x slab /
//     loaded CTA rate, bytes / stream(CTAs an SM)), no sum (the per-CTA walks overlap the
//     card's stream once ~4 an SM are resident: moe6's w2 streams 1.84 MB a CTA at 6 GB/s);
//   L2 (half lines, since h100-prefillncu): every CTA K step loads a BLOCK_M x BLOCK_K tile of A
//     (masked padded rows too) and a BLOCK_K x BLOCK_N tile of weights through the L2, and the
//     prefills are bound there: Nsight Compute on the H100 read the L2 84-94 % busy and the SMs
//     25-29 % at Mixtral's prefills, the expert weights re-read from DRAM 1.4-3.7x past it. One
//     rate, `l2_tile_rate`, fitted on the H200's Mixtral prefill (fit_fused_moe_l2.py), priced
//     the H200's other two prefills +0.1 / +1.0 % and, carried by the L2's size, the H100's
//     2048-token ones +0.4 / +2.1 / +3.4 % as the larger of it and the stream. With one or two
//     row blocks an expert the stream and the tile loads join as a 3-norm (`l2_stream_norm`,
//     below: h100-moeh100e), which moves those prefills to +3.5 / +1.0 and +5.7 / +2.1 / +3.4 %;
//   re-reads (half lines): the partner lag and GROUP_SIZE_M's straddle add expert weight bytes the stream carries
//     again (partner_reread_bytes, straddle_reread_bytes below);
//   full lines (BLOCK_K 64 and more: vLLM's tuned files): the stage loads at the SM's rate, queued n / (n + 1) with n
//     in flight, a tile's two ends, and GROUP_SIZE_M's straddle (fused_moe_full_line_s, h100-stagesweep);
//   compute: the padded rows' tiles over the SMs at a share of the GEMM peak (a roof the L2
//     keeps the tiles under: ~270 TFLOP/s over the padded rows was the L2's, not the MMA's);
//   fixed: the launch floor, once.
// Tiles follow vLLM's default config (get_default_config, no tuned JSON for the shape).
#include <algorithm>
#include <cmath>

#include "kernel_costs.hpp"
#include "perfmodel/ops.hpp"

namespace perfmodel {

namespace {

struct FusedMoeConfig {
  int64_t block_m, block_n, block_k;
  int64_t ctas_per_sm;  // resident CTAs an SM (tuned_config: by warps, shared memory and registers)
  // One CTA's weight bytes in flight over the default configs' ((stages - 1) x BLOCK_K x BLOCK_N, both 2 x 64 x 32):
  // the K-loop's latency-bound rate (cta_rate, fitted on them) scales with it, by Little's law.
  double in_flight_ratio = 1;
  int64_t group_m = 1;  // GROUP_SIZE_M: the row blocks one column sweep takes together
  int64_t stages = 3;   // Triton's pipeline stages (num_stages)
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// sm90's per-SM limits (CUDA C Programming Guide, compute capability 9.0): 64 warps, 32 blocks, 227 KiB of shared
// memory a block can take, 64 K registers.
constexpr int64_t kSmWarps = 64, kSmBlocks = 32, kSmSharedBytes = 227 * 1024, kSmRegisters = 65536;

// A config's CTAs an SM (Nsight Compute's occupancy limits of 40 fused_moe kernels, h100-tunedmoe: 36 derived alike):
//   - by warps;
//   - by Triton's shared-memory buffers of A and weight tiles, (BLOCK_M + BLOCK_N) x BLOCK_K elements each: `stages`
//     of them where BLOCK_M is a multiple of 64 (64 x 64 x 32 s3 24 KiB, 128 x 256 x 64 s4 192 KiB), `stages - 1`
//     below (16 x 32 x 64 s3 12 KiB, 16 x 64 x 256 s3 80 KiB, 16 x 64 x 64 s5 40 KiB), as Nsight read the kernels'
//     shared memory (why: Triton's pipeliner keeps one more buffer for an MMA that may still read one, if these tiles
//     run Hopper's async MMA; Nsight's wgmma counter read n/a, h100-bigncu, so that is not confirmed); counting
//     `stages` everywhere gave 1 CTA an SM where Nsight read 2 and priced those tiles 10-13 % slow
//     (h100-tunedmoe/first-run/read_ncu.txt; held out on h100-tunedcheck and h100-tunedh100);
//   - by registers: the fp32 accumulator tile over the threads plus 32, rounded to 8 (the default 64 x 64's 64 a
//     thread; 16 x 32's 40, Nsight 37-40). The mma.sync tiles' operand fragments are not counted: at BLOCK_K 128-256
//     Nsight read 94-250 (the 4 of 40 launches this derivation misses: 3 CTAs where registers hold 2).
// and the weight bytes in flight over the defaults' ((stages - 1) x BLOCK_K x BLOCK_N, both 2 x 64 x 32).
FusedMoeConfig tuned_config(const FusedMoeTile& t, double element_bytes) {
  const int64_t threads = 32 * t.warps;
  const int64_t buffers = t.block_m % 64 == 0 ? t.stages : std::max<int64_t>(1, t.stages - 1);
  const int64_t stage_bytes = static_cast<int64_t>(static_cast<double>((t.block_m + t.block_n) * t.block_k) * element_bytes);
  const int64_t regs = std::min<int64_t>(255, ((32 + ceil_div(t.block_m * t.block_n, threads)) + 7) / 8 * 8);
  const int64_t ctas = std::min({kSmWarps / t.warps, kSmBlocks, kSmSharedBytes / std::max<int64_t>(1, buffers * stage_bytes),
                                 kSmRegisters / (threads * regs)});
  const double in_flight = static_cast<double>(std::max<int64_t>(1, t.stages - 1) * t.block_k * t.block_n) / (2.0 * 64 * 32);
  return {t.block_m, t.block_n, t.block_k, std::max<int64_t>(1, ctas), in_flight, std::max<int64_t>(1, t.group_m),
          std::max<int64_t>(1, t.stages)};
}

// vLLM's default (get_default_config): 16 x 32 x 64 while the tokens are at most the experts (decode: a few rows per
// expert), 64 x 64 x 32 beyond; 4 warps and 3 stages both. The large tile as a tuned entry derives it: 8 CTAs an SM
// (64 registers; Nsight, h200-moe6: 8 by registers, 9 by its 24 KiB of shared memory). The small tile keeps the 16
// (by warps) that cta_rate, stream and floor were fitted with (fit_fused_moe.py), though Nsight Compute read 12
// (40 registers, h100-tunedmoe) as tuned_config derives: h100-smalltile's rule, set before its run, kept 16 (17 new
// decode layers' grouped GEMMs 3.5 / 10.6 % median / p90 at 16, 4.8 / 13.2 % at 12). In this additive form the
// per-wave K-loop term stands for more than the resident count.
FusedMoeConfig vllm_default_config(int64_t tokens, int64_t experts, double element_bytes) {
  if (tokens <= experts) return {16, 32, 64, 16, 1, 1, 3};
  return tuned_config({64, 64, 32, 8, 4, 3}, element_bytes);
}

FusedMoeConfig fused_moe_config(const Op& op) {
  if (op.moe.tile.block_m <= 0) return vllm_default_config(op.moe.tokens, op.moe.experts, bytes_of(op.dtype));
  return tuned_config(op.moe.tile, bytes_of(op.dtype));
}

// The h200-moe7 form at half lines, two ratios to the calibrated keys (fit_fused_moe.py, fitted
// with half_line_stream on h200-moe7's six w2-form kernels at K 4096, 256-1536 CTAs; its K 14336,
// h200-moe6's and h200-moe5's kernels and the fused2 layers held out). Ratios, not keys of their
// own, so a sibling card's transfer (the streams by DRAM, cta_rate as is) carries them:
//   - the half-line stream as the resident CTAs an SM go to none, over half_line_stream (all 8):
//     3275 against 2775 GB/s;
//   - one CTA's half-line K-loop under load over its idle cta_rate: 7.5 against 20 GB/s (the
//     loaded DRAM latency ~2.7x the idle one, by Little's law at the same bytes in flight).
constexpr double kHalfLineLightStream = 1.18;
constexpr double kHalfLineLoadedCtaRate = 0.375;

// The partner lag (h200-twoblock, Nsight Compute; fit_partner_lag.py): an expert's CTAs at one column tile read the
// same weight slices. vLLM's align fills an expert's rows from its first block, so its last block holds only the
// remainder r; that CTA loads r + BLOCK_N tile rows a K step against its full partner's BLOCK_M + BLOCK_N, walks ahead
// by a share of a step each step, d = kPartnerLeadShare (BLOCK_M - r) / (BLOCK_M + BLOCK_N), and after k steps the
// partner trails k d steps. The L2 holds the last k0 steps' weight slices across the card, k0 = L2 bytes / (weight
// tiles in flight x BLOCK_N x BLOCK_K x 2), the tiles in flight the resident CTAs over the blocks an expert (one
// expert's CTAs at a column share a tile): the partner re-reads a share 1 - k0 / (steps d) of the expert's weights
// from DRAM, none while steps d <= k0. Mixtral-8x7B's w2 (448 K steps) re-read its weights 1.81x with 4 rows in
// the last block, 1.22x with 48, and 1.02-1.06x with the same rows split evenly over the blocks; the time followed
// the DRAM bytes. kPartnerLeadShare: the share of the leader's load deficit that becomes lead, least squares over 12
// GEMMs of that set (the H100's fused_moe sets held out).
constexpr double kPartnerLeadShare = 0.508;

// The weight share an expert with `rows` routed rows re-reads (none at one block, or with its last block full).
double partner_reread_share(int64_t rows, const FusedMoeConfig& c, double steps, double k0) {
  const int64_t last = rows % c.block_m;
  if (rows <= c.block_m || last == 0) return 0;
  const double lead = kPartnerLeadShare * static_cast<double>(c.block_m - last) / static_cast<double>(c.block_m + c.block_n);
  return std::max(0.0, 1.0 - k0 / (steps * lead));
}

// The expert weights the partner lag re-reads (see kPartnerLeadShare), in expectation over the routed counts.
double partner_reread_bytes(const Op& op, const FusedMoeConfig& c, double padded_tiles, int64_t col_blocks,
                            int64_t resident, const Roofs& r) {
  if (op.moe.experts <= 0 || op.moe.experts_touched <= 0 || !(r.card.l2_bytes > 0)) return 0;
  const double blocks_per_expert = std::max(1.0, padded_tiles / static_cast<double>(col_blocks) / op.moe.experts_touched);
  const double in_flight = std::min(padded_tiles, static_cast<double>(resident)) / blocks_per_expert;
  const double tile_slice = static_cast<double>(c.block_n * c.block_k) * bytes_of(op.dtype);  // bf16 weights
  const double k0 = r.card.l2_bytes / (in_flight * tile_slice);
  const double steps = static_cast<double>(ceil_div(op.gemm.k, c.block_k));
  const double experts = ops::expected_over_routed_counts(
      op.moe.experts, op.moe.top_k, op.moe.tokens, op.moe.skew,
      [&](int64_t rows) { return partner_reread_share(rows, c, steps, k0); });
  return experts * static_cast<double>(op.gemm.n) * static_cast<double>(op.gemm.k) * bytes_of(op.dtype);
}

// GROUP_SIZE_M's straddle (h100-straddle: adopted by the rule set before its run, grouped GEMMs 6.0 / 11.7 -> 4.9 /
// 9.6 % median / p90 over 14 new layers; nothing fitted). The kernel walks its grid in groups of group_m row blocks,
// every column of a group before the next group. An expert whose blocks fall in two groups streams its weights once
// in each, the second pass a whole group's columns later; what the group streamed in between (its experts' weights)
// evicts them from the L2 unless it fits. The walk is cyclic, so an LRU L2 keeps none of it once it does not fit
// (each line is evicted just before its reuse): the second pass comes all from DRAM past the L2, none below it. Until
// the thirty-eighth session the share 1 - L2 / (a group's weight bytes) came from DRAM; that priced Mixtral-8x7B's w13
// at GROUP_SIZE_M 1 (235 MB an expert) 22-29 % fast on h100-stagecheck (seen there; stagecheck2 holds it out), and
// the all-or-none rule moved no H100 MoE set's median up (h100-lagcheck 4.0 -> 2.8 %, h100-moecheck34 5.0 -> 4.0 %,
// h100-stagecheck 8.9 / 24.4 -> 6.1 / 14.6 %; h100-moeh100d's p90 6.1 -> 6.7 %). An expert of
// b blocks at a uniform offset spans 1 + (b - 1) / group_m groups on average; where every expert takes every token
// (h200-twoblock's fixed routing) the blocks lie end to end and the straddles are counted exactly.
double straddle_reread_bytes(const Op& op, const FusedMoeConfig& c, double padded_tiles, int64_t col_blocks,
                             const Roofs& r) {
  if (op.moe.experts <= 0 || op.moe.experts_touched <= 0 || !(r.card.l2_bytes > 0)) return 0;
  const double expert_bytes = static_cast<double>(op.gemm.n) * static_cast<double>(op.gemm.k) * bytes_of(op.dtype);
  const double blocks_per_expert = std::max(1.0, padded_tiles / static_cast<double>(col_blocks) / op.moe.experts_touched);
  // A group streams its experts' weights, at least one expert's whole (its columns all walked).
  const double group_bytes = std::max(1.0, static_cast<double>(c.group_m) / blocks_per_expert) * expert_bytes;
  const double dram_share = group_bytes > r.card.l2_bytes ? 1.0 : 0.0;
  double experts = 0;  // the extra passes over an expert's weights, summed over the experts
  if (op.moe.top_k >= op.moe.experts) {
    // Every expert takes every token: the same blocks each, laid end to end, so the straddles are exact.
    const int64_t blocks = ceil_div(op.moe.tokens, c.block_m);
    for (int64_t e = 0; e < op.moe.experts; ++e)
      experts += static_cast<double>((e * blocks + blocks - 1) / c.group_m - (e * blocks) / c.group_m);
  } else {
    experts = ops::expected_over_routed_counts(
        op.moe.experts, op.moe.top_k, op.moe.tokens, op.moe.skew, [&](int64_t rows) {
          const int64_t blocks = ceil_div(rows, c.block_m);
          return blocks > 1 ? static_cast<double>(blocks - 1) / static_cast<double>(c.group_m) : 0.0;
        });
  }
  return experts * expert_bytes * dram_share;
}

// Full lines (BLOCK_K x the element at least 128 bytes: vLLM's tuned tiles, the default's decode 16 x 32 x 64).
// h100-stagesweep ran one GEMM's routed rows under eight such configs; a tile's K loop is bound by the stage loads the
// SM takes from the L2 (fused_moe_full_line_s):
//   - their rate: every K step loads BLOCK_M x BLOCK_K of A and BLOCK_K x BLOCK_N of weights, as at half lines, and an
//     SM's loads stream at one rate (128 x 128 x 64 and 64 x 256 x 64 tiles, 51-64 FLOP a loaded byte against
//     128 x 256's 85, ran 13-35 % slower than the MMA price);
//   - their queue: a CTA keeps stages - 1 stage loads in flight (Triton's pipeliner holds one buffer for the MMA), the
//     SM n = resident CTAs x (stages - 1), and the SM's loads run at rate x n / (n + 1): a stage is issued only once
//     the MMA frees its buffer, and the wait for that (the stage before it landing, then its MMA) is about one more
//     stage's transfer, so each load takes its transfer plus that wait shared by the n in flight (a closed loop of n
//     loads, its think time one transfer). What showed it: 128 x 256 tiles at 2 stages took the same time a tile at
//     BLOCK_K 64 and 128 (45.8 / 42.8 us at K 2048), half the rate of many stages in flight, so the lost time grows
//     with the stage's bytes, not a fixed latency; 3 and 4 stages ran 2 / 3 and 3 / 4 of the rate (n / (n + 1));
//   - a tile's ends: its first stage's latency and transfer before the K loop, and the output tile's store after it,
//     are not overlapped by the CTA's own loads, only by the other resident CTAs' (so over the resident CTAs): short
//     K loops paid them (Qwen3-30B's w2, K 768, ran 2.3 us a tile above its K steps' time; h100-tunedncu's Nsight
//     Compute line ~5400 cycles + 19.3 a K element).
// The rate, bytes a tensor clock an SM (the H200 ran these tiles as fast as the H100, h200-stagesweep: the rate is the
// SM's, not the L2's), fitted on h100-stagesweep alone (64 kernels: 43 / 44.5 / 46 gave 5.8 / 11.9, 5.2 / 12.1,
// 4.7 / 14.0 % median / p90; 44.5 x 1.83 GHz = 81 GB/s an SM). The latency is the default tile's bytes in flight over
// its idle CTA rate (cta_rate, Little's law); nothing else is fitted here. A card without a tensor clock takes
// l2_tile_rate by the H100's ratio of the two.
constexpr double kFullLineSmBytesPerClock = 44.5;
constexpr double kFullLineOverL2TileRate = 44.5 / (6999e9 / 132 / 1.83e9);  // the H100's l2_tile_rate, 29.0 B a clock an SM

double full_line_rate(const FusedMoeGemm& f, const Roofs& r) {
  if (r.card.tensor_clock_hz > 0) return kFullLineSmBytesPerClock * r.card.tensor_clock_hz * r.card.sm_count;
  return kFullLineOverL2TileRate * *f.l2_tile_rate;
}

double fused_moe_full_line_s(const Op& op, const FusedMoeConfig& c, double padded_tiles, const FusedMoeGemm& f,
                             const Roofs& r) {
  const double element = bytes_of(op.dtype);
  const double sms = static_cast<double>(r.card.sm_count);
  const double sm_rate = full_line_rate(f, r) / sms;
  const double resident = std::min(static_cast<double>(c.ctas_per_sm), std::ceil(padded_tiles / sms));
  const double stage_bytes = static_cast<double>((c.block_m + c.block_n) * c.block_k) * element;
  const double in_flight = resident * static_cast<double>(std::max<int64_t>(1, c.stages - 1));
  const double load_s = stage_bytes / sm_rate * (1 + 1 / in_flight);
  const double latency_s = 2.0 * 64 * 32 * element / *f.cta_rate;  // the default tile's in flight (in_flight_ratio)
  const double out_bytes = static_cast<double>(c.block_m * c.block_n) * element;
  const double ends_s = (latency_s + (stage_bytes + out_bytes) / sm_rate) / resident;
  const double k_steps = std::ceil(static_cast<double>(op.gemm.k) / static_cast<double>(c.block_k));
  return std::ceil(padded_tiles / sms) * (k_steps * load_s + ends_s);
}

}  // namespace

KernelTimes fused_moe_gemm_cost(const Op& op, const Roofs& r) {
  const FusedMoeGemm& f = r.fused_moe;
  const FusedMoeConfig c = fused_moe_config(op);
  const int64_t groups = op.gemm.batch;                   // touched experts
  const int64_t row_blocks = ceil_div(op.gemm.m, c.block_m);  // per expert, padded to BLOCK_M
  const int64_t col_blocks = ceil_div(op.gemm.n, c.block_n);
  const int64_t tiles = groups * row_blocks * col_blocks;
  const int64_t resident = std::max<int64_t>(1, r.card.sm_count * c.ctas_per_sm);
  // Short independent CTAs: a late CTA starts as soon as a slot frees, so no wave tail.
  const double waves = std::max(1.0, static_cast<double>(tiles) / static_cast<double>(resident));
  // One CTA's K-loop: its expert's BLOCK_N x K weight slab and its row block's share of the routed rows in and out,
  // over the column slabs. At one row block an expert this is the op's bytes over the slabs, the form cta_rate was
  // fitted with (h200-moe5 / -6 / -7); each further row block adds CTAs of its own, not bytes to every CTA's loop.
  // Until the thirty-ninth session the rows were not divided by the row blocks: each CTA was charged its expert's whole
  // A and output columns, the term grew with the tokens squared and priced vLLM's default at 16384 tokens up to 2.7x
  // slow (h100-autocheck: Qwen3-235B-A22B TP 8's w2, K 192, 2680 us against 1009; default 6.7 / 22.5 -> 5.4 / 10.5 %
  // median / p90, h200-autocheck 3.5 / 33.6 -> 3.5 / 11.9 %, h100-tunedbig 9.3 / 20.8 -> 9.3 / 12.7 %,
  // h100-slabcheck 9.0 / 31.5 -> 10.3 / 13.6 %; all seen when this was chosen, autocheck2 holds it out). That growth
  // had stood in for what Mixtral's long-K w2 pays for the align's scattered rows (h100-roworder: sorted rows run at the
  // price), which no term carries: those w2 GEMMs stay 11-37 % fast.
  // The weights are the op's own bytes (their dtype: fp8 / int8 weights under bf16 activations).
  const double routed_rows = static_cast<double>(op.moe.tokens) * static_cast<double>(op.moe.top_k);
  const double weights = op.bytes_read - routed_rows * static_cast<double>(op.gemm.k) * bytes_of(op.dtype);
  const double rows_in_out = op.bytes() - weights;
  const double slab = (weights + rows_in_out / static_cast<double>(row_blocks)) / static_cast<double>(groups * col_blocks);
  const double tile_flops = 2.0 * static_cast<double>(c.block_m) * static_cast<double>(c.block_n) *
                            static_cast<double>(op.gemm.k);
  const double sm_rate = effective_peak(r, op.precision) * *f.mma_efficiency / r.card.sm_count;
  KernelTimes t;
  t.fixed_s = *f.floor_s;
  t.fixed_parts = {{"fused_moe kernel floor", t.fixed_s, "fused_moe"}};
  const bool half_line = c.block_k * bytes_of(op.dtype) < 128 && f.half_line_stream;
  // Half lines: the slots in use (tiles over the resident CTAs, at most all of them).
  const double slots_in_use = half_line ? std::min(1.0, static_cast<double>(tiles) / static_cast<double>(resident)) : 1.0;
  const double cta_rate = *f.cta_rate * c.in_flight_ratio;
  t.memory_s = waves * slab / cta_rate + op.bytes() / *f.stream;
  // The padded row blocks routing leaves (each expert's rows to BLOCK_M: ops::expected_row_blocks), the tiles the
  // MMA and the L2 work through; the memory terms below keep the geometry fit_fused_moe.py fitted them on.
  const double padded_tiles =
      op.moe.experts > 0
          ? ops::expected_row_blocks(op.moe.experts, op.moe.top_k, op.moe.tokens, c.block_m, op.moe.skew) *
                static_cast<double>(col_blocks)
          : static_cast<double>(tiles);
  double half_line_stream_s = 0;  // the weight stream alone, without the K-loops' floor
  if (half_line) {
    // h200-moe7 (see the header): the stream by the CTAs resident an SM, the K-loop's floor beside it.
    const double light = kHalfLineLightStream * *f.half_line_stream;
    const double inv = 1 / light + slots_in_use * (1 / *f.half_line_stream - 1 / light);
    const double rereads = partner_reread_bytes(op, c, padded_tiles, col_blocks, resident, r) +
                           straddle_reread_bytes(op, c, padded_tiles, col_blocks, r);
    half_line_stream_s = (op.bytes() + rereads) * inv;
    t.memory_s = std::max(waves * slab / (kHalfLineLoadedCtaRate * cta_rate), half_line_stream_s);
  }
  if (!half_line && f.l2_tile_rate) {
    const double loads_s = fused_moe_full_line_s(op, c, padded_tiles, f, r);
    // GROUP_SIZE_M's straddle at full lines too (h100-stagecheck: Mixtral-8x7B's w13 at GROUP_SIZE_M 1, each of an
    // expert's row blocks streaming its 235 MB of weights again from DRAM, ran 1.7-2.1x the price without it). The
    // resident CTAs walk resident / col_blocks row blocks at once whatever GROUP_SIZE_M, and those share each weight
    // tile in flight (h100-gmcheck: Mixtral-8x22B's w2, 24 column blocks, ran alike at GROUP_SIZE_M 1 and 2).
    FusedMoeConfig walked = c;
    walked.group_m = std::max(c.group_m, resident / col_blocks);
    const double stream_s = (op.bytes() + straddle_reread_bytes(op, walked, padded_tiles, col_blocks, r)) / *f.stream;
    // The larger of the two, not the half lines' p-norm (l2_stream_norm): before the straddle was all-or-none the norm
    // moved Mixtral-8x7B's w13 at GROUP_SIZE_M 1 (its weights from DRAM, -22 to -29 % on h100-stagecheck) to within
    // 10 %, but it priced the 2-4 row blocks an expert of vLLM's own files 6-12 % slow (h100-tunedh100 4.9 -> 6.2 %).
    t.memory_s = std::max({t.memory_s, loads_s, stream_s});
  }
  if (half_line && f.l2_tile_rate) {
    // h100-prefillncu (see the header): each CTA K step loads BLOCK_M x BLOCK_K of A and BLOCK_K x BLOCK_N of
    // weights through the L2, at one rate.
    const double l2_bytes = padded_tiles * static_cast<double>(op.gemm.k) *
                            static_cast<double>(c.block_m + c.block_n) * bytes_of(op.dtype);
    t.memory_s = std::max(t.memory_s, l2_bytes / *f.l2_tile_rate);
    if (f.l2_stream_norm) {
      // Where the weight stream and the tile loads both near their limits (one or two row blocks an expert:
      // h100-moeh100b / -c / -d priced 7-29 % fast with the larger of the two), they join as a p-norm, the loads
      // counted as they move (the real rows of A: masked rows fetch nothing). The stream alone, not the K-loops'
      // floor: moeh100d's price set had the floor inside the norm, and at many row blocks an expert the floor grows
      // with the waves (h100-moeh100c's 8192-token Qwen3-30B / DeepSeek-V2-Lite +15 / +19 % so). p = 3, chosen on
      // those sets, adopted by h100-moeh100e's rule set before its run (22 new layers: 4.4 / 14.7 % against
      // 7.2 / 18.5 % median / p90).
      const double routed = static_cast<double>(op.moe.tokens) * static_cast<double>(op.moe.top_k);
      const double real_bytes = (padded_tiles / static_cast<double>(col_blocks) * static_cast<double>(op.gemm.n) +
                                 static_cast<double>(col_blocks) * routed) *
                                static_cast<double>(op.gemm.k) * bytes_of(op.dtype);
      const double p = *f.l2_stream_norm, real_s = real_bytes / *f.l2_tile_rate;
      t.memory_s = std::max(t.memory_s, std::pow(std::pow(half_line_stream_s, p) + std::pow(real_s, p), 1 / p));
    }
  }
  t.compute_s = std::ceil(padded_tiles / r.card.sm_count) * tile_flops / sm_rate;
  TilePlan plan;  // what `perfmodel ops` reports: the config's tiles over the padded rows
  plan.tile = {c.block_m, c.block_n};
  plan.tiles = std::max<int64_t>(1, std::llround(padded_tiles));  // the expected padded blocks' tiles
  plan.ctas_per_sm = c.ctas_per_sm;
  plan.waves = std::max<int64_t>(1, ceil_div(plan.tiles, resident));
  plan.wave_efficiency = static_cast<double>(plan.tiles) / (static_cast<double>(plan.waves) * static_cast<double>(resident));
  plan.compute_time_s = t.compute_s;
  plan.k_per_cta = static_cast<double>(op.gemm.k);
  t.tiling = plan;
  return t;
}

}  // namespace perfmodel
