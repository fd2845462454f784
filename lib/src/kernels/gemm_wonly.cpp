// Kernel kind `gemm_wonly`: weight-only quantized GEMM, y[m,n] = x[m,k] . dequant(W[n,k])^T
// with int4 / int8 weights and a 16-bit scale and zero per group of K (AWQ/GPTQ layouts), as
// tinygemm (torch._weight_int4pack_mm) and torch._weight_int8pack_mm run it.
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"
#include "perfmodel/errors.hpp"

namespace perfmodel {

// 2mnk FLOPs at the activations' tensor peak; reads x, the packed weights with their scales and
// zeros (quant.hpp) and the bias, writes y.
Op ops::gemm_wonly(std::string name, int64_t m, int64_t n, int64_t k, DType act, DType weight, int64_t group,
                   bool bias) {
  if (weight != DType::int4 && weight != DType::int8)
    throw InputError(name + ": weight-only GEMMs take int4 or int8 weights, got " + std::string(to_string(weight)));
  Op op = gemm(std::move(name), m, n, k, act, act, matmul_precision(act, false), bias);
  op.kernel = KernelId::gemm_wonly;
  op.quant_weight = weight;
  op.quant_group = group;
  const double N = static_cast<double>(n), K = static_cast<double>(k);
  op.bytes_read += weight_storage_bytes(weight, act, group, Scaling::tensor, n, k) - N * K * bytes_of(act);
  // torch._weight_int8pack_mm casts x and the scales to fp32 before its kernel and y back after
  // it (4 kernels; kernel names in validation/results/h200-quant); tinygemm is one kernel.
  if (weight == DType::int8) op.launches = 4;
  return op;
}

namespace {
// A measured case: dtype int4 or int8 in the case's `dtype`; tinygemm's default group of 128
// (int8: per channel). Cases written by validation/scripts/quant carry their group size, which
// the accuracy guard (tests/test_quant_accuracy.cpp) passes to ops::gemm_wonly itself.
Op from_case(const KernelCase& c, bool) {
  const DType w = c.dtype == DType::int8 ? DType::int8 : DType::int4;
  return ops::gemm_wonly(c.name, c.m, c.n, c.k, DType::bf16, w, w == DType::int4 ? 128 : 0);
}
}  // namespace

const KernelDef& kernel_def_gemm_wonly() {
  static const KernelDef d{.id = KernelId::gemm_wonly,
                           .name = "gemm_wonly",
                           .accuracy_set = "gemm",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = weight_only_gemm_cost};
  return d;
}

}  // namespace perfmodel
