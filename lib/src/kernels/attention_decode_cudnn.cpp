// Kernel kind `attention_decode_cudnn`: decode attention as cuDNN's SDPA runs it on sm90
// (cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x<d>_1x4x1, cuDNN
// 9.19 through PyTorch 2.11; the kernel names are in validation/results/h200-production/kernels.json
// and validation/results/h200-compiled/hf.json). What PyTorch's SDPA picks when it gets an attention
// mask (FlashAttention refuses one), so what transformers' StaticCache runs under torch.compile.
// The fused profile prices a serving engine's decode with it too: the same design (GQA group in the
// query tile, each KV head's cache streamed once) as FlashAttention-3's pack_gqa path, FlashInfer and
// TensorRT-LLM's XQA, with the engine's split choice (engine_decode_cost).
//
// The kernel's query tile is 16 rows (the `16x128x<d>` of its name: 16 queries, 128 keys, head
// dim d), so one decode query pads it 16-fold, not 64-fold as the memory-efficient kernel's 64-row
// tile does: the tensor-core work stays far below the K/V stream and the kernel is memory-bound
// (measured: 4.2-4.5 TB/s on 0.1-1 GB of K/V). A CTA holds one (sequence, KV head) and up to 16 of
// its query heads. When those CTAs leave at least half of the SMs idle, cuDNN splits the key tiles
// over all SMs (the two-kernel launches, with cudnn::fusion::lean_reduction_kernel merging the
// partial rows as Lean Attention's stream-K decomposition does): measured at 8-64 CTAs on the
// H200's 132 SMs, never at 112 or more, and only over more than 4 key tiles (at 32-64 CTAs the
// kernel ran alone up to 512 keys, validation/results/h200-cudnn-decode, and split at 552 keys,
// validation/results/h200-compiled, and from 1024).
// Otherwise each CTA walks its whole cache; a wave takes at least a CTA's latency-bound first tile
// (cta_latency), what short walks at many CTAs show (docs/model.md, "cuDNN decode").
// With cudnn_decode measured and no mask (branch decode16, validation/results/h200-heldout16): CTAs are
// resident as many per SM as the kernel's registers and shared memory allow (2 at head dim 128, 4
// at 64, 1 pair at 256: branch decodeocc's ncu reading, resident_ctas), and n resident CTAs stream at
// min(stream_bandwidth, n x a CTA's own rate): 96 CTAs at head dim 128 read 4.05 TB/s, 160 CTAs
// of one KV head (more than the SMs, one wave when 2 fit an SM) 3.98 TB/s, not the 72 % and two
// waves of a one-CTA-per-SM rule. At head dim 256 one CTA fills an SM and its tile's work is not
// hidden behind another CTA's fetch (kUnhiddenTile): 96 CTAs read 2.75 TB/s. The split takes cuDNN's
// own count (decode_split.hpp, read off its grids by branch splitgrid) and its CTAs walk their share
// of the keys in waves of the resident slots. Branch decodeattn: a CTA's own rate follows its tile's
// size (a fixed wait a tile), so head dim 64's CTAs read 30 GB/s where 128's read 46 (cta_rate).
#include <algorithm>
#include <cmath>

#include "../cost/kernel_costs.hpp"
#include "../cost/overlap.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/engine_decode.hpp"
#include "perfmodel/occupancy.hpp"
#include "op_builders.hpp"
#include "decode_split.hpp"

