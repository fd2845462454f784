// The kernels of one quantized linear (quant.hpp): what vLLM / TensorRT-LLM launch for it.
#include "perfmodel/errors.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/quant.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

std::vector<Op> quantized_linear(const std::string& name, int64_t m, int64_t n, int64_t k, const Workload& w,
                                 bool bias) {
  const DType act = w.act_dtype;
  switch (linear_kind(w)) {
    case LinearKind::dense: throw InputError(name + ": not a quantized linear");
    case LinearKind::weight_only:
      return {ops::gemm_wonly(name, m, n, k, act, w.weight_dtype, effective_group(w.weight_dtype, w.quant), bias)};
    case LinearKind::scaled: break;
  }
  const DType in = gemm_input(w);
  const Scaling s = w.quant.scaling;
  std::vector<Op> out;
  // The activations are quantized before the GEMM (vLLM scaled_fp8_quant): a per-tensor dynamic
  // scale needs the whole tensor's amax first (its own reduction kernel, then the scale/cast
  // kernel); per-token and 1x128-block scales and the 4-bit formats' per-16/32 block scales are
  // found inside the one quantization kernel; a static (calibrated) per-tensor scale skips the amax.
  const bool four_bit = in == DType::nvfp4 || in == DType::mxfp4;
  const bool tensor_dynamic = !four_bit && s == Scaling::tensor && w.quant.act_quant == ActQuant::dynamic;
  if (tensor_dynamic) out.push_back(ops::act_amax(name + "_amax", m, k, act));
  out.push_back(ops::act_quant(name + "_quant", m, k, act, in, four_bit ? Scaling::block : s,
                               !tensor_dynamic && (four_bit || s != Scaling::tensor)));
  out.push_back(ops::gemm_scaled(name, m, n, k, act, in, four_bit ? Scaling::block : s, bias));
  return out;
}

std::vector<Op> torch_quantized_linear(const std::string& name, int64_t m, int64_t n, int64_t k, const Workload& w,
                                       bool bias, Impl impl) {
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
