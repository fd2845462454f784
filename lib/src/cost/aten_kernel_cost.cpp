// PyTorch's own kernels as eager runs them (issue 10; docs/model.md, "PyTorch's kernels"), priced
// with the eager profile's `aten:` calibration (profile_calibration.hpp), fitted on even cases of
// validation/results/h200-production by validation/scripts/production/fit_aten.py.
#include <algorithm>
#include <cmath>

#include "kernel_costs.hpp"
#include "perfmodel/l2_residency.hpp"

namespace perfmodel {

namespace {

// A row's dependent chain waits on memory: the share of the data already in L2 waits the L2
// round trip instead of DRAM's (the calibrated chains are DRAM-fed).
double chain_scale(const Op& op, const Roofs& r) {
  if (r.pass_latency_s <= 0) return 1;
  return op.l2_hit * r.l2_pass_latency_s / r.pass_latency_s + (1 - op.l2_hit);
}

// One CTA per row (ATen's vectorized_layer_norm_kernel, cunn_SoftMaxForward*): `slots` rows run
// at once, each taking `row_s`; rows beyond them run in waves. The DRAM stream bounds it below.
KernelTimes row_kernel(const Op& op, const Roofs& r, double floor_s, double row_s, double slots) {
  KernelTimes t;
  t.fixed_s = floor_s;
  t.fixed_parts = {{"ATen " + to_string(op.kernel) + " kernel floor", floor_s, "aten"}};
  const double waves = std::max(1.0, std::ceil(static_cast<double>(op.rows) / std::max(1.0, slots)));
  t.compute_s = waves * row_s * chain_scale(op, r);
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
  return t;
}

// torch.softmax over the last dim (aten/src/ATen/native/cuda/SoftMax.cu, host_softmax): rows of
// at most 2048 two-byte (1024 four-byte) elements take the persistent warp softmax, a warp per
// row, 4 warps per 128-thread CTA, at most 16 CTAs per SM; longer rows a CTA of 1024 threads
// (SoftMaxForward_getBlockSize), holding the row in registers while ceil(cols / 1024) < 10, else
// in shared memory. The block kernels are issue-bound (a second CTA on the SM halves each one's
// rate), so one row per SM at a time.
KernelTimes softmax(const Op& op, const Roofs& r, const AtenKernels& a) {
  const double k_cols = static_cast<double>(op.cols) / 1024.0;
  const double sms = r.card.sm_count;
  if (op.cols * bytes_of(op.dtype) <= 4096 && op.cols <= 2048) {
    KernelTimes t = row_kernel(op, r, a.softmax_floor_s, a.softmax_warp_chain_s * k_cols, sms * 64);
    // Many rows: issue-bound over the row padded to the warp's power of two (softmax_warp_forward
    // holds next_pow2(cols) / 32 values a thread), at its own rate past 1024 columns (64 values a
    // thread). validation/results/h200-eltwise4: 16384-65536 rows (fit_aten.py says which fit).
    int64_t padded = 1;
    while (padded < op.cols) padded *= 2;
    const double rate = padded > 1024 ? a.softmax_warp_wide_rate : a.softmax_warp_rate;
    if (rate > 0) t.compute_s = std::max(t.compute_s, static_cast<double>(op.rows) * static_cast<double>(padded) / rate);
    return t;
  }
  const int64_t reg_cnt = (op.cols + 1023) / 1024;
  const bool in_registers = reg_cnt < 10;
  const double chain = in_registers ? a.softmax_reg_chain_s : a.softmax_smem_chain_s;
  KernelTimes t = row_kernel(op, r, a.softmax_floor_s, chain * k_cols, sms);
  // Many rows: issue-bound (branch softmaxocc, validation/results/h200-softmaxocc, Nsight Compute at
  // 2048 rows, bf16). Warp instructions a row, counted (PyTorch 2.11's kernels; least squares over the
  // widths, within -7..+5 %): cunn_SoftMaxForwardReg ~1480 + 2.23 a column at 2304-9216 columns,
  // cunn_SoftMaxForwardSmem ~3560 + 1.26 (10240, 12288). Two 1024-thread CTAs share an SM
  // while a thread needs <= 32 registers: the register kernel takes 28-30 up to reg_cnt 6 and 34-40
  // from 7 (one CTA an SM: 6144 -> 6400 columns +43 %), the shared-memory kernel 32. The SM issues
  // softmax_block_ipc with two, softmax_block_lone_ipc with one.
  if (a.softmax_block_ipc > 0 && a.softmax_block_lone_ipc > 0 && r.card.cuda_clock_hz > 0) {
    const double cols = static_cast<double>(op.cols);
    const double per_row = in_registers ? 1480 + 2.23 * cols : 3560 + 1.26 * cols;
    const double ipc = in_registers && reg_cnt > 6 ? a.softmax_block_lone_ipc : a.softmax_block_ipc;
    const double issue = static_cast<double>(op.rows) * per_row / (sms * ipc * r.card.cuda_clock_hz);
    t.compute_s = std::max(t.compute_s, issue);
  }
  return t;
}

// ATen's reduce_kernel<512, 1> over the last dim (aten/src/ATen/native/cuda/Reduce.cuh,
// setReduceConfig / set_block_dimension): a 512-thread CTA holds block_height = min(16,
// last_pow2(rows)) rows and gives each block_width = min(last_pow2(cols), 512 / block_height)
// threads; a thread walks cols / block_width values with 4-wide loads unrolled 4 deep
// (input_vec_size = vt0 = 4), so every 16 values is one dependent round trip to memory. A wave is
// 4 CTAs per SM (2048 threads). The per-kernel split of h200-production's LlamaRMSNorm (even
// case 32 x 4096: 8 rounds, 8.7 us; h200-eltwise3/kernel_split.json) shows the rounds; no
// parameter is fitted: a round is the card's DRAM pass latency, the last cross-warp combine one more.
KernelTimes row_reduce(const Op& op, const Roofs& r) {
  auto last_pow2 = [](int64_t n) {
    int64_t p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
  };
  constexpr int64_t threads = 512, values_per_round = 16, ctas_per_sm = 2048 / threads;
  const int64_t height = std::min<int64_t>(16, last_pow2(std::max<int64_t>(1, op.rows)));
  const int64_t width = std::min(last_pow2(std::max<int64_t>(1, op.cols)), threads / height);
  const double rounds = std::ceil(static_cast<double>(op.cols) / static_cast<double>(width * values_per_round));
  const double ctas = std::ceil(static_cast<double>(op.rows) / static_cast<double>(height));
  const double waves = std::max(1.0, std::ceil(ctas / static_cast<double>(r.card.sm_count * ctas_per_sm)));
  KernelTimes t;
  t.fixed_s = r.kernel_floor_s + r.pass_latency_s;
  t.fixed_parts = {{"launch floor", r.kernel_floor_s, "kernel_floor"},
                   {"the cross-warp combine's round trip", r.pass_latency_s, "pass_latency"}};
  t.compute_s = waves * rounds * r.pass_latency_s * chain_scale(op, r);
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
  return t;
}

// The normalize's re-read of x (vectorized_layer_norm_kernel reads a row for its statistics, then
// again to normalize it): from L2 while what the resident rows read and write between a row's two
// reads (2 x resident rows x the row's bytes) fits its cyclic capacity, from DRAM past it
// (h200-production's 8192 x 14336: 121 MB, 705 MB at 3.6 TB/s; 16384 x 4096: 34.6 MB, from L2).
double norm_stream_s(const Op& op, const Roofs& r, double slots) {
  Op twice = op;
  const double rows = static_cast<double>(op.rows);
  const double row_bytes = static_cast<double>(op.cols) * bytes_of(op.dtype);
  const double resident = 2 * std::min(rows, slots) * row_bytes;
  twice.bytes_read += rows * row_bytes * (1 - cyclic_l2_hit(resident, r.l2_cyclic_capacity));
  return with_l2_hit(twice, r, stream_memory_s(twice, r));
}

// Branch normissue (validation/results/h200-normissue: Nsight Compute at 132 / 1056 / 4224 rows, 576-16384
// columns). The kernel holds 16 128-thread CTAs an SM (a step at every 2112 rows on the H200, none at
// 1056) and over many rows meets three limits at once: the waves of its dependent chain, the SM's
// issue (warp instructions a row, counted: rms_norm ~500 + 0.367 a column, layer_norm ~1160 + 0.922,
// PyTorch 2.11 bf16, within 4 % at 576 columns and 1 % from 1024) and the stream with the re-read.
// None of them alone prices it: the SM issues 1.0-2.9 instructions a clock where the stream or the chain
// holds it and ~3.5 where the issue does (Nsight at 33792 rows: norm_issue_ipc), and the limits overlap
// only in part. The time is their p-norm, p = norm_overlap
// (p = 1: they add; large p: the largest alone), fitted on h200-normwaves' first lease and
// h200-production's even calls only (fit_normissue.py). The largest limit names the bound.
KernelTimes norm_overlap_kernel(const Op& op, const Roofs& r, double chain_s) {
  const AtenKernels& a = r.aten;
  const double sms = static_cast<double>(r.card.sm_count);
  const double slots = sms * a.norm_ctas_per_sm;
  const double rows = static_cast<double>(op.rows), cols = static_cast<double>(op.cols);
  const double waves = std::max(1.0, std::ceil(rows / slots));
  const double chain = waves * chain_s * cols / 1024.0 * chain_scale(op, r);
  const double per_row = op.kernel == KernelId::rmsnorm ? 500 + 0.367 * cols : 1160 + 0.922 * cols;
  const double issue = rows * per_row / (sms * a.norm_issue_ipc * r.card.cuda_clock_hz);
  const double stream = norm_stream_s(op, r, slots);
  const double p = a.norm_overlap;
  const double joint = std::pow(std::pow(chain, p) + std::pow(issue, p) + std::pow(stream, p), 1 / p);
  KernelTimes t;
  t.fixed_s = a.norm_floor_s;
  t.fixed_parts = {{"ATen " + to_string(op.kernel) + " kernel floor", a.norm_floor_s, "aten"}};
  const bool stream_bound = stream >= std::max(chain, issue);
  t.compute_s = stream_bound ? std::max(chain, issue) : joint;
  t.memory_s = stream_bound ? joint : stream;
  return t;
}

// F.rms_norm / F.layer_norm: ATen's vectorized_layer_norm_kernel, one CTA a row. With norm_overlap,
// branch normissue's law above (the default); with the normwaves keys, that branch's (opt-in,
// validation/results/h200-normwaves): up to 8 resident rows an SM run latency-bound side by side,
// past 8 they share the SM, so a wave's chain ramps to (1 + ramp) at 16; a later partial wave's
// CTAs start as the previous wave's drain (tail). Without either: whole waves of the chain and one
// read of the row (fit_aten.py's form).
KernelTimes norm_kernel(const Op& op, const Roofs& r, double chain_s) {
  const AtenKernels& a = r.aten;
  const double k_cols = static_cast<double>(op.cols) / 1024.0;
  const double sms = static_cast<double>(r.card.sm_count);
  const double slots = sms * a.norm_ctas_per_sm;
  if (a.norm_overlap > 0 && a.norm_issue_ipc > 0 && sms > 0 && r.card.cuda_clock_hz > 0)
    return norm_overlap_kernel(op, r, chain_s);
  if (a.norm_wave_ramp < 0 || a.norm_tail_wave < 0 || sms <= 0)
    return row_kernel(op, r, a.norm_floor_s, chain_s * k_cols, slots);
  const double rows = static_cast<double>(op.rows);
  const double waves = std::max(1.0, std::ceil(rows / slots));
  const double last_per_sm = (rows - (waves - 1) * slots) / sms;
  const double half = a.norm_ctas_per_sm / 2.0;
  const double last = 1 + a.norm_wave_ramp * std::max(0.0, last_per_sm - half) / half;
  const double factor = waves == 1 ? last : (waves - 1) * (1 + a.norm_wave_ramp) + a.norm_tail_wave * last;
  KernelTimes t;
  t.fixed_s = a.norm_floor_s;
  t.fixed_parts = {{"ATen " + to_string(op.kernel) + " kernel floor", a.norm_floor_s, "aten"}};
  t.compute_s = factor * chain_s * k_cols * chain_scale(op, r);
  t.memory_s = norm_stream_s(op, r, slots);
  return t;
}

// transformers' LlamaRMSNorm's fp32 mean over the last dim (eager_ops.cpp): a row reduction
// (kind norm, no kernel of its own) writing one fp32 value per row. The FP8 path's per-row amax
// (bf16) is a reduce_kernel too but keeps the stream model: it was never measured per kernel.
bool is_row_mean(const Op& op) {
  return op.kind == OpKind::norm && op.kernel == KernelId::other && op.dtype == DType::fp32 && op.launches == 1 &&
         op.rows > 0 && op.bytes_written == static_cast<double>(op.rows) * 4;
}

}  // namespace

std::optional<KernelTimes> aten_kernel_cost(const Op& op, const Roofs& r) {
  const AtenKernels& a = r.aten;
  if (op.strided && a.strided_measured()) {
    // TensorIterator's generic kernel: per element the offsets of every operand (IntDivider
    // divisions per dimension), issue-bound far below the DRAM stream.
    KernelTimes t;
    t.fixed_s = op.launches * a.strided_floor_s;
    t.fixed_parts = {{std::to_string(op.launches) + " x TensorIterator generic kernel floor", t.fixed_s, "aten"}};
    double rate = op.kernel == KernelId::copy && a.cat_rate > 0 ? a.cat_rate : a.strided_rate;
    if (op.kernel == KernelId::cast && a.cast_rate > 0) rate = a.cast_rate;
    if (op.kernel == KernelId::cast && op.dtype == DType::int8 && a.int8_cast_rate > 0) rate = a.int8_cast_rate;
    // The MoE glue's large tensors: each operand's offset and access per element (h200-moe
    // prefill: one rate for unary, binary and masked_fill kernels; profiles.md, "MoE").
    if (op.generic_operands > 0 && a.generic_operand_rate > 0) rate = a.generic_operand_rate / op.generic_operands;
    t.compute_s = static_cast<double>(op.rows) * static_cast<double>(op.cols) / rate;
    t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
    return t;
  }
  if (is_row_mean(op)) return row_reduce(op, r);
  if (op.launches != 1 || op.residual) return std::nullopt;
  if (op.kernel == KernelId::rmsnorm && a.rows_measured()) return norm_kernel(op, r, a.rmsnorm_chain_s);
  if (op.kernel == KernelId::layernorm && a.rows_measured()) return norm_kernel(op, r, a.layernorm_chain_s);
  if (op.kernel == KernelId::softmax_fused && a.softmax_measured()) return softmax(op, r, a);
  return std::nullopt;
}

}  // namespace perfmodel
