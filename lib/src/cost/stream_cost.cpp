// Memory-bound kernels: elementwise maps, row kernels (norms, softmax), chains of kernels
// (unfused GELU, naive softmax), rotary, KV append, embedding (docs/model.md, "small kernels").
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "inductor_lone_warp.hpp"
#include "inductor_masks.hpp"
#include "inductor_rms_queue.hpp"
#include "inductor_split.hpp"
#include "inductor_one_warp.hpp"
#include "inductor_one_row.hpp"
#include "inductor_waves.hpp"
#include "inductor_walk.hpp"
#include "kernel_costs.hpp"
#include "overlap.hpp"
#include "stream_rate.hpp"
#include "perfmodel/instructions.hpp"
#include "perfmodel/l2_residency.hpp"

namespace perfmodel {

namespace {

// What one thread's chain of dependent work adds to a small kernel beyond a copy's: index
// arithmetic (64-bit divisions), dependent index loads (embedding ids, rotary positions), block
// reductions, the math between load and store. Latency, not throughput: it shows when the
// grid is too small to hide it, and it is the same whether the data comes from L2 or DRAM.
// Calibrated per kernel on tiny L2-resident launches, per iteration of the thread's loop (a
// norm's thread walks its share of a row in cols / (8 x 256) steps, each waiting on the last);
// uncalibrated, the thread's instructions beyond a copy's (one copy per kernel of a chain) each
// wait the dependent-issue latency of a warp alone on its scheduler (the flash-decoding cpi,
// docs/model.md).
std::optional<double> inductor_issue_s(const Op& op, const Roofs& r);

// Inductor's rms_norm row (more than 1024 columns, a looped reduction) up to 4096 columns runs in
// one block: the autotuner's two candidates are the whole row (R0_BLOCK 4096, 16 warps, 8 elements
// a thread) and 2048-column blocks, and the whole row is the faster at every 2049-4096 pair timed
// alone (validation/results/h200-eltwise5/configs.json: 1 / 128 x 4096 1.53 / 2.92 against 1.59 /
// 3.31 us, 64 x 2560 2.51 / 2.80, 1000 x 3072 6.22 / 6.51); up to 2048 columns the block holds the
// row anyway (XBLOCK 2, R0_BLOCK 2048). So the thread walks its share in one iteration, not the
// backend's 256-thread cols / 2048 (h200-fusedsmall: add+RMSNorm takes 2.02 us at 8 x 4096 and
// 2.05 at 8 x 2048, cold). Wider rows keep the backend's count (the 2048-column walk, or 16-32
// elements a thread in the wider whole-row block: its chain is not one iteration's).
int64_t chain_iterations(const Op& op, const Roofs& r) {
  constexpr int64_t whole_row_cols = 4096;
  const int64_t vec = std::max<int64_t>(1, static_cast<int64_t>(16 / bytes_of(op.dtype)));
  if (op.kernel == KernelId::rmsnorm && op.cols <= whole_row_cols && op.cols % vec == 0 && inductor_issue_s(op, r))
    return 1;
  return thread_iterations(op.kernel, op.cols, op.dtype);
}

double thread_chain_time(const Op& op, const Roofs& r) {
  const Measured& measured = r.thread_chain_s[static_cast<size_t>(op.kernel)];
  // At one row the lone CTA's chain follows its elements a thread (inductor_one_row.cpp).
  if (measured) return std::max(0.0, *measured * static_cast<double>(chain_iterations(op, r)) + inductor_one_row_chain_s(op, r));
  if (r.card.cuda_clock_hz <= 0 || op.cols <= 0) return 0;
  const double extra = thread_instructions(op.kernel, op.cols, op.dtype) -
                       op.launches * thread_instructions(KernelId::copy, op.cols, op.dtype);
  return std::max(0.0, extra) * r.decode.cpi / r.card.cuda_clock_hz;
}

// Inductor's row reductions (InductorKernels, profile_calibration.hpp; the generated code:
// validation/results/h200-eltwise4/inductor_code.json). Up to 1024 columns a persistent reduction
// reads the row once into registers, several rows a CTA: stream-bound, no issue roof (the
// 32768 x 1024 calls of all three ops take the stream's 35.5-35.8 us; the backend's instruction
// count priced softmax there 69 % over). Wider rows a looped
// reduction: one 16-warp CTA per row walks it twice in 2048-column blocks (statistics, then the
// normalized write), the last block masked but issued in full, so the SM's issue time counts the
// padded row. An SM holds ceil(rows / SMs) rows; the first one's issue hides under its own round
// trips (the fixed latency below), each further row queues behind. An op whose fit cases follow
// the bytes, not the padded walk, has no rate (rms_norm's cheap loop: fit_inductor.py) and streams.
// Empty when the profile has no Inductor rates (the backend's kernels: the issue roof of their
// instruction count).
constexpr int64_t inductor_persistent_cols = 1024;

double inductor_rate(const Op& op, const InductorKernels& k) {
  return op.kernel == KernelId::rmsnorm ? k.rmsnorm_rate : op.kernel == KernelId::layernorm ? k.layernorm_rate : k.softmax_rate;
}

std::optional<double> inductor_issue_s(const Op& op, const Roofs& r) {
  const InductorKernels& k = r.inductor;
  const bool row_op = op.kernel == KernelId::rmsnorm || op.kernel == KernelId::layernorm ||
                      op.kernel == KernelId::softmax_fused;
  if (!row_op || !k.measured() || op.launches != 1 || op.rows <= 0) return std::nullopt;
  const double rate = inductor_rate(op, k);
  constexpr int64_t block = 2048;
  if (op.cols <= inductor_persistent_cols || rate <= 0) return 0.0;
  const double sms = static_cast<double>(r.card.sm_count);
  const double padded = static_cast<double>((op.cols + block - 1) / block * block);
  // Rows a CTA: Inductor's contiguous reduction config is XBLOCK 2 while the row's size hint (the
  // power of two at or above the columns) is at most 2048, 1 beyond (torch/_inductor/runtime/
  // triton_heuristics.py, _reduction_configs: make_config(2 if rnumel <= 2048 else 1, ...); PyTorch
  // 2.11). h200-eltwise5/configs.json: XBLOCK 2 at 24 x 1536 and 256 x 2048, kernels.json's
  // `autotuned` at 24576 x 2048 (and every case of h200-eltwise9). An SM's CTAs then hold their
  // rows in pairs: 24 rows are 12 CTAs of 2, so each busy SM issues a second row behind the first,
  // where one row a CTA left it none; one CTA past 8 an SM (1058 x 2048) adds two rows' issue, not
  // one (h200-eltwise9: +0.82 / +1.38 us for layer_norm / softmax; two rows priced +0.78 / +1.19).
  const double xblock = op.cols <= block ? 2.0 : 1.0;
  const double per_sm = std::ceil(std::ceil(static_cast<double>(op.rows) / xblock) / sms) * xblock;
  // A layer_norm kernel with no masks issues fewer instructions a row (inductor_masks.cpp).
  const double row = padded / (rate / sms) * inductor_mask_weight(op);
  // Branch inductorrow: a one-block row with a column mask issues its count (inductor_masks.cpp,
  // inductor_one_block_weight) once the SM queues CTAs past its first resident wave (4 CTAs of two rows,
  // inductor_lockstep_s); within the wave the CTAs' issue runs under each other's loads at the rate
  // (h200-eltwise9: 266 x 1536 adds 0.68 us for a second CTA of two rows on one SM, the rate's 0.77).
  constexpr double first_wave_rows = 2.0 * (2048 / (16 * 32));
  const double beyond = op.cols <= block ? std::max(0.0, per_sm - first_wave_rows) : 0.0;
  // Branch walkstep: where the walk prices the row (past walk_from_cols), an SM of more than one round
  // of resident CTAs drains its last one alone (inductor_walk.cpp).
  const bool walked = k.walk_measured() && op.cols > inductor_persistent_cols && static_cast<double>(op.cols) >= k.walk_from_cols;
  const double drain = walked ? inductor_drain_rows(op, per_sm, padded / block) : 0.0;
  return ((per_sm - 1) - beyond + beyond * inductor_one_block_weight(op) + drain) * row;
}

// The SM's first resident CTAs of a looped reduction of at most 2048 columns run in lockstep (branch
// eltwise11, validation/results/h200-eltwise11). There the row is one block (XBLOCK 2, R0_BLOCK 2048,
// 16 warps: a 512-thread CTA of two rows, 8 elements a thread; inductor_issue_s), so each sweep is
// one load of both rows, then its math: the CTAs that start together (up to 2048 threads / 512 = 4
// an SM; the layer_norm kernel holds 32 registers a thread, h200-eltwise11's n_regs, so 4 fit) all
// wait on their loads, which cross DRAM together, before any of them issues, and then issue one
// after another. Their stream and their issue add, where later CTAs (past the first resident
// wave) load while others issue: the max of the two, as priced. What the first wave's CTAs after
// the first (whose loads the sweep's round trip already holds) lose is the smaller of their issue
// and their share of the stream. h200-eltwise9 / -eltwise11: 264 -> 1056 x 2048 (1 -> 4 CTAs an
// SM) adds 1.06-1.40 us a CTA for layer_norm, its issue alone 0.77; 24576 x 2048 (93 an SM) runs at
// 0.82 us a CTA, the issue's. Wider rows walk 2048-column blocks, each CTA's loads of the next
// block overlapping the others' math: not priced. No parameter.
double inductor_lockstep_s(const Op& op, const Roofs& r, double memory_s) {
  constexpr int64_t block = 2048, resident = 2048 / (16 * 32);
  const double rate = inductor_rate(op, r.inductor);
  const double sms = static_cast<double>(r.card.sm_count);
  if (op.cols <= inductor_persistent_cols || op.cols > block || rate <= 0 || sms <= 0 || op.rows <= 0) return 0;
  const double ctas = std::ceil(static_cast<double>(op.rows) / 2.0);  // two rows a CTA
  const double wave = std::min<double>(std::ceil(ctas / sms), resident);  // CTAs an SM that start together
  // The first wave's CTAs past one an SM: their issue, and their share of the launch's stream.
  const double later = std::min(ctas, wave * sms) - std::min(ctas, sms);
  if (later <= 0) return 0;
  const double issue = (wave - 1) * 2.0 * static_cast<double>(block) / (rate / sms);
  const double stream = later / ctas * memory_s;
  return std::min(issue, stream);
}

// Softmax's single-block kernel (at most 2048 columns: XBLOCK 2, R0_BLOCK 2048, one block a sweep)
// computes after each of its loads: each element's online max and sum (two exps) after the first,
// its exp and divide after the second (validation/results/h200-eltwise9/inductor_code.json), and
// with one block a sweep (num_stages 1) no later block's load overlaps that math. So a CTA's first
// row's issue adds to its round trips, where inductor_issue_s hides it (branch eltwise11). A lone
// CTA (at most one an SM) measures 0.34-0.83 us over the price that hides it (h200-eltwise3's
// 24 x 1536, h200-production's 256 x 2048, h200-eltwise9's and -eltwise11's 132-266 rows; one
// row's issue is 0.59 us). layer_norm's lone CTA fits within 9 % as priced (the backend's three
// sweeps, its issue hidden) at those calls, and with its issue exposed goes to +5-16 % (tried, not
// adopted): its first sweep is Welford's first iteration (roffset == 0 copies the value, no
// division: torch/_inductor/runtime/triton_helpers.py, welford_reduce), its second a multiply-add;
// its divisions sit in the block's combine tree, which the third sweep's round trip stands for.
// No parameter.
double inductor_exposed_issue_s(const Op& op, const Roofs& r) {
  constexpr int64_t block = 2048;
  const double rate = inductor_rate(op, r.inductor);
  if (op.kernel != KernelId::softmax_fused || op.cols <= inductor_persistent_cols || op.cols > block || rate <= 0)
    return 0;
  return static_cast<double>(block) / (rate / static_cast<double>(r.card.sm_count));
}

// The looped reduction's walk (branch eltwise6, validation/results/h200-eltwise6): Inductor runs it
// with num_stages 1 (inductor_code.json: every candidate), so each 2048-column block's loads wait on
// the block before: a row takes a fixed chain (its first touch, the cross-warp reductions between
// the sweeps, the store's drain: looped_row_s, one for all ops) and each block of the padded row
// a dependent time of its op (the block's loads, math and accumulation in both sweeps, one block
// waiting on the last: *_block_s). 33 to 132 rows of 8192 columns take 4.1-5.7 us, 2048 to 8192
// columns at one row per SM grow ~0.5-0.8 us a block: the walk, not the bytes, sets the time at
// few rows per SM. Replaces the backend's sweeps, thread chain and row window (their loop is not
// Inductor's). Fitted by fit_inductor.py into the opt-in calibration
// validation/results/h200-eltwise6/h200.calibration.walk.yaml; empty without its keys (the default).
std::optional<double> inductor_walk_s(const Op& op, const Roofs& r) {
  const InductorKernels& k = r.inductor;
  // An op that streams (no rate: rms_norm) keeps the backend's sweeps: its light loop hides the walk.
  // walk_from_cols (branch eltwise14): the walk only where the calibration prices it, e.g. past two
  // blocks, where it is the candidate the autotuner usually keeps (validation/results/h200-eltwise14).
  if (!k.walk_measured() || op.cols <= inductor_persistent_cols || static_cast<double>(op.cols) < k.walk_from_cols ||
      !inductor_issue_s(op, r) || inductor_rate(op, k) <= 0)
    return std::nullopt;
  const double block = op.kernel == KernelId::layernorm ? k.layernorm_block_s : k.softmax_block_s;
  const double blocks = static_cast<double>((op.cols + 2047) / 2048);
  // The autotuner times two candidates and keeps the faster (branch eltwise7): the 2048-column walk
  // above, and the whole row in one block (R0_BLOCK the power of two at or above the columns). Up to
  // 4096 columns that block is 16 warps of 8 elements a thread: the row's loads in one round trip a
  // sweep where the walk waits two, the same padded row issued. Both candidates timed alone
  // (validation/results/h200-eltwise5/configs.json, h200-eltwise7/configs.json): the whole row is
  // 0.3-0.45 us faster at 2560-4096 columns and few rows, and Inductor's own benchmark ranks them
  // so. whole_row_saved: the round trips saved, one figure for both ops (fit_inductor.py). Wider,
  // the whole row holds 16-32 elements a thread in per-lane accumulators (Welford's three, softmax's
  // two) and alone is never faster at few rows (384 x 6144: layer_norm 7.07 against 5.98 us,
  // softmax 10.27 against 8.29): not priced.
  const double saved = op.cols > 2048 && op.cols <= 4096 && op.passes > 1 ? k.whole_row_saved_s : 0.0;
  // A split reduction's partial kernel (inductor_split_cost) walks its blocks once: the statistics'
  // sweep, half of each block's two-sweep time.
  const double sweeps = op.passes == 1 ? 0.5 : 1.0;
  // Fitted on DRAM-fed rows. The row's first touch waits on L2 for the share of a re-run working
  // set still there; the blocks' chains do not shorten (h200-production's 1 x 4096 calls rotate
  // 16-33 MB: +40-70 % with the whole walk DRAM-fed, -20 % with all of it scaled to L2's latency).
  const double scale = r.pass_latency_s > 0 ? op.l2_hit * r.l2_pass_latency_s / r.pass_latency_s + (1 - op.l2_hit) : 1;
  // A lone CTA's block is mostly its own issue: the row's issue at the SM's rate (2048 / (rate /
  // SMs) a block) is 0.38 of layernorm_block's 0.50 us and 0.59 of softmax_block's 0.72 (the
  // compiled rates), a block's dependent time its issue and a short wait. The block times were
  // fitted on calls that all kept their row mask (at most 132 rows); a layer_norm whose rows are a
  // multiple of 4096 drops it and issues fewer instructions a row (inductor_masks.cpp, branches
  // eltwise12 / -13: Nsight Compute counts), so its walk is shorter by the issue it saves. No
  // parameter (branch eltdef): the unmasked 8192 x 14336 was priced +3.3 % by the walk, where the
  // default's sweeps price +1.9 %.
  const double row_issue = blocks * 2048.0 / (inductor_rate(op, k) / static_cast<double>(r.card.sm_count));
  // Branch rowops17: a both-mask row past 7 blocks issues more a block than the fit's (a negative saving).
  const double mask_saving = sweeps * inductor_walk_mask_share(op) * row_issue;
  return k.looped_row_s * scale + sweeps * blocks * block - saved - mask_saving;
}

}  // namespace

double kernel_alone_s(double harness_floor_s, const Roofs& r) {
  return std::max(0.0, harness_floor_s - r.harness_idle_s);
}

KernelTimes stream_cost(const Op& op, const Roofs& r, const Tile*) {
  if (const std::optional<KernelTimes> aten = aten_kernel_cost(op, r)) return *aten;  // PyTorch's own kernels
  if (const std::optional<KernelTimes> split = inductor_split_cost(op, r)) return *split;
  KernelTimes t;
  const Card& card = r.card;
  if (const std::optional<double> walk = inductor_walk_s(op, r)) {
    // Inductor's looped reduction: the floor and the first row's walk, then the further rows'
    // queue or the DRAM stream, whichever is longer. The stream adds to the walk: each block's
    // loads of all the rows in flight at once cross DRAM together.
    t.fixed_s = kernel_alone_s(r.kernel_floor_s, r) + *walk;
    t.compute_s = inductor_issue_s(op, r).value_or(0);
    t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
    t.fixed_s += inductor_lockstep_s(op, r, t.memory_s);
    return t;
  }
  const bool has_flops = op.flops > 0;
  const double peak = has_flops ? effective_peak(r, op.precision) : 0;
  // The card's floor is an empty kernel's graph replay / launches, the idle after it included:
  // a graph profile prices the kernel alone and its step adds the gap (kernel_alone_s).
  t.fixed_s = op.launches * kernel_alone_s(r.kernel_floor_s, r);
  // Multi-kernel chains (unfused GELU, naive softmax): each kernel after the first reads what the
  // previous one just wrote. Between the write and the read of a line pass the rest of that
  // tensor and of the one being written: the share still in L2 after twice the tensor's bytes
  // (l2_residency.hpp) is read from L2.
  const double elems = static_cast<double>(op.rows) * static_cast<double>(op.cols);
  const bool chain = op.launches > 1 && op.kind != OpKind::attention && elems > 0;
  const double chain_hit = chain ? cyclic_l2_hit(2 * elems * bytes_of(op.dtype), r.l2_cyclic_capacity) : 0.0;

  if (has_flops) t.compute_s = op.flops / peak;
  // Issue roof: the kernel's warp instructions at the SMs' issue rate. Inductor's persistent
  // reductions have none (stream-bound); its looped ones are bound by it and by their padded walks.
  const std::optional<double> inductor = inductor_issue_s(op, r);
  const bool persistent = inductor && op.cols <= inductor_persistent_cols;
  const bool streams = persistent || (inductor && inductor_rate(op, r.inductor) <= 0);  // no issue roof
  if (!streams && op.instructions > 0 && r.issue_rate > 0)
    t.compute_s = std::max(t.compute_s, op.instructions / card.limits.warp_size / r.issue_rate);
  // An Inductor copy whose autotuned block leaves its warps alone on their schedulers at this size
  // issues at the lone warp's rate (inductor_lone_warp.cpp: the group quantization's indexed copy).
  if (const std::optional<double> lone = inductor_lone_warp_issue_s(op, r)) t.compute_s = std::max(t.compute_s, *lone);
  if (inductor) t.compute_s = std::max(t.compute_s, *inductor);
  // rms_norm's looped kernel at many rows an SM: its resident rows' groups queue (inductor_rms_queue.cpp).
  if (inductor) t.compute_s = std::max(t.compute_s, inductor_rms_queue_s(op, r));
  // One round trip per dependent sweep, to where its data is: first touches wait on DRAM, or
  // on L2 for the share of a re-run working set that is still there; re-reads of what an
  // earlier sweep brought in on L2; a chain's later kernels on L2 for the share of the last
  // kernel's output that is still there.
  const double l2 = r.l2_pass_latency_s, dram = r.pass_latency_s;
  const double first = op.l2_hit * l2 + (1 - op.l2_hit) * dram;
  // Inductor's persistent reductions load the row and the weight once, together, into registers
  // (inductor_code.json: one tl.load of each at the top), reduce, then store: one DRAM round trip
  // and the store's drain, an L2 one, where the backend's rms_norm sweeps twice with the weight a
  // first touch: h200-eltwise4's 2048 x 768 rms_norm +16 -> +3 % (validation/results/
  // h200-eltwise5/README.md). layer_norm keeps the backend's three sweeps: its Welford combine
  // tree (a division a step) is a longer chain than one sweep stands for (one load sweep priced
  // h200-eltwise3's 1 x 896 -16 % and h200-eltwise5's 640 x 1000 -20 %, where 2048 x 768 went
  // +22 -> -3 %: not adopted). Looped reductions keep the backend's sweeps too: their block loop
  // runs unpipelined (num_stages 1), each block's load a round trip, which those sweeps stand for.
  const bool one_load = persistent && op.kernel == KernelId::rmsnorm;
  // Inductor's one-warp persistent reductions (inductor_one_warp.cpp, branch eltwise10): the row is
  // loaded once and every later stage (layer_norm's Welford combine, then the normalized store;
  // softmax's max, sum and store) is a shuffle tree inside the warp, no shared memory and no barrier:
  // one DRAM round trip, each further stage an L2 one, as rms_norm's one load above. layer_norm's
  // multi-warp kernels (1 x 896, 4 x 1024) keep the backend's sweeps.
  const std::optional<OneWarpLaunch> one_warp = persistent ? inductor_one_warp(op, card) : std::nullopt;
  const int passes = one_load ? 2 : op.passes;
  const int reread = one_warp ? passes - 1 : one_load ? 1 : std::clamp(op.reread_passes, 0, std::max(0, op.passes - 1));
  t.fixed_s += chain ? first + (op.passes - 1) * (chain_hit * l2 + (1 - chain_hit) * dram)
                     : (passes - reread) * first + reread * l2;
  if (!one_warp) t.fixed_s += thread_chain_time(op, r);
  // The eager activation quantization's ATen kernels: their stores drain before the next kernel
  // of the chain starts (Op::store_drain; branch actqeager).
  if (op.store_drain) t.fixed_s += r.l2_pass_latency_s;
  // Inductor's small-block pointwise kernels (fused prefill rotary + KV write): each further wave
  // of resident CTAs waits one CTA's chain, the sweep and the thread chain above (inductor_waves.cpp).
  // Latency-bound issue work, it competes with the stream and slows with the capped clock.
  if (const std::optional<double> waves =
          inductor_block_waves_s(op, r, (passes - reread) * first + reread * l2 + thread_chain_time(op, r)))
    t.compute_s = std::max(t.compute_s, *waves);

  t.memory_s = stream_memory_s(op, r);
  // Multi-kernel chains: the share of the intermediates still in L2 streams at the L2 rate; only
  // the chain's first input and last output must cross DRAM.
  if (chain && chain_hit > 0) {
    const double edge = elems * bytes_of(op.dtype);
    const double inner = op.bytes() - 2 * edge;
    if (inner > 0)
      t.memory_s = chain_hit * (edge / r.read_bandwidth + edge / r.write_bandwidth + inner / r.l2_bandwidth) +
                   (1 - chain_hit) * t.memory_s;
  }
  t.memory_s = with_l2_hit(op, r, t.memory_s);
  // A copy that re-reads its source (an expand materialized) moves its loads and stores through L2
  // at L2's rate (stream_rate.hpp: repeat_kv).
  t.memory_s = std::max(t.memory_s, copy_l2_roof_s(op, r));
  // Row kernels (norms, softmax) run one CTA per row: with few rows the grid cannot keep
  // enough bytes in flight, and each CTA streams its row at the rate of its own in-flight
  // window: 16 KiB (256 threads x 16 B x 4 loads) per sweep latency (Little's law;
  // docs/model.md). The first window of each sweep is already paid by the sweep's latency
  // (fixed cost); what a sweep reads beyond it streams at that rate. Rows beyond the resident
  // slots run in waves.
  const double sweep_latency = op.l2_hit * r.l2_pass_latency_s + (1 - op.l2_hit) * r.pass_latency_s;
  if ((op.kind == OpKind::norm || op.kernel == KernelId::softmax_fused) && op.rows > 0 && sweep_latency > 0) {
    constexpr double window = 16384.0;
    const double row = static_cast<double>(op.cols) * bytes_of(op.dtype);
    double beyond = 0;
    for (int s = 0; s < std::min<int>(op.passes, static_cast<int>(op.row_reads_per_sweep.size())); ++s)
      beyond += std::max(0.0, op.row_reads_per_sweep[static_cast<size_t>(s)] * row - window);
    const double slots = static_cast<double>(card.sm_count) * 8.0;
    const double waves = std::ceil(static_cast<double>(op.rows) / slots);
    t.memory_s = std::max(t.memory_s, waves * beyond / (window / sweep_latency));
  }
  if (inductor && !streams) t.fixed_s += inductor_lockstep_s(op, r, t.memory_s) + inductor_exposed_issue_s(op, r);
  if (one_warp) {
    // A lane of a one-warp CTA walks elements_per_thread elements (32 at every measured shape), where
    // the calibrated thread chain is one iteration of 8 (a 16-byte vector; chain_iterations is 1 up
    // to 2048 columns): its chain is elements_per_thread / 8 of them. Every row's warp starts as its
    // row lands, so the chains run under the stream, the two overlapping as a decode wave's stream
    // and chain do (the card's decode_overlap: (stream^n + chain^n)^(1/n)): 640 x 1000 (5 warps an SM)
    // is the chain's, 32768 x 1024 the stream's. A scheduler issues its warps' chains back to back
    // once it holds more than decode_cpi of them (a lone warp issues one instruction every cpi
    // cycles): ceil(warps / 4) x chain / cpi, the issue roof. No parameter of its own.
    const double lone = thread_chain_time(op, r) * one_warp->elements_per_thread / 8.0;
    t.memory_s = overlapped(t.memory_s, lone, r.decode.overlap);
    const double per_scheduler = std::ceil(one_warp->warps_per_sm / kSchedulersPerSm);
    if (r.decode.cpi > 0) t.compute_s = std::max(t.compute_s, lone * per_scheduler / r.decode.cpi);
  }
  return t;
}

}  // namespace perfmodel
