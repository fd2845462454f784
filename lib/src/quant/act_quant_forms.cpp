// Activation quantization per implementation profile (act_quant_forms.hpp; issue 12). The kernel
// names of validation/results/h200-quant's act_quant cases (PyTorch 2.11 on the H200) give each
// form: what a call launches, in order.
#include "perfmodel/act_quant_forms.hpp"

#include <algorithm>
#include <cstdlib>

#include "act_quant_group_forms.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/quant.hpp"

namespace perfmodel {

namespace {

// vLLM's CUDA kernels (scaled_fp8_quant, dynamic_per_token_scaled_fp8_quant, the NVFP4 quantizer):
// a dynamic per-tensor scale needs the whole tensor's amax first (its own reduction kernel, then
// the scale/cast kernel); per-token and 1x128-block scales and the 4-bit formats' per-16/32 block
// scales are found inside the one quantization kernel; a static scale skips the amax. Not measured.
std::vector<Op> fused_form(const std::string& name, const ActQuantCall& c) {
  const bool four_bit = c.in == DType::nvfp4 || c.in == DType::mxfp4;
  const bool tensor_dynamic = !four_bit && c.scaling == Scaling::tensor && c.dynamic;
  std::vector<Op> out;
  if (tensor_dynamic) out.push_back(ops::act_amax(name + "_amax", c.m, c.k, c.act));
  out.push_back(ops::act_quant(name + "_quant", c.m, c.k, c.act, c.in, four_bit ? Scaling::block : c.scaling,
                               !tensor_dynamic && (four_bit || c.scaling != Scaling::tensor)));
  return out;
}

// ATen's reduce_kernel over the whole tensor (aten/src/ATen/native/cuda/Reduce.cuh,
// setReduceConfig): 512 threads; once a thread would sum 256 values or more the reduction is
// split across CTAs (ctas_per_output > 1), whose partials meet through a global buffer and
// semaphores the caller zeroes first: the Memset of the kernel names (h200-quant: from 131072
// elements, none at 65536).
bool aten_full_reduce_splits(int64_t elements) { return elements / 512 >= 256; }

// ATen's vectorized elementwise kernels and reduce_kernel in the eager chains: each kernel's stores
// drain before the next starts (Op::store_drain: h200-group16/kernel_split.json profiles the tiny
// ones at 0.83-1.41 us, one L2-resident row, where the floor and the load's round trip are 0.49).
Op drained(Op op) {
  op.store_drain = true;
  return op;
}

// A kernel of the chain whose input an earlier kernel of the same call just wrote (or read) finds it
// in L2, as the fused profile's reads_last_output: price() keeps the share the card's L2 holds of the
// kernel's bytes (cyclic_l2_hit), so from a few thousand rows the chain streams from DRAM again. A
// caller that knows a better first-touch hit (a harness's rotation) takes the larger.
Op reads_chain(Op op) {
  op.l2_hit = 1;
  return op;
}

}  // namespace

Op act_quant_eager_drained(Op op) { return drained(std::move(op)); }
Op act_quant_eager_reads_chain(Op op) { return reads_chain(std::move(op)); }

namespace {

// The torch ops of a torchao-style FP8 quantization (_choose_scale_float8 /
// _quantize_affine_float8; validation/scripts/quant/quant_gemm.py q_tensor_dyn, q_row_dyn,
// q_tensor_static), one ATen kernel each, the kernel names of h200-quant's torch.eager cases:
// dynamic: x.abs() (vectorized), amax (reduce_kernel<512, 1>: per row, or the whole tensor with a
// Memset before it), the scales' .float() (direct_copy's unrolled kernel), .clamp(min) and
// / fp8_max (a multiply by the reciprocal); then x.float() (the unrolled LoadWithCast copy,
// eager_ops.cpp's rate), x / scale (the scale broadcast, a 0-dim tensor or a (T, 1) column:
// TensorIterator's generic elementwise_kernel<128, 2> either way), .clamp and .to(fp8)
// (vectorized). 9 kernels (10 with the Memset), 4 static. Branch actqeager: the vectorized kernels
// and the amax drain their stores (drained), and a kernel reading what the call just wrote or read
// finds it in L2 (reads_chain), as far as the L2 holds the kernel's bytes.
std::vector<Op> eager_form(const std::string& name, const ActQuantCall& c) {
  const int64_t T = c.m, k = c.k;
  const bool per_row = c.scaling == Scaling::row;
  const int64_t scales = per_row ? T : 1;
  std::vector<Op> out;
  if (c.dynamic) {
    out.push_back(drained(ops::elementwise(name + ".abs", KernelId::other, T, k, c.act, 1, 1, 1)));
    if (!per_row && aten_full_reduce_splits(T * k)) {
      Op memset = ops::elementwise(name + ".amax_memset", KernelId::copy, 1, 1, DType::fp32, 0, 1, 0);
      out.push_back(memset);
    }
    // A reduction per row, or of the whole tensor (one row): priced as ATen's reduce_kernel
    // under the eager profile (act_quant_cost.cpp).
    Op amax = ops::act_amax(name + ".amax", per_row ? T : 1, per_row ? k : T * k, c.act);
    amax.bytes_written = static_cast<double>(scales) * bytes_of(c.act);
    // Its rounds keep the harness's first-touch hit, though |x| was just written: a round costs
    // about a DRAM round trip from L2 too (h200-quant: 16 x 4096, 8 rounds, takes 6.9 us more than 16 x
    // 8192, one round; 7 L2 round trips would be 3.1). The reduce's own chain, not the memory's.
    out.push_back(drained(amax));
    Op up = ops::cast(name + ".scale_to_fp32", scales, 1, c.act, DType::fp32);
    up.strided = true;  // direct_copy_kernel's unrolled path
    out.push_back(reads_chain(up));
    out.push_back(reads_chain(drained(ops::elementwise(name + ".scale_clamp", KernelId::other, scales, 1, DType::fp32, 1, 1, 2))));
    out.push_back(reads_chain(drained(ops::elementwise(name + ".scale_div", KernelId::mul, scales, 1, DType::fp32, 1, 1, 1))));
  }
  Op up = ops::cast(name + ".to_fp32", T, k, c.act, DType::fp32);
  up.strided = true;  // direct_copy_kernel's unrolled LoadWithCast path (eager_rmsnorm's .to(fp32))
  out.push_back(c.dynamic ? reads_chain(up) : up);  // dynamic: x, read by abs a few kernels before
  Op div = ops::elementwise(name + ".div_scale", KernelId::mul, T, k, DType::fp32, 1, 1, 1);
  div.bytes_read += static_cast<double>(scales) * 4;
  div.strided = true;  // the broadcast scale: elementwise_kernel<128, 2>, per tensor and per row alike
  out.push_back(reads_chain(div));
  out.push_back(reads_chain(drained(ops::elementwise(name + ".clamp", KernelId::other, T, k, DType::fp32, 1, 1, 2))));
  out.push_back(reads_chain(drained(ops::cast(name + ".to_fp8", T, k, DType::fp32, c.in))));
  return out;
}

// Inductor's split count for an inner reduction of `outputs` rows of `reduction` elements
// (torch/_inductor/choices.py, InductorChoices.reduction_split_factor, inner_reduction, PyTorch
// 2.11): no split for 2 x SMs rows or more, nor for rows of at most 8192; else 256-thread shares of
// 32 values a thread while the whole is at most 32 x SMs x 2048 elements, then shares sized for
// 2 x (SMs x 2048 / 512) CTAs over the rows (a divisor of the row within 30 preferred), and past
// 512 x SMs x 2048 shares of 512 values a thread (a divisor within 50 preferred). Checked against
// the generated code (validation/results/h200-actq15/inductor_code.json): 16 x 18944 per tensor 37
// partials of 8192, 4096 x 18944 512 of 151552, 1024 x 5120 640 of 8192; per token 16 and 128 rows
// of 18944 three partials a row of 6315, 1024 and 4096 rows none.
int64_t inductor_inner_splits(int64_t reduction, int64_t outputs, int64_t sms) {
  constexpr int64_t threads = 256, threads_per_sm = 2048, min_per_thread = 32, max_per_thread = 512;
  if (outputs >= 2 * sms || reduction <= 8192) return 1;
  auto closest_divisor = [&](int64_t want) {
    int64_t closest = 1;
    for (int64_t d = 1; d <= 2 * want; ++d)
      if (reduction % d == 0 && std::llabs(d - want) < std::llabs(closest - want)) closest = d;
    return closest;
  };
  const int64_t whole = reduction * outputs;
  int64_t split_size = min_per_thread;
  if (whole >= max_per_thread * sms * threads_per_sm) {
    const int64_t closest = closest_divisor(max_per_thread);
    split_size = std::llabs(closest - max_per_thread) < 50 ? closest : max_per_thread;
  } else if (whole > min_per_thread * sms * threads_per_sm) {
    const int64_t blocks = sms * threads_per_sm / (2 * threads);
    const int64_t per_output = (blocks + outputs - 1) / outputs;
    const int64_t want = (reduction + threads * per_output - 1) / (threads * per_output);
    const int64_t closest = closest_divisor(want);
    split_size = std::llabs(closest - want) < 30 ? std::max(closest, min_per_thread) : want;
  }
  return (reduction + split_size * threads - 1) / (split_size * threads);
}

// Inductor's Triton kernels (torch.compile; the kernel names of h200-quant's and h200-actq15's
// torch.compile cases, the generated code of h200-actq15's inductor_code.json): static scale: one
// pointwise kernel (triton_poi_fused__to_copy_clamp_div). A dynamic scale needs each row's (per
// token) or the tensor's (per tensor, the tensor as one row) amax: where Inductor does not split
// the reduction (inductor_inner_splits), one looped row reduction that finds a row's amax, then
// walks the row again to scale and cast it (triton_red_fused__to_copy_abs_amax_clamp_div); else
// the split reduction's partial amaxes (triton_red_fused_abs_amax), their combine into the scales
// (triton_per_fused__to_copy_abs_amax_clamp_div) and the pointwise cast
// (triton_poi_fused__to_copy_clamp_div). With dynamic shapes the split counts are those of the
// shape the graph was compiled for (a partial then covers its share of the call's own row), and
// every access is masked against a size the compiler cannot prove a multiple of the vector
// (`xindex < xnumel`, xnumel without Triton's divisibility-16 hint): Triton's load/store lowering
// takes the vector width as min(pointer contiguity, mask constancy) (AxisInfo getMaskAlignment),
// 1 here, so scalar 2-byte loads and 1-byte stores: marked `strided` for act_quant_cost.cpp. A
// static compile's sizes are constants: no mask on the pointwise sweep, 16-byte vectors.
// Priced by act_quant_cost.cpp under the compiled profile.
std::vector<Op> compiled_form(const std::string& name, const ActQuantCall& c, int64_t sms) {
  const bool masked = c.dynamic_shapes;
  const int64_t hint_m = masked && c.compiled_m > 0 ? c.compiled_m : c.m;
  const int64_t hint_k = masked && c.compiled_k > 0 ? c.compiled_k : c.k;
  const bool row = c.scaling == Scaling::row;
  auto mark = [&](Op op) {
    op.strided = masked;
    return op;
  };
  if (!c.dynamic) return {mark(ops::act_quant(name + "_quant", c.m, c.k, c.act, c.in, Scaling::tensor, false))};
  // Per token a reduction of each row; per tensor of the whole tensor as one row.
  const int64_t outputs = row ? c.m : 1, length = row ? c.k : c.m * c.k;
  const int64_t splits = row ? inductor_inner_splits(hint_k, hint_m, sms) : inductor_inner_splits(hint_m * hint_k, 1, sms);
  if (splits <= 1) return {mark(ops::act_quant(name + "_quant", outputs, length, c.act, c.in, c.scaling, true))};
  // The partials: `splits` shares of each row, then their combine (two launches), then the cast.
  Op amax = ops::act_amax(name + "_amax", outputs * splits, (length + splits - 1) / splits, c.act);
  amax.bytes_read = static_cast<double>(c.m) * static_cast<double>(c.k) * bytes_of(c.act);
  amax.bytes_written = static_cast<double>(outputs) * 4;
  amax.launches = 2;
  // A share that is not a whole number of 16-byte vectors (per token, 18944 / 3 = 6315 elements)
  // starts its rows unaligned: scalar loads whatever the shape mode (the pointer's divisibility
  // bounds the vector width as the mask's does).
  const bool unaligned = ((length + splits - 1) / splits) % (16 / std::max<int64_t>(1, static_cast<int64_t>(bytes_of(c.act)))) != 0;
  Op partials = mark(amax);
  partials.strided = masked || unaligned;
  return {partials, mark(ops::act_quant(name + "_quant", c.m, c.k, c.act, c.in, c.scaling, false))};
}

}  // namespace

std::vector<Op> act_quant_kernels(const std::string& name, const ActQuantCall& c, Impl impl) {
  // Eager and compiled 1x128-group FP8 quantization: act_quant_group_forms.cpp (branch group16).
  if (is_act_quant_group(c, impl)) return act_quant_group_kernels(name, c, impl);
  const bool fp8_scales = c.in == DType::fp8 && c.scaling != Scaling::block;
  // Eager and compiled quantizations of 4-bit formats and 1x128 blocks are not modelled: the
  // engine's kernels stand in (the profiles' lowering before this file).
  if (impl == Impl::fused || !fp8_scales) return fused_form(name, c);
  if (impl == Impl::eager) return eager_form(name, c);
  // Inductor's split rule reads the device's SMs; the lowering has no card: the H200's 132 (the
  // count matters past 32 x SMs x 2048 elements, where the partials fill the card either way, and
  // for per-token rows, split below 2 x SMs rows).
  return compiled_form(name, c, 132);
}

}  // namespace perfmodel
