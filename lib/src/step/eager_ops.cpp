// PyTorch eager's kernels for ops that transformers writes out in torch calls (eager_ops.hpp),
// and eager_form: one fused kernel as PyTorch eager runs it (profile.hpp).
#include "eager_ops.hpp"

#include "perfmodel/act_quant_forms.hpp"
#include "perfmodel/instructions.hpp"

#include "perfmodel/ops.hpp"
#include "perfmodel/profile.hpp"

namespace perfmodel {

Op counted(Op op, int64_t count) {
  op.count = count;
  return op;
}

// LlamaRMSNorm.forward: x.to(fp32); x.pow(2).mean(-1, keepdim); x * rsqrt(var + eps);
// weight * x.to(bf16). Eight kernels, the wide ones in fp32 (h200-production's kernel names; the
// per-kernel split in validation/results/h200-eltwise3/kernel_split.json).
void eager_rmsnorm(Step& s, const std::string& name, int64_t T, int64_t d, DType act, int64_t count) {
  // .to(fp32) is direct_copy_kernel's unrolled LoadWithCast path, not a vectorized copy: the
  // cast rate (8192 x 4096: 97 us, 3.4e11 elements/s, where the stream would take 53 us).
  Op up = ops::cast(name + ".to_fp32", T, d, act, DType::fp32);
  up.strided = true;
  s.ops.push_back(counted(up, count));
  s.ops.push_back(counted(ops::elementwise(name + ".pow", KernelId::mul, T, d, DType::fp32, 1, 1, 1), count));
  Op mean = ops::elementwise(name + ".mean", KernelId::other, T, d, DType::fp32, 1, 0, 1);
  mean.kind = OpKind::norm;
  mean.bytes_written = static_cast<double>(T) * 4;
  // one fp32 per row: ATen's reduce_kernel<512, 1>, priced by its load rounds (aten_kernel_cost.cpp)
  s.ops.push_back(counted(mean, count));
  s.ops.push_back(
      counted(ops::elementwise(name + ".add_eps_rsqrt", KernelId::other, T, 1, DType::fp32, 1, 1, 2, 2), count));
  Op scale = ops::elementwise(name + ".mul_rsqrt", KernelId::mul, T, d, DType::fp32, 1, 1, 1);
  scale.bytes_read += static_cast<double>(T) * 4;
  scale.strided = true;  // the (T, 1) rsqrt broadcast over the row: TensorIterator's generic path
  s.ops.push_back(counted(scale, count));
  s.ops.push_back(counted(ops::cast(name + ".to_bf16", T, d, DType::fp32, act), count));
  Op w = ops::elementwise(name + ".mul_weight", KernelId::mul, T, d, act, 1, 1, 1);
  w.bytes_read += static_cast<double>(d) * bytes_of(act);
  w.strided = true;  // the weight broadcast over the rows
  s.ops.push_back(counted(w, count));
}

// GemmaRMSNorm.forward (transformers' modeling_gemma.py / modeling_gemma2.py): x.float(); x * rsqrt(x.pow(2).mean(-1)
// + eps); that times (1.0 + weight.float()); .type_as(x). Ten kernels: LlamaRMSNorm's first five, the weight's cast
// and its + 1 (d elements each), the product in fp32 and the cast back (validation/results/h200-hfgemma,
// census.json: Gemma-2-9B's four norms a layer, 10 kernels each against LlamaRMSNorm's 8).
void eager_gemma_rmsnorm(Step& s, const std::string& name, int64_t T, int64_t d, DType act, int64_t count) {
  eager_rmsnorm(s, name, T, d, act, count);
  s.ops.resize(s.ops.size() - 2);  // LlamaRMSNorm's cast back and bf16 weight product: Gemma's differ
  s.ops.push_back(counted(ops::cast(name + ".weight_fp32", 1, d, act, DType::fp32), count));
  s.ops.push_back(counted(ops::elementwise(name + ".weight_plus_one", KernelId::add, 1, d, DType::fp32, 1, 1, 1), count));
  Op w = ops::elementwise(name + ".mul_weight", KernelId::mul, T, d, DType::fp32, 1, 1, 1);
  w.bytes_read += static_cast<double>(d) * 4;
  w.strided = true;  // the (1 + w) broadcast over the rows, as LlamaRMSNorm's
  s.ops.push_back(counted(w, count));
  s.ops.push_back(counted(ops::cast(name + ".type_as", T, d, DType::fp32, act), count));
}

// apply_rotary_pos_emb: q*cos + rotate_half(q)*sin for q and k; rotate_half slices, negates
// and concatenates. Per tensor: mul, slice-neg, cat, mul, add = 5 kernels. q and k are transposed
// views ((b, s, h, d) read as (b, h, s, d)), cos and sin broadcast over the heads and the halves
// are last-dim slices: every kernel but the final add (two tensors it allocated itself) runs
// TensorIterator's generic path (the profiler shows elementwise_kernel<128, 4> and
// CatArrayBatchedCopy), so they are marked strided.
// `views`: calls before it that launch nothing (cos and sin unsqueezed once for q and k).
void eager_rotary(Step& s, int64_t T, int64_t width, const std::string& which, DType act, int64_t count, int views,
                  bool one_position) {
  Op mul_cos = ops::elementwise("rotary_" + which + ".mul_cos", KernelId::mul, T, width, act, 2, 1, 1);
  mul_cos.framework_calls = views;
  mul_cos.strided = true;
  s.ops.push_back(counted(mul_cos, count));
  Op neg = ops::elementwise("rotary_" + which + ".neg", KernelId::other, T, width / 2, act, 1, 1, 1);
  neg.framework_calls = 2;  // rotate_half's two slices
  neg.strided = true;
  s.ops.push_back(counted(neg, count));
  // CatArrayBatchedCopy of the two halves: per element the generic path's rate (h200-eltwise3's
  // split at h200-production's even shapes: 2.4e11 elements/s, the generic muls 3.8e11), not the
  // cache cat's rate over a cropped strided source (cat_elements_per_s, 1.6e11).
  Op cat = ops::elementwise("rotary_" + which + ".cat", KernelId::other, T, width, act, 1, 1, 0);
  cat.strided = true;
  s.ops.push_back(counted(cat, count));
  Op mul_sin = ops::elementwise("rotary_" + which + ".mul_sin", KernelId::mul, T, width, act, 2, 1, 1);
  mul_sin.strided = true;
  s.ops.push_back(counted(mul_sin, count));
  // The add of the two products: they keep the transposed view's strides (TensorIterator
  // preserves the input's layout), so beyond one position per sequence it too runs the generic
  // kernel (gpu_kernel_impl_nocast<CUDAFunctor_add> at 2+ tokens, vectorized at 1: h200-eltwise3).
  Op add = ops::add("rotary_" + which + ".add", T, width, act);
  add.strided = !one_position;
  s.ops.push_back(counted(add, count));
}

// F.silu(a) * b: ATen's vectorized SiLU kernel writes an intermediate the multiply reads. The SiLU
// kernel's thread waits on x / (1 + exp(-x)) per element, the dependent exp and divide of the fused
// SiLU*mul kernel, so it carries that kernel's calibrated thread chain (KernelId::silu_mul; the
// profiler's split, validation/results/h200-eltwise4: 1.34-1.46 us alone against the multiply's
// 0.91-1.03 at 2-40 rows); its instructions stay a plain unary kernel's.
void eager_silu_mul(Step& s, const std::string& name, int64_t T, int64_t d, DType act, int64_t count) {
  Op silu = ops::elementwise(name + ".silu", KernelId::silu_mul, T, d, act, 1, 1, 4);
  silu.instructions = kernel_instructions(KernelId::other, T, d, act);
  s.ops.push_back(counted(silu, count));
  s.ops.push_back(counted(ops::elementwise(name + ".mul", KernelId::mul, T, d, act, 2, 1, 1), count));
}

// h200-quant2's HF Llama-3-8B FP8 decode steps: 10 kernels per linear (these 9 and the GEMM);
// the chain and its pricing: act_quant_forms.cpp (branch actq14, h200-quant's eager act_quant cases).
void eager_fp8_act_quant(Step& s, const std::string& name, int64_t T, int64_t k, DType act, bool dynamic,
                         bool per_row, int64_t count) {
  ActQuantCall call;
  call.m = T;
  call.k = k;
  call.act = act;
  call.scaling = per_row ? Scaling::row : Scaling::tensor;
  call.dynamic = dynamic;
  for (Op& op : act_quant_kernels(name, call, Impl::eager)) s.ops.push_back(counted(std::move(op), count));
}

std::vector<Op> eager_form(const Op& op, bool hf_modules) {
  Step s;
  const int64_t T = op.rows;
  switch (op.kernel) {
    case KernelId::silu_mul: eager_silu_mul(s, op.name, T, op.cols, op.dtype, 1); break;
    case KernelId::rmsnorm:
      if (!hf_modules || op.residual) return {op};
      eager_rmsnorm(s, op.name, T, op.cols, op.dtype, 1);
      break;
    case KernelId::rotary: {
      const int64_t d = op.attention.head_dim;
      // The measured rotary cases are one sequence (batch 1): one position only at one token.
      const bool one = op.rows <= 1;
      eager_rotary(s, T, op.attention.heads * d, "q", op.dtype, 1, 2, one);
      eager_rotary(s, T, op.attention.kv_heads * d, "k", op.dtype, 1, 0, one);
      break;
    }
    case KernelId::attention_decode: {
      // transformers' SDPA call (enable_gqa) runs cuDNN's decode kernel on sm90, as the eager
      // step prices it (eager_profile.cpp), not FlashAttention's split-KV pair.
      const AttentionShape& a = op.attention;
      return {ops::attention_decode_cudnn(op.name, a.batch, a.heads, a.kv_heads, a.kv_len, a.head_dim, op.dtype,
                                          op.kv_cache)};
    }
    default: return {op};
  }
  return s.ops;
}

}  // namespace perfmodel
