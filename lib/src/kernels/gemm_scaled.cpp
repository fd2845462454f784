// Kernel kind `gemm_scaled`: W8A8 / W4A4 GEMM on the card's fp8 / int8 / fp4 tensor peak with
// the scales applied in the epilogue (torch._scaled_mm / cuBLASLt, CUTLASS scaled_mm in vLLM):
// per tensor, per row (per token x per output channel) or per 128x128 block.
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"
#include "perfmodel/errors.hpp"

namespace perfmodel {

// 2mnk FLOPs at the input's peak; reads x and W in their packed types with their scales
// (quant.hpp), writes y in the activations' dtype.
Op ops::gemm_scaled(std::string name, int64_t m, int64_t n, int64_t k, DType act, DType in, Scaling scaling,
                    bool bias) {
  if (in != DType::fp8 && in != DType::int8 && in != DType::nvfp4 && in != DType::mxfp4)
    throw InputError(name + ": scaled GEMMs take fp8, int8, nvfp4 or mxfp4 inputs, got " +
                     std::string(to_string(in)));
  Op op = gemm(std::move(name), m, n, k, act, act, matmul_precision(in, false), bias);
  op.kernel = KernelId::gemm_scaled;
  op.quant_weight = in;
  op.scaling = scaling;
  const double N = static_cast<double>(n), K = static_cast<double>(k), M = static_cast<double>(m);
  op.bytes_read += weight_storage_bytes(in, in, 0, scaling, n, k) - N * K * bytes_of(act) +
                   act_storage_bytes(in, scaling, m, k) - M * K * bytes_of(act);
  return op;
}

namespace {
// A measured case: fp8 with tensor-wise scales and a bf16 output (the production set's
// _scaled_mm cases); the quant set's cases carry their scaling, which the accuracy guard uses.
Op from_case(const KernelCase& c, bool) {
  const DType in = c.dtype == DType::int8 ? DType::int8 : DType::fp8;
  return ops::gemm_scaled(c.name, c.m, c.n, c.k, DType::bf16, in, Scaling::tensor);
}
}  // namespace

const KernelDef& kernel_def_gemm_scaled() {
  static const KernelDef d{.id = KernelId::gemm_scaled,
                           .name = "gemm_scaled",
                           .accuracy_set = "gemm",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = scaled_gemm_cost};
  return d;
}

}  // namespace perfmodel