namespace perfmodel {

Op ops::attention_decode_cudnn(std::string name, int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len,
                               int64_t head_dim, DType act, DType kv) {
  Op op = attention_decode(std::move(name), batch, heads, kv_heads, kv_len, head_dim, act, kv);
  op.kernel = KernelId::attention_decode_cudnn;
  // The merge kernel of the split path is priced in the cost (the split needs the card's SMs);
  // the op counts the SDPA kernel and one pass.
  op.launches = 1;
  op.passes = 1;
  return op;
}

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

constexpr int64_t kQueryTileRows = 16;
constexpr int64_t kKeyTile = 128;         // the `x128x` of the kernel's name
constexpr int64_t kSplitMinKeyTiles = 5;  // no split at 512 keys or fewer
// Branch decode16, fitted with the cudnn_decode block (fit_compiled.py, even cases of
// h200-production, h200-cudnn-decode and h200-heldout16): one CTA's own K/V read rate (its loads
// in flight over the memory latency; like the grouped GEMM's CTA stream, the same on both HBM
// generations to first order, calibration_transfer.cpp), and a 128-key tile's work that nothing
// hides when one CTA fills an SM (head dim 256; set by h200-heldout16 #24 alone). In the code, not
// the calibration file, for now: a new cudnn_decode key changes profile_calibration.hpp and so
// every translation unit (a full rebuild the branch could not afford); moving them is mechanical.
//
// Branch decodeattn refitted the block with a third constant (the same fit, the same halves): a
// 128-key tile costs its CTA a fixed wait (kTileLatency) besides its bytes at kCtaStream, so a
// CTA's own rate follows the tile's size: 30.0 GB/s at head dim 64 against 45.8 at 128. Measured:
// 96 CTAs at d 64 (h200-heldout18 #14, b3 32/32 heads, 7000 keys, held out) read 32 GB/s each where
// 96 at d 128 read 42.5 (h200-heldout18 #17, h200-heldout16 #17); 128 CTAs at d 64
// (h200-cudnn-decode #82-84) 30 GB/s, priced 10 % fast by one rate for every head dim.
//
// Branch decodeknee refitted the three with the eager block (validation/scripts/production/decodeknee.py,
// the same fit half, the resident count of branch decodeocc) once a wave whose CTAs share SMs joins its
// walk and stream at the card's decode_overlap (resident_stream_s): 96.30 GB/s, 0.751 us, 2.459 us before.
// Branch splitgrid refitted them again with cuDNN's split count and merge (87.86 GB/s, 0.726 us, 2.122 us before).
constexpr double kCtaStream = 100.41e9;     // B/s
constexpr double kTileLatency = 0.737e-6;   // s, a 128-key tile's fixed wait (its single K / V stage)
constexpr double kUnhiddenTile = 2.290e-6;  // s
// Branch cudnnsplit: cuDNN's lean_reduction_kernel's own time in a CUDA graph, the median of the
// eight split calls of validation/results/h200-graphroles (1.76-1.92 us at 560-4144 keys, head dim
// 64 and 128; fit set). Held out: the h200-compiled2 steps' merges, 1.87-2.24 us.
constexpr double kGraphMerge = 1.92e-6;  // s

// The kernel's resources as Nsight Compute reads them on the H200 (validation/results/h200-decodeocc/ncu.csv,
// cuDNN 9.19, 128 threads a CTA): registers a thread and dynamic shared memory a CTA, per head-dim
// variant (16x128x64, x128, x256). At head dim 256 the grid's x is 2: two CTAs share each (sequence,
// KV head), so a unit of work takes two slots; read as one CTA a 128-wide slice of the output (the V
// width), so below 256 one (MLA's expanded heads, 192-wide keys and 128-wide values, priced at their
// mean 160: the x256 kernel in the h200-moe steps' traces, whose steps the old count, 2 an SM, priced
// within 1 %). Other head dims run the next larger variant (the x256 one beyond 128, as MLA's does).
struct DecodeKernelResources {
  int registers_per_thread;
  double shared_memory;  // bytes a CTA
  int ctas_per_unit;
};

DecodeKernelResources decode_kernel_resources(int64_t head_dim) {
  if (head_dim <= 64) return {120, 45376.0, 1};
  if (head_dim <= 128) return {183, 86336.0, 1};
  return {160, 86336.0, head_dim >= 256 ? 2 : 1};
}

// (sequence, KV head) units of the kernel resident on one SM: the card's occupancy rules
// (occupancy.cpp) over the measured resources, 2 at head dim 128 (registers and shared memory
// both), 4 at 64 (registers), 1 unit of two CTAs at 256 (shared memory). Branch decodeocc: branch
// decode16's count from shared memory alone (one 128-key K and V stage: 3, 6 and 1) priced 288-320
// CTAs at d 128 as one wave, measured 9-25 % slower (a full wave of 264 and a tail), and 400 as a
// wave and a 4-CTA tail, measured 8-21 % faster; the sweep in h200-decodeocc steps at 264 / 528 CTAs
// (d 128) and 528 (d 64), not 396 / 792. At least 1 (a card without the limits: 1).
int resident_ctas(const Card& card, int64_t head_dim) {
  const SmLimits& L = card.limits;
  if (L.shared_memory_per_sm <= 0 || L.registers_per_sm <= 0 || L.max_threads_per_block < 128) return 1;
  const DecodeKernelResources k = decode_kernel_resources(head_dim);
  if (k.shared_memory > L.shared_memory_per_block || k.registers_per_thread > L.max_registers_per_thread) return 1;
  const Occupancy o = occupancy(card, KernelResources{128, k.registers_per_thread, k.shared_memory}, 1);
  return std::max(1, o.blocks_per_sm / k.ctas_per_unit);
}

// One CTA's K/V read rate (B/s): a 128-key tile (K and V) fetched at cta_stream after the tile's
// fixed wait, plus the tile's unhidden work when the CTA is alone on its SM.
double cta_rate(int64_t head_dim, int resident) {
  const double tile = 4.0 * static_cast<double>(kKeyTile * head_dim);
  const double unhidden = resident == 1 ? kUnhiddenTile : 0.0;
  return tile / (tile / kCtaStream + kTileLatency + unhidden);
}

// Branch splitgrid: the split's merge (cuDNN's lean_reduction_kernel) reads one partial row a split: its
// traced time is 1.68 us + 33 ns a split (x the grid's x, two CTAs a split at head dim 256) over 4-128
// (validation/results/h200-splitgrid, 34 grids; least squares on the kernels' durations, within 0.3 us
// rms at head dims 64 and 128, 0.5 us under at 256). The slope is this; the fixed part is the calibration's
// reduction_floor, a harness time: the traced 1.68 us and the 0.46 us a graph holds the GPU idle after a kernel
// (harness_idle, h200-gemm-chain), 2.14 us, set from those measurements, not fitted (decodeknee.py).
constexpr double kMergePerSplit = 0.033e-6;  // s
// Twenty-sixth session: the merge's grid is (1, heads, batch), one 256-thread CTA a query row (h200-splitgrid's traced
// grids), and it takes longer with the rows at a fixed split count: 4 splits, 480 -> 960 rows, 2.26 -> 2.78 us on the
// H100 (h100-widesplit). The block scheduler hands the CTAs out one by one; each row adds about 1 ns (2 clocks). Fitted
// (least squares on the residual of 1.68 us + 33 ns a split, nothing else refitted) on h200-splitgrid's head-dim 64 /
// 128 merges alone (12-256 rows): 0.987 ns. Held out: h100-widesplit's 20 merges (32-960 rows) 20.2 / 33.0 -> 3.3 /
// 18.5 % (median / p90 of the kernel's traced time), h200-splitgrid's own 1.9 / 14.2 -> 1.9 / 12.6 %.
constexpr double kMergePerRow = 0.987e-9;  // s
// The merge after the x256 kernel (head dims past 128, two CTAs a split, a 256-wide row) takes longer than the
// splits and rows give: h200-splitgrid's six head-dim-256 merges ran 0.38-1.04 us over 1.68 us + 33 ns a grid x +
// kMergePerRow a row (0.4 where the K / V stays within L2, 1.0 far past it; not modelled apart). Their mean, fitted on
// those six alone (twenty-sixth session): 0.714 us. Held out: the H100's 12 x256 merges (h100-widesplit,
// h100-x256check) ran 0.74-1.32 us over the same terms.
constexpr double kWideMerge = 0.714e-6;  // s
// Branch smintake: the K / V bytes an SM takes into the decode CTAs it holds, past the first CTA's walk. Fitted (one
// number, least mean |error| on a grid of 10 GB/s steps) on h200-wideprobe's 20 calls alone: the group stepped 8 ->
// 128 at fixed units and keys, where each further CTA an SM added 2.5 us (d 64, 384 kB) to 10.5 us (d 128, 1.5 MB).
// validation/results/h200-wideprobe/README.md; 200 GB/s is 101 B a clock at 1980 MHz.
constexpr double kSmIntake = 200e9;  // B/s

// The K/V stream's time with the resident CTAs and their own rate (resident_rule): `ctas` CTAs, each
// walking `keys` keys (the whole cache, or a split's share), in waves of the resident slots, the last
// one partial (its CTAs each streaming at most at their own rate). Branch splitgrid: a split's CTAs
// too; they had been priced all at once, which held while the split count kept them within the slots
// and does not at head dim 256, whose measured splits fill two slots an SM (h200-splitgrid).
//
// Branch decodeknee: where an SM holds two or more of a wave's CTAs (past one CTA an SM; at head dim 256
// past 66 units, each two CTAs), their walks share the SM's load path, and as the card's
// stream fills each walk slows: the walk and the stream join as a flash-decoding wave's stream and
// chain do (the card's decode_overlap), not as the larger one. h200-decodeocc's head-dim-256 sweep:
// 152 -> 165 us from 196 to 256 units where the larger stays at 150; head dim 128 at 336-376 CTAs,
// -2 to -5 % before. A CTA alone on its SM keeps the larger one: 96-128 CTAs at head dim 64 and 128
// (h200-cudnn-decode #82-84, h200-heldout16 #17) sit within 1-4 % of it, and the join priced them
// 8-10 % slow (decodeknee.py: joined everywhere, and only where CTAs share an SM).
double resident_stream_s(const Op& op, const Roofs& r, int64_t ctas, int64_t keys, double bandwidth, double dram_share) {
  const int resident = resident_ctas(r.card, op.attention.head_dim);
  const double rate = cta_rate(op.attention.head_dim, resident);
  const double bytes = op.bytes();
  const int64_t sms = std::max(1, r.card.sm_count);
  const int64_t per_unit = decode_kernel_resources(op.attention.head_dim).ctas_per_unit;
  auto join = [&](double stream, double walk, int64_t units) {
    return units * per_unit > sms ? overlapped(stream, walk, r.decode.overlap) : std::max(stream, walk);
  };
  const int64_t slots = static_cast<int64_t>(resident) * sms;
  const double per_cta = bytes / static_cast<double>(ctas);
  // A GQA group wider than the 16-row query tile (Falcon-7B's 71 heads on one KV head: 5 tiles) gives each
  // (sequence, KV head) that many CTAs, each walking the unit's whole K / V; side by side in the grid they read it
  // from DRAM once, the rest from the L2 (h200-heldout31: priced as one walk shared by the tiles, 71 / 1 at batch 2
  // and 150 ran 26 / 38 % slower). The stream keeps per_cta; the walk takes the unit's bytes.
  const AttentionShape& a = op.attention;
  const int64_t group = std::max<int64_t>(1, a.heads / std::max<int64_t>(1, a.kv_heads));
  const double walk_bytes = per_cta * static_cast<double>(ceil_div(group, kQueryTileRows));
  // A CTA alone walks whole 128-key tiles: each pays its fixed wait (and, one CTA an SM, its unhidden work),
  // the last, partial one too; its bytes at the CTA's stream (branch wholetiles: 300 keys are three tiles'
  // waits, not 2.3. Read from h200-heldout23's head-dim-256 misses at 300-1300 keys, -29 / -14 -> -16 / -9 %).
  const double tile_bytes = 4.0 * static_cast<double>(kKeyTile * op.attention.head_dim);
  const double tiles = static_cast<double>(ceil_div(keys, kKeyTile));
  const double walk = walk_bytes / kCtaStream + tiles * (tile_bytes / rate - tile_bytes / kCtaStream);
  // The CTAs sharing an SM take their K / V through its one load path: past the first, each adds its walk's bytes at
  // kSmIntake. It binds where the L2 serves a wide group's rereads and the DRAM stream is short; with a group of 16
  // or fewer the DRAM stream is the longer by several times (branch smintake).
  auto wave = [&](int64_t n) {
    const double per_sm = std::ceil(static_cast<double>(n) / static_cast<double>(sms));
    return std::max(join(static_cast<double>(n) * per_cta * dram_share / bandwidth, walk, n),
                    walk + (per_sm - 1) * walk_bytes / kSmIntake);
  };
  const int64_t full = ctas / slots, rest = ctas % slots;
  return static_cast<double>(full) * wave(slots) + (rest > 0 ? wave(rest) : 0.0);
}

// The resident-CTA rule prices the kernel without a mask (PyTorch's SDPA as the harness and eager
// transformers call it); with the StaticCache's mask (the compiled profile)
// the measured steps keep the one-CTA-per-SM waves: 112 CTAs (Qwen2.5-7B b4) stream 3.76 TB/s,
// 224 (b8) 3.36 TB/s, where unmasked calls read 4.05 TB/s at 96 CTAs and 3.98 at 160
// (validation/results/h200-compiled's profiles against h200-heldout16). Unmeasured: the old rule.
// The fused profile keeps the rule and fit before branch decode16 (its cudnn_decode block prices
// the serving engine's stand-in, whose guards were set on them; docs/accuracy-notes.md), except
// past one CTA an SM with a bf16 cache, where its steps' CTAs are resident as here (branch
// blockdef, engine_decode_cost).
// Branch compres, opt-in (cudnn_decode.masked_resident: 1): alone in a graph the masked call is resident two
// an SM too (h200-maskocc: 37.8 -> 53.1 us from 256 to 288 CTAs; 30 unsplit calls 5.5 / 23.3 -> 4.5 / 8.4 %);
// in the steps the GQA models' calls run slower because repeat_kv's expanded K / V, larger than the L2,
// leave a dirty tail there that is written back under the SDPA before it is read (priced below). Not the
// default: test_compiled_accuracy's kernel-sum p90 (4.0 %) fails at 4.6 % once the SDPA no longer offsets
// the compiled lowering's over-priced small kernels (Llama-3-8B L4 b16 / b64: +3.5 / +4.2 -> +4.7 / +4.5 %).
bool masked_resident(const Roofs& r) {
  return r.profile == "compiled" && r.cudnn_decode.masked_resident && *r.cudnn_decode.masked_resident > 0;
}

bool resident_rule(const Roofs& r) {
  return r.cudnn_decode.measured() && r.profile != "fused" && (r.profile != "compiled" || masked_resident(r));
}

// The kernel's time with or without the split (no split: CTAs in waves). `ctas`: one per
// (sequence, KV head, 16 query rows); `streaming`: the CTAs that stream the keys when split (0:
// one per SM: the old rule). `cudnn`: cuDNN's own kernel (resident_rule may apply); the serving
// engine's stand-in (engine_decode_cost) keeps the old rule: the residency, the CTA's own rate and
// the power-of-two split count were measured on cuDNN's kernel only (FlashAttention-3, FlashInfer
// and the Triton split-KV kernels have their own tiles and split plans; test_quant_kv_accuracy's
// fp8 / bf16 ratios moved past their bounds when the engine took the rule).
KernelTimes decode_times(const Op& op, const Roofs& r, int64_t ctas, bool split, int64_t streaming = 0,
                         bool cudnn = false, bool resident_waves = false, double dram_share = 1.0) {
  const AttentionShape& a = op.attention;
  const CudnnDecode& c = r.cudnn_decode;
  // Unmeasured: the card's launch floor and read rate; the merge as a launch and two dependent sweeps.
  const bool measured = c.measured();
  // Both floors fitted on single-call harness times (fit_compiled.py): each kernel alone in a
  // graph profile (kernel_alone_s), whose step adds its own gap per launch.
  const double floor = kernel_alone_s(measured ? c.kernel_floor_s : r.kernel_floor_s, r);
  const double merge = measured ? kernel_alone_s(c.reduction_floor_s, r)
                                : kernel_alone_s(r.kernel_floor_s, r) + 2 * r.pass_latency_s;
  const double bandwidth = measured ? c.stream_bandwidth : r.read_bandwidth;
  const double sms = static_cast<double>(std::max(1, r.card.sm_count));
  // Unmeasured or masked: one CTA per SM at a time, each streaming at an SM's share of the read rate:
  // the CTAs run in waves and the last wave's idle SMs stream nothing (224 CTAs: two waves at 85 %).
  const double waves = std::ceil(static_cast<double>(ctas) / sms);
  const double fill = split ? 1.0 : static_cast<double>(ctas) / (waves * sms);
  KernelTimes t;
  t.fixed_s = floor + (split ? merge : 0.0);
  const char* key = measured ? "cudnn_decode" : "kernel_floor";
  t.fixed_parts.push_back({measured ? "decode kernel floor" : "decode kernel: the card's launch floor", floor, key});
  if (split)
    t.fixed_parts.push_back({measured ? "reduction kernel floor (the split's merge)" : "merge: a launch and two dependent sweeps",
                             merge, measured ? key : "pass_latency"});
  const bool resident = (cudnn && resident_rule(r)) || (resident_waves && !split);
  // The resident rule's split: `streaming` CTAs, each a split's share of the keys, and a merge that
  // reads a partial row a split (kMergePerSplit; two CTAs a split at head dim 256).
  const int64_t splits = split && resident && streaming > 0 ? std::max<int64_t>(1, streaming / std::max<int64_t>(1, ctas)) : 1;
  if (split && resident && streaming > 0) {
    const double per_split = kMergePerSplit * static_cast<double>(splits * decode_kernel_resources(a.head_dim).ctas_per_unit);
    t.fixed_s += per_split;
    t.fixed_parts.push_back({"the merge's partial rows (lean_reduction, a split each)", per_split, "cudnn_decode"});
    const double per_row = kMergePerRow * static_cast<double>(std::max<int64_t>(1, a.batch) * std::max<int64_t>(1, a.heads));
    t.fixed_s += per_row;
    t.fixed_parts.push_back({"the merge's CTAs (lean_reduction, one a query row)", per_row, "cudnn_decode"});
    if (decode_kernel_resources(a.head_dim).ctas_per_unit > 1) {
      t.fixed_s += kWideMerge;
      t.fixed_parts.push_back({"the merge of a 256-wide row (lean_reduction after the x256 kernel)", kWideMerge, "cudnn_decode"});
    }
  }
  const int64_t walkers = split ? (streaming > 0 ? streaming : r.card.sm_count) : ctas;
  const int64_t walk_keys = split ? ceil_div(a.kv_len, splits) : a.kv_len;
  t.memory_s = with_l2_hit(op, r, resident ? resident_stream_s(op, r, walkers, walk_keys, bandwidth, dram_share)
                                           : op.bytes() * dram_share / (bandwidth * fill));
  // Branch compres: an expanded K / V larger than the L2 leaves its last-written tail dirty there; the
  // kernel reads the cache from its start, so the tail is evicted (written back) before it is read.
  const double l2 = r.l2_cyclic_capacity;
  if (masked_resident(r) && op.l2_dirty_bytes > l2 && l2 > 0 && r.write_bandwidth > 0)
    t.memory_s += l2 * -std::expm1(-(op.l2_dirty_bytes - l2) / l2) / r.write_bandwidth;
  if (!split && measured && c.cta_latency_s)
    t.memory_s = std::max(t.memory_s, waves * *c.cta_latency_s * static_cast<double>(a.head_dim) / 128.0);
  // QK^T and PV over the padded 16-row tile of every CTA.
  const double padded = 4.0 * static_cast<double>(ctas * kQueryTileRows) * static_cast<double>(a.kv_len) *
                        static_cast<double>(a.head_dim);
  const double peak = effective_peak(r, op.precision);
  t.compute_s = peak > 0 ? padded / peak : 0.0;
  // An fp8 cache's conversion (0 otherwise), on the busiest SM's chain of keys (kv_cache_cost.cpp):
  // split, the keys spread over the SMs, at least one key tile a CTA; whole, each wave's CTA walks
  // the whole cache (never less than the card-wide share, kv_convert_s).
  const double keys = static_cast<double>(a.kv_len);
  const double chain_keys = split ? std::max(static_cast<double>(ctas) * keys / sms, std::min(keys, double{kKeyTile}))
                                  : waves * keys;
  t.compute_s = std::max(t.compute_s, kv_convert_chain_s(op, r, chain_keys));
  return t;
}

double total(const KernelTimes& t) { return t.fixed_s + std::max(t.compute_s, t.memory_s); }

int64_t decode_ctas(const AttentionShape& a) {
  const int64_t kv_heads = std::max<int64_t>(1, a.kv_heads);
  const int64_t group = std::max<int64_t>(1, a.heads / kv_heads);
  return std::max<int64_t>(1, a.batch) * kv_heads * ceil_div(group, kQueryTileRows);
}

// The masked decode inside a compiled step's CUDA graph (branch cudnnsplit, issue 10). The
// StaticCache path repeats K / V (repeat_kv) before SDPA, so the call is MHA-shaped (kv_heads ==
// heads, compiled_profile.cpp) and cuDNN's grid is (splits, heads, batch). Its split count follows
// the KEY COUNT, not the SMs (cudnn_graph_splits, decode_split.hpp: h200-graphroles and every
// h200-compiled2 split grid). The split CTAs run one an SM in waves, each at least a short walk's
// least time (cta_latency x d / 128, the non-split wave law); the merge is its own in-graph time
// plus the idle a graph holds after a kernel (the op counts one launch; stream_cost.cpp's
// convention for a split's further kernels).
bool graph_split_rule(const Op& op, const Roofs& r) {
  return r.cudnn_decode.measured() && r.profile == "compiled" && op.attention.kv_heads == op.attention.heads;
}

KernelTimes graph_split_times(const Op& op, const Roofs& r, int64_t ctas) {
  const AttentionShape& a = op.attention;
  const CudnnDecode& c = r.cudnn_decode;
  const int sms = std::max(1, r.card.sm_count);
  const int64_t splits = cudnn_graph_splits(a.kv_len, ctas, sms);
  const double waves = std::ceil(static_cast<double>(ctas * splits) / sms);
  KernelTimes t;
  const double floor = kernel_alone_s(c.kernel_floor_s, r);
  const double merge = kGraphMerge + r.graph_kernel_gap_s;
  t.fixed_s = floor + merge;
  t.fixed_parts.push_back({"decode kernel floor", floor, "cudnn_decode"});
  t.fixed_parts.push_back({"the split's merge in a graph (lean_reduction) and the graph's gap before it", merge, "graph_kernel_gap"});
  const double fill = static_cast<double>(ctas * splits) / (waves * sms);
  t.memory_s = with_l2_hit(op, r, op.bytes() / (c.stream_bandwidth * fill));
  if (c.cta_latency_s) t.memory_s = std::max(t.memory_s, waves * *c.cta_latency_s * static_cast<double>(a.head_dim) / 128.0);
  const double padded = 4.0 * static_cast<double>(ctas * kQueryTileRows) * static_cast<double>(a.kv_len) *
                        static_cast<double>(a.head_dim);
  const double peak = effective_peak(r, op.precision);
  t.compute_s = peak > 0 ? padded / peak : 0.0;
  return t;
}

// A head dim between 128 and 256 runs the x256 variant (h200-headdims' kernel names at 160 and 192). With values
// wider than 128 its grid holds two CTAs a (sequence, KV head), each a 128-wide slice of the output over the whole
// padded key row, as at 256: the call walks as the 256 one does at the same shape (h200-headdims: 82.9 / 84.1 us at
// 160 / 192, b1 x 16 heads x 16000 keys, where 256's price is 84.5; at its own dim it was priced 35-46 % fast).
// MLA's expanded heads (values of 128) keep one CTA a unit at their mean dim, as their steps were priced.
bool runs_as_x256(const AttentionShape& a) {
  const int64_t values = a.v_head_dim > 0 ? a.v_head_dim : a.head_dim;
  return a.head_dim > 128 && a.head_dim < 256 && values > 128;
}

Op as_x256(const Op& op) {
  Op p = op;
  const double scale = 256.0 / static_cast<double>(op.attention.head_dim);
  p.attention.head_dim = 256;
  p.attention.v_head_dim = 0;
  p.bytes_read *= scale;  // the padded rows, as the 256 call reads them
  p.bytes_written *= scale;
  p.flops *= scale;
  return p;
}

// cuDNN's own rule (measured through PyTorch's SDPA): split when half the SMs or more sit idle and
// the walk is over 4 key tiles. `dram_share`: the bytes DRAM delivers over the bytes the call is priced with (below 1
// for the x256 kernel at a narrower head dim).
KernelTimes cudnn_call_cost(const Op& op, const Roofs& r, double dram_share) {
  const int64_t ctas = decode_ctas(op.attention);
  const int sms = std::max(1, r.card.sm_count);
  const bool split = 2 * ctas <= sms && ceil_div(op.attention.kv_len, kKeyTile) >= kSplitMinKeyTiles;
  if (split && graph_split_rule(op, r)) return graph_split_times(op, r, ctas);
  // The resident rule prices the split's CTAs: cuDNN's split count, the one its graph calls take
  // (decode_split.hpp; branch splitgrid read it off 34 unmasked grids); otherwise every SM.
  const bool split_count = split && resident_rule(r);
  return decode_times(op, r, ctas, split, split_count ? ctas * cudnn_graph_splits(op.attention.kv_len, ctas, sms) : 0, true,
                      false, dram_share);
}

// Twenty-sixth session: the x256 kernel walks the padded row, but DRAM delivers the call's own rows (the tile's
// loads past the row are filled, not fetched). Where the walk binds (the H200 at batch 32-128: d 160 / 192 run 0.93 /
// 0.92 of the 256 call's time) the price is the 256 call's; where the DRAM stream binds (the H100, whose HBM is 30 %
// slower: 0.84 / 0.89) it is the stream of the call's own bytes. No parameter.
KernelTimes cudnn_decode_cost(const Op& op, const Roofs& r, const Tile*) {
  if (runs_as_x256(op.attention))
    return cudnn_call_cost(as_x256(op), r, static_cast<double>(op.attention.head_dim) / 256.0);
  return cudnn_call_cost(op, r, 1.0);
}

Op from_case(const KernelCase& c, bool) {
  return ops::attention_decode_cudnn(c.name, c.batch, c.heads, c.kv_heads, c.kv_len, c.head_dim, c.dtype, c.dtype);
}

}  // namespace

