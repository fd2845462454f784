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

// What a partial sweep of the op issues a padded element, as a share of the op's whole looped kernel
// (its calibrated rate prices both sweeps and the normalize): rms_norm's sum of squares streams (no
// issue roof, as its whole kernel); softmax's max and its sum of exps; layer_norm's Welford.
double partial_issue_share(const Op& op, const InductorKernels& k) {
  if (op.kernel == KernelId::softmax_fused) return k.split_softmax_issue_share;
  if (op.kernel == KernelId::layernorm) return k.split_layernorm_issue_share;
  return 0.0;
}

double op_rate(const Op& op, const InductorKernels& k) {
  return op.kernel == KernelId::softmax_fused ? k.softmax_rate : op.kernel == KernelId::layernorm ? k.layernorm_rate : 0.0;
}

double whole(const KernelTimes& t) { return t.fixed_s + std::max(t.compute_s, t.memory_s); }

}  // namespace

// The split's kernels one after another, each timed by split_probe.py (h200-splitred: one call on
// each of S rotating input sets in a CUDA graph, every kernel's duration under the profiler):
// - the partial: rows x splits CTAs (XBLOCK 1, 16 warps) each sweeping cols / splits once and
//   writing an fp32 partial. rms_norm's partial is priced as the one-sweep row reduction it is
//   (stream_cost: the floor, the sweep's round trip and thread chain, the bytes' stream) and is within
//   -4..+15 % of every probe call but one (250 x 45056, below). Softmax's and layer_norm's partials
//   are the same sweep with other math a element: the same price, and where an SM queues more
//   than one CTA, the later CTAs' issue (the whole kernel's calibrated rate on the padded chunk,
//   times the partial's share of it) in place of the stream when longer: issue-bound past 4 CTAs
//   an SM (250 x 28672: softmax's partials 6.5 / 7.0 us, rms_norm's 5.2, layer_norm's 9.3).
// - the combine: the fp32 partials (a few KB, just written) reduced by a persistent kernel: one
//   kernel's floor and one round trip (0.90-1.18 us in the probe at 4-250 rows; the persistent
//   reduction's row price had put 1.2-3.1 us).
// - the pointwise normalize: the floor, a round trip and the row's stream in and out, from DRAM.
//   The row was read moments before by the partial, but neither the normalize nor softmax's second
//   partial runs any faster for it (250 x 28672 normalize: 28.7 MB in 7.6 us; softmax's second
//   partial 7.0 against its first's 6.5): the re-read L2 hit priced before (its normalize 18-34 %
//   fast at 128-250 rows) is not priced.
// Not priced: chunks that do not divide the row. An odd chunk length (20480 / 3, 36864 / 5, 45056 /
// 3) leaves Triton 2-byte loads (split_code.json), and its partial issues 0.83-0.93 warp instructions
// an element against 0.14-0.20 aligned (Nsight Compute, h200-splitred/ncu): issue-bound, up to 2x
// its stream in every op. An even one (45056 / 6) costs only softmax's sum of exps and Welford
// (1.5-2x softmax's first partial).
std::optional<KernelTimes> inductor_split_cost(const Op& op, const Roofs& r) {
  const int64_t splits = inductor_splits(op, r);
  if (splits <= 1) return std::nullopt;
  const double input = static_cast<double>(op.rows) * static_cast<double>(op.cols) * bytes_of(op.dtype);
  const int tensors = op.residual ? 2 : 1;  // the fused residual add reads x and r for its statistics
  const double round_trip = kernel_alone_s(r.kernel_floor_s, r) + r.pass_latency_s;

  // The partial: priced as rms_norm's one-sweep reduction of the chunk (no Inductor rate: it streams).
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
  KernelTimes sweep = stream_cost(part, r, nullptr);
  const double share = partial_issue_share(op, r.inductor), rate = op_rate(op, r.inductor);
  const double sms = static_cast<double>(r.card.sm_count);
  if (share > 0 && rate > 0) {
    constexpr double block = 2048;  // the looped reduction's R0_BLOCK: chunks pad to it
    const double padded = std::ceil(static_cast<double>(part.cols) / block) * block;
    const double per_sm = std::ceil(static_cast<double>(part.rows) / sms);
    // Softmax's max and sum of exps are light a element: a lone CTA's sweep waits on its loads and only
    // the CTAs an SM queues behind it add their issue (per_sm - 1). Welford's update divides a element:
    // even a lone CTA issues longer than its chunk streams (h200-splitred: layer_norm's partial runs
    // 0.4-0.7 us over rms_norm's at one CTA an SM, softmax's within 0.2), so all of its CTAs count.
    const double queued = op.kernel == KernelId::layernorm ? per_sm : per_sm - 1;
    sweep.compute_s = std::max(sweep.compute_s, share * queued * padded / (rate / sms));
  }
  const double partial = whole(sweep);

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
  t.fixed_s = reductions * (partial + round_trip) + pointwise + (kernels - 1) * r.harness_idle_s;
  return t;
}

}  // namespace perfmodel
