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

}  // namespace perfmodel
