// Inductor's split row reductions (branch splitred, issue 10; validation/results/h200-splitred).
//
// Inductor splits a row reduction whose rows cannot fill the card (torch/_inductor/ir.py,
// Reduction.num_splits -> torch/_inductor/choices.py, InductorChoices.reduction_split_factor, its
// inner-reduction branch, PyTorch 2.11): fewer than 2 x SMs rows of more than 8192 columns are
// reduced in `splits` chunks a row by 256-thread shares of 32 to 512 elements a thread.
// h200-eltwise6/inductor_code.json, 16 x 16384: 2 splits, three kernels for rms_norm / layer_norm (the
// partial statistics of 32 rows of 8192, their combine over 2, the pointwise normalize) and five for
// softmax (a split turns online softmax off: the max and the sum of exps each a partial + combine,
// then the pointwise exp / divide); 1: not split. split_probe.py's 60 calls (h200-splitred) read the
// same split count off every partial kernel's grid.
#include "inductor_split.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "kernel_costs.hpp"

namespace perfmodel {

int64_t inductor_splits(const Op& op, const Roofs& r) {
  const bool row_op = op.kernel == KernelId::rmsnorm || op.kernel == KernelId::layernorm ||
                      op.kernel == KernelId::softmax_fused;
  const int64_t sms = r.card.sm_count;
  if (!row_op || !r.inductor.measured() || op.launches != 1 || op.passes < 2 || sms <= 0 || op.rows <= 0 ||
      op.rows >= 2 * sms || op.cols <= 8192)
    return 1;
  constexpr int64_t threads = 32 * 8, threads_per_sm = 2048, min_per_thread = 32, max_per_thread = 512;
  const double elements = static_cast<double>(op.rows) * static_cast<double>(op.cols);
  auto closest_divisor = [&](int64_t want) {  // of the columns, nearest the wanted split size
    int64_t closest = 1;
    for (int64_t d = 1; d <= std::min(op.cols, 2 * want); ++d)  // farther ones lose to 1
      if (op.cols % d == 0 && std::llabs(d - want) < std::llabs(closest - want)) closest = d;
    return closest;
  };
  int64_t split_size = min_per_thread;
  if (elements >= static_cast<double>(max_per_thread * sms * threads_per_sm)) {
    const int64_t closest = closest_divisor(max_per_thread);
    split_size = std::llabs(closest - max_per_thread) < 50 ? closest : max_per_thread;
  } else if (elements > static_cast<double>(min_per_thread * sms * threads_per_sm)) {
    const int64_t target_blocks = sms * threads_per_sm / (2 * threads);
    const int64_t per_row = (target_blocks + op.rows - 1) / op.rows;
    const int64_t want = (op.cols + threads * per_row - 1) / (threads * per_row);
    const int64_t closest = closest_divisor(want);
    split_size = std::llabs(closest - want) < 30 ? std::max(closest, min_per_thread) : want;
  }
  return (op.cols + split_size * threads - 1) / (split_size * threads);
}

namespace {

// Warp instructions a split partial issues a padded element (R0_BLOCK 2048 lanes an iteration; masked
// lanes issue too), by what Triton can prove of the chunk length L = ceil(cols / splits) and whether the
// chunks divide the row. 8 | L: 16-byte loads; an even L: 4-byte; an odd L: 2-byte, each load with its
// own index and mask. A ragged split (cols % splits != 0) masks every load twice (the chunk's end and the
// row's), which doubles an odd chunk's instructions and turns softmax's sum of exps scalar at any L.
// Counted by Nsight Compute (validation/results/h200-splitodd, ncu2.csv and ncu3.csv:
// smsp__inst_executed.sum over the padded elements, the median of each class's shapes; PyTorch 2.11,
// Triton 3.6), not fitted to time.
struct ChunkIssue {
  double aligned, even, odd;                      // chunks that divide the row
  double ragged_aligned, ragged_even, ragged_odd;  // chunks that do not
};
constexpr ChunkIssue kRmsSquares{0.21, 0.30, 0.39, 0.28, 0.33, 0.75};     // rms_norm's sum of squares
constexpr ChunkIssue kSoftmaxMax{0.31, 0.43, 0.51, 0.39, 0.45, 0.85};     // softmax's first partial (the max)
constexpr ChunkIssue kSoftmaxSumExp{0.55, 0.61, 0.77, 1.25, 1.36, 1.21};  // its second (the sum of exps)
constexpr ChunkIssue kWelford{0.79, 0.88, 0.96, 0.98, 1.18, 1.95};        // layer_norm's Welford update

double issue_per_element(const ChunkIssue& c, int64_t cols, int64_t splits) {
  const int64_t chunk = (cols + splits - 1) / splits;
  const int64_t vector = std::gcd(std::gcd(chunk, cols), int64_t{8});  // elements a load Triton may prove
  if (cols % splits != 0) return vector == 8 ? c.ragged_aligned : vector % 2 == 0 ? c.ragged_even : c.ragged_odd;
  return vector == 8 ? c.aligned : vector % 2 == 0 ? c.even : c.odd;
}

double whole(const KernelTimes& t) { return t.fixed_s + std::max(t.compute_s, t.memory_s); }

}  // namespace

// The split's kernels one after another, each timed by split_probe.py (h200-splitred: one call on
// each of S rotating input sets in a CUDA graph, every kernel's duration under the profiler):
// - the partial: rows x splits CTAs (XBLOCK 1, 16 warps) each sweeping cols / splits once and
//   writing an fp32 partial: rms_norm's one-sweep row reduction of the chunk (stream_cost: the floor,
//   the sweep's walk and the bytes' stream), plus what its instructions add (branch splitodd, below:
//   a count a padded element from Nsight Compute by op, chunk length and raggedness; a lone CTA's
//   extra instructions at a fitted rate; the queued CTAs' issue at the SM's measured rate).
// - the combine: the fp32 partials (a few KB, just written) reduced by a persistent kernel: one
//   kernel's floor and one round trip (0.90-1.18 us in the probe at 4-250 rows; the persistent
//   reduction's row price had put 1.2-3.1 us).
// - the pointwise normalize: the floor, a round trip and the row's stream in and out, from DRAM.
//   The row was read moments before by the partial, but neither the normalize nor softmax's second
//   partial runs any faster for it (250 x 28672 normalize: 28.7 MB in 7.6 us; softmax's second
//   partial 7.0 against its first's 6.5): the re-read L2 hit priced before (its normalize 18-34 %
//   fast at 128-250 rows) is not priced.
// Branch splitodd (h200-splitodd): chunks that do not divide the row or whose length Triton cannot
// vectorize cost up to 2x their stream; priced from their instruction counts (ChunkIssue above).
std::optional<KernelTimes> inductor_split_cost(const Op& op, const Roofs& r) {
  const int64_t splits = inductor_splits(op, r);
  if (splits <= 1) return std::nullopt;
  const double input = static_cast<double>(op.rows) * static_cast<double>(op.cols) * bytes_of(op.dtype);
  const int tensors = op.residual ? 2 : 1;  // the fused residual add reads x and r for its statistics
  const double round_trip = kernel_alone_s(r.kernel_floor_s, r) + r.pass_latency_s;

  // The partial's stream: rms_norm's one-sweep reduction of the chunk (no Inductor rate).
  Op part = op;
  part.name += ".partial";
  part.kernel = KernelId::rmsnorm;
  part.rows = op.rows * splits;
  part.cols = (op.cols + splits - 1) / splits;
  part.bytes_read = tensors * input;
  part.bytes_written = static_cast<double>(part.rows) * 4;
  part.instructions = 0;
  part.passes = 1;
  part.reread_passes = 0;
  part.row_reads_per_sweep = {tensors, 0, 0, 0};
  const KernelTimes stream = stream_cost(part, r, nullptr);
  // The stream's price holds a lone CTA's sweep of its chunk as rms_norm's aligned code walks it. What
  // a lone CTA adds (h200-splitred's traces at one CTA an SM, 8192 padded columns: rms_norm 1.73 us,
  // layer_norm 2.24, softmax's partials 1.89 / 1.66 aligned; 3.39, 4.48, 3.33 / 3.55 at odd chunks):
  // - the loads Triton cannot vectorize and a ragged split's second mask: the instructions over the
  //   op's aligned code at a lone CTA's
  //   latency-bound rate (split_ipc_cta, fitted; Nsight Compute read 0.8-1.8 a clock at one CTA an
  //   SM);
  // - Welford's update, a divide a element in each thread's chain: its instructions over rms_norm's at
  //   the SM's sustained rate. Softmax's max and exp hide under the walk's load waits (its partials run
  //   within 0.2 us of rms_norm's).
  // The CTAs an SM queues behind the first add their whole issue at the SM's sustained rate
  // (split_ipc_sm, Nsight Compute) where that is longer than the stream (h200-splitodd: odd chunks
  // 2-2.6 warp instructions a clock an SM at 5-7 CTAs an SM, up to 2x the stream).
  auto partial = [&](const ChunkIssue& c) {
    KernelTimes t = stream;
    const InductorKernels& k = r.inductor;
    const double clock = r.card.cuda_clock_hz;
    if (k.split_ipc_cta > 0 && k.split_ipc_sm > 0 && clock > 0) {
      constexpr double block = 2048;  // the looped reduction's R0_BLOCK: chunks pad to it
      const double padded = std::ceil(static_cast<double>(part.cols) / block) * block;
      const double per_sm = std::ceil(static_cast<double>(part.rows) / static_cast<double>(r.card.sm_count));
      const double each = padded * issue_per_element(c, op.cols, splits);
      t.fixed_s += (each - padded * c.aligned) / (k.split_ipc_cta * clock);
      if (op.kernel == KernelId::layernorm)
        t.fixed_s += padded * (c.aligned - kRmsSquares.aligned) / (k.split_ipc_sm * clock);
      t.compute_s = std::max(t.compute_s, (per_sm - 1) * each / (k.split_ipc_sm * clock));
    }
    return whole(t);
  };
  double partials = 0;
  if (op.kernel == KernelId::softmax_fused)
    partials = partial(kSoftmaxMax) + partial(kSoftmaxSumExp);
  else
    partials = partial(op.kernel == KernelId::layernorm ? kWelford : kRmsSquares);

  const int reductions = op.kernel == KernelId::softmax_fused ? 2 : 1;  // max, then the sum of exps
  Op normalize = op;
  const double pointwise = round_trip + with_l2_hit(normalize, r, stream_memory_s(normalize, r));
  // The op counts one launch (Op::launches: the step's graph gap and the harness comparison's idle
  // are added once, profile_accuracy.cpp), so each further kernel of the split keeps the GPU idle a
  // graph replay holds after a kernel, which kernel_alone_s took out of its floor (harness_idle_s;
  // 0 where the floor still holds it: the compiled profile). In a step that idle stands for the
  // graph's own gap between kernels.
  const int kernels = 2 * reductions + 1;
  KernelTimes t;
  t.fixed_s = partials + reductions * round_trip + pointwise + (kernels - 1) * r.harness_idle_s;
  return t;
}

}  // namespace perfmodel