// A serving engine's scheduler splits the keys whenever the CTAs leave SMs idle and the split is
// faster (FlashAttention-3's num_splits heuristic, FlashInfer's balanced split-KV): no cliff where
// cuDNN's rule starts splitting at 5 key tiles, so the time never drops as the context grows.
//
// Past one CTA per SM (more CTAs than SMs, never split) with a bf16 cache, the step's decode is
// cuDNN's kernel (h200-fused-step-cudnn's kernel names: ..._16x128x<d>_1x4x1 at head dims 64 and
// 128) and its CTAs are resident several to an SM (resident_ctas: 2 at head dim 128, 4 at 64), as
// branch decode16 measured it alone (validation/results/h200-heldout16: 160 CTAs of one KV head in
// one wave at 3.98 TB/s): no last wave with idle SMs. In the steps, Llama-3-8B b128 ctx4096 (1024
// CTAs) streams its 2.15 GB a layer in 490 us, 4.38 TB/s, where the one-CTA-per-SM waves (8 waves,
// the last 76 % full) priced 509 us. Below the SM count the one-CTA rule stays (its floors and
// cta_latency were fitted with it); an fp8 cache keeps it too (the Triton split-KV kernel's own
// tiles; test_quant_kv_accuracy). No new parameter.
KernelTimes engine_decode_cost(const Op& op, const Roofs& r) {
  const int64_t ctas = decode_ctas(op.attention);
  const bool many = ctas > std::max(1, r.card.sm_count);
  const KernelTimes whole = decode_times(op, r, ctas, false, 0, false, many && op.kv_cache != DType::fp8);
  if (ctas >= std::max(1, r.card.sm_count)) return whole;
  const KernelTimes split = decode_times(op, r, ctas, true);
  return total(split) < total(whole) ? split : whole;
}

// The engine's decode with the split decision given (engine_decode.hpp): for a harness that ran
// its own split plan.
KernelTimes engine_decode_cost_as(const Op& op, const Roofs& r, bool split) {
  return decode_times(op, r, decode_ctas(op.attention), split);
}

const KernelDef& kernel_def_attention_decode_cudnn() {
  static const KernelDef d{.id = KernelId::attention_decode_cudnn,
                           .name = "attention_decode_cudnn",
                           .accuracy_set = "attention",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = cudnn_decode_cost};
  return d;
}

}  // namespace perfmodel
