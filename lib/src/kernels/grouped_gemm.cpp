// Kernel kind `grouped_gemm`: the routed experts' GEMMs in one launch (vLLM fused_moe's Triton
// kernel, CUTLASS grouped GEMM, torch._grouped_mm): each expert multiplies the rows routed to it.
#include <cmath>

#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

double ops::experts_touched(int64_t experts, int64_t top_k, int64_t tokens, double skew) {
  const double E = static_cast<double>(experts), k = static_cast<double>(top_k), T = static_cast<double>(tokens);
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0;
  if (skew <= 0) return E * (1.0 - std::pow(1.0 - k / E, T));
  double norm = 0;
  for (int64_t i = 1; i <= experts; ++i) norm += std::pow(static_cast<double>(i), -skew);
  double touched = 0;
  for (int64_t i = 1; i <= experts; ++i) {
    const double p = std::min(1.0, k * std::pow(static_cast<double>(i), -skew) / norm);
    touched += 1.0 - std::pow(1.0 - p, T);
  }
  return touched;
}

// FLOPs 2 (T k) n k_dim; reads the routed rows and the touched experts' weights, writes the
// routed rows' outputs. The tile plan (gemm_cost) is a batch of ceil(touched) experts with
// ceil(T k / touched) rows each: tiles and waves follow the tokens per expert.
Op ops::grouped_gemm(std::string name, int64_t tokens, int64_t top_k, int64_t experts, int64_t n, int64_t k_dim,
                     DType act, DType weight, Precision precision, double skew) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::gemm;
  op.kernel = KernelId::grouped_gemm;
  op.dtype = act;
  op.precision = precision;
  const int64_t routed = checked_mul({tokens, top_k}, op.name, "(tokens x top_k)");
  checked_mul({routed, n, k_dim}, op.name, "(rows x n x k)");
  checked_mul({experts, n, k_dim}, op.name, "(experts x n x k)");
  const double touched = experts_touched(experts, top_k, tokens, skew);
  const int64_t groups = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(touched - 1e-9)));
  const int64_t rows_per_expert = (routed + groups - 1) / groups;
  op.gemm = {rows_per_expert, n, k_dim, groups};
  op.moe = {tokens, top_k, experts, touched};
  const double R = static_cast<double>(routed), N = static_cast<double>(n), K = static_cast<double>(k_dim);
  op.flops = 2.0 * R * N * K;
  op.model_flops = op.flops;
  op.bytes_read = R * K * bytes_of(act) + touched * N * K * bytes_of(weight);
  op.bytes_written = R * N * bytes_of(act);
  return op;
}

const KernelDef& kernel_def_grouped_gemm() {
  static const KernelDef d{.id = KernelId::grouped_gemm,
                           .name = "grouped_gemm",
                           .accuracy_set = "gemm",
                           .from_case = nullptr,  // no validation launcher yet (issue 11, device side)
                           .instructions = {},   // tensor cores: no issue roof
                           .cost = grouped_gemm_cost};
  return d;
}

}  // namespace perfmodel
