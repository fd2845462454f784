// Kernel kind `gemm`: y[m,n] = x[m,k] . W[n,k]^T (nn.Linear), cuBLAS / cuBLASLt.
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

// 2mnk FLOPs; reads x and W (and the bias), writes y (seed 000 example 2: bytes 2(MK + KN + MN)
// in bf16).
Op ops::gemm(std::string name, int64_t m, int64_t n, int64_t k, DType act, DType weight, Precision precision,
             bool bias) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::gemm;
  op.kernel = KernelId::gemm;
  op.dtype = act;
  op.precision = precision;
  op.gemm = {m, n, k, 1};
  checked_mul({m, n, k}, op.name, "(m x n x k)");
  const double M = static_cast<double>(m), N = static_cast<double>(n), K = static_cast<double>(k);
  op.flops = 2.0 * M * N * K;
  op.model_flops = op.flops;
  op.bytes_read = M * K * bytes_of(act) + N * K * bytes_of(weight) + (bias ? N * bytes_of(weight) : 0);
  op.bytes_written = M * N * bytes_of(act);
  return op;
}

Op ops::batched_gemm(std::string name, int64_t batch, int64_t m, int64_t n, int64_t k, DType t, Precision p) {
  Op g = gemm(std::move(name), m, n, k, t, t, p);
  const double b = static_cast<double>(batch);
  g.gemm.batch = batch;
  g.flops *= b;
  g.model_flops *= b;
  g.bytes_read *= b;
  g.bytes_written *= b;
  return g;
}

namespace {
Op from_case(const KernelCase& c, bool allow_tf32) {
  // tf32 cases store fp32 and run on tensor cores; fp8 cases read e4m3 and write bf16.
  const DType t = c.dtype;
  // An fp8 case is cuBLASLt's tensor-wise scaled GEMM (torch._scaled_mm in h200-production, the
  // calibrate suite's fp8 cube): the scaled GEMM's kernel prices it (quant_gemm_cost.cpp).
  if (t == DType::fp8) return ops::gemm_scaled(c.name, c.m, c.n, c.k, DType::bf16, DType::fp8, Scaling::tensor);
  const DType storage = t == DType::tf32 ? DType::fp32 : t;
  Op op = ops::gemm(c.name, c.m, c.n, c.k, storage, storage, matmul_precision(t, allow_tf32));
  return op;
}
}  // namespace

const KernelDef& kernel_def_gemm() {
  static const KernelDef d{.id = KernelId::gemm,
                           .name = "gemm",
                           .accuracy_set = "gemm",
                           .from_case = from_case,
                           .instructions = {},  // tensor cores: no issue roof
                           .cost = gemm_cost};
  return d;
}

}  // namespace perfmodel
