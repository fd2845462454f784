// The kernels of one quantized linear (quant.hpp): what vLLM / TensorRT-LLM launch for it.
#include "perfmodel/act_quant_forms.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/quant.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

namespace {

// A W8A8 / W4A4 linear: the activations quantized as `impl` runs it (act_quant_forms.cpp), then the GEMM.
std::vector<Op> scaled_linear(const std::string& name, int64_t m, int64_t n, int64_t k, const Workload& w, bool bias,
                              Impl impl) {
  const DType in = gemm_input(w);
  const bool four_bit = in == DType::nvfp4 || in == DType::mxfp4;
  ActQuantCall call;
  call.m = m;
  call.k = k;
  call.act = w.act_dtype;
  call.in = in;
  call.scaling = w.quant.scaling;
  call.dynamic = w.quant.act_quant == ActQuant::dynamic;
  std::vector<Op> out = act_quant_kernels(name, call, impl);
  out.push_back(ops::gemm_scaled(name, m, n, k, w.act_dtype, in, four_bit ? Scaling::block : w.quant.scaling, bias));
  return out;
}

}  // namespace

std::vector<Op> quantized_linear(const std::string& name, int64_t m, int64_t n, int64_t k, const Workload& w,
                                 bool bias) {
  const DType act = w.act_dtype;
  switch (linear_kind(w)) {
    case LinearKind::dense: throw InputError(name + ": not a quantized linear");
    case LinearKind::weight_only: {
      // A serving engine's mixed-input GEMM is one kernel (Marlin, Machete, fpA_intB; quant_gemm_cost.cpp); the four
      // launches of torch int8pack's call are PyTorch's (ops::gemm_wonly), not the engine's.
      Op op = ops::gemm_wonly(name, m, n, k, act, w.weight_dtype, effective_group(w.weight_dtype, w.quant), bias);
      op.launches = 1;
      return {op};
    }
    case LinearKind::scaled: break;
  }
  return scaled_linear(name, m, n, k, w, bias, Impl::fused);
}

std::vector<Op> torch_quantized_linear(const std::string& name, int64_t m, int64_t n, int64_t k, const Workload& w,
                                       bool bias, Impl impl) {
  // W8A8: the activations quantized in torch ops (eager) or by Inductor's kernels (compiled).
  if (linear_kind(w) == LinearKind::scaled) return scaled_linear(name, m, n, k, w, bias, impl);
  if (linear_kind(w) != LinearKind::weight_only || w.weight_dtype != DType::int8) return quantized_linear(name, m, n, k, w, bias);
  const DType act = w.act_dtype;
  const bool eager = impl == Impl::eager;
  // The whole weight read as int8 and written as bf16, every call: Inductor's triton_poi_fused__to_copy_0,
  // or eagerly ATen's unrolled (non-vectorized) conversion kernel, priced on TensorIterator's generic
  // path at the eager profile's int8_cast_elements_per_s (3.9e11, h200-int8-compiled; fit_int8_cast.py).
  Op to_act = ops::cast(name + ".weight_to_" + std::string(to_string(act)), n, k, DType::int8, act);
  to_act.strided = eager;
  // The bf16 GEMM over the copy just written: l2_hit 1, clamped by price() to what L2 keeps of it
  // (a 4096 x 4096 copy, 32 MiB, is read from the H200's 60 MiB L2; a 28672 x 4096 one mostly is not).
  Op mm = ops::gemm(name, m, n, k, act, act, matmul_precision(act, w.allow_tf32), bias);
  mm.l2_hit = 1;
  // y * scale[n] over the GEMM's output (from L2): Inductor's triton_poi_fused_mul_1; eagerly ATen's
  // vectorized kernel for one row and its generic broadcast kernel (elementwise_kernel<128, 4>) for more.
  Op scale = ops::add(name + ".scale", m, n, act);
  scale.bytes_read = static_cast<double>(m) * static_cast<double>(n) * bytes_of(act) + static_cast<double>(n) * bytes_of(act);
  scale.l2_hit = 1;
  scale.strided = eager && m > 1;
  return {to_act, mm, scale};
}

}  // namespace perfmodel
