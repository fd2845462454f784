// Kernel kind `grouped_gemm`: the routed experts' GEMMs in one launch (vLLM fused_moe's Triton
// kernel, CUTLASS grouped GEMM, torch._grouped_mm): each expert multiplies the rows routed to it.
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

namespace {

// Expert i's (0-based) chance to be among a token's top_k: k / E uniform (skew 0), else k (i+1)^-s / sum_j j^-s,
// capped at 1 (ops.hpp).
std::vector<double> pick_probabilities(int64_t experts, int64_t top_k, double skew) {
  const double E = static_cast<double>(experts), k = static_cast<double>(top_k);
  if (skew <= 0) return std::vector<double>(static_cast<size_t>(experts), std::min(1.0, k / E));
  double norm = 0;
  for (int64_t i = 1; i <= experts; ++i) norm += std::pow(static_cast<double>(i), -skew);
  std::vector<double> p(static_cast<size_t>(experts));
  for (int64_t i = 1; i <= experts; ++i) p[static_cast<size_t>(i - 1)] = std::min(1.0, k * std::pow(static_cast<double>(i), -skew) / norm);
  return p;
}

// E[f(c)] for c ~ Binomial(n, p): the pmf over mean +- 12 sigma (log space), or once sigma passes 200 the normal
// density at each integer count of that window.
double expected_over_binomial(int64_t n, double p, const std::function<double(int64_t)>& f) {
  if (p >= 1) return f(n);
  if (!(p > 0)) return f(0);
  const double N = static_cast<double>(n), mu = N * p, sd = std::sqrt(N * p * (1 - p));
  const int64_t lo = std::max<int64_t>(0, static_cast<int64_t>(mu - 12 * sd) - 2);
  const int64_t hi = std::min<int64_t>(n, static_cast<int64_t>(mu + 12 * sd) + 2);
  const double lg = std::lgamma(N + 1), lp = std::log(p), lq = std::log1p(-p);
  double sum = 0, weight = 0;
  for (int64_t c = lo; c <= hi; ++c) {
    const double C = static_cast<double>(c);
    const double w = sd > 200 ? std::exp(-0.5 * (C - mu) * (C - mu) / (sd * sd))
                              : std::exp(lg - std::lgamma(C + 1) - std::lgamma(N - C + 1) + C * lp + (N - C) * lq);
    sum += w * f(c);
    weight += w;
  }
  return sd > 200 ? sum / weight : sum;
}

// E[ceil(c / block)] for c ~ Binomial(n, p): the pmf's sum (expected_over_binomial), or once sigma passes 200 the
// normal approximation's sum_j P(c > j block) (exact tails where the density's window would run to thousands of terms).
double expected_ceil_blocks(int64_t n, double p, int64_t block) {
  const double N = static_cast<double>(n), B = static_cast<double>(block);
  if (p >= 1) return std::ceil(N / B);
  if (!(p > 0)) return 0;
  const double mu = N * p, sd = std::sqrt(N * p * (1 - p));
  if (sd <= 200) return expected_over_binomial(n, p, [B](int64_t c) { return std::ceil(static_cast<double>(c) / B); });
  // The blocks below mu - 12 sigma are full for certain: counted, not summed.
  const double j0 = std::max(0.0, std::floor((mu - 12 * sd) / B));
  double sum = j0;
  for (double j = j0; j * B <= mu + 12 * sd; ++j) sum += 0.5 * std::erfc((j * B + 0.5 - mu) / (sd * std::sqrt(2.0)));
  return sum;
}

}  // namespace

double ops::expected_over_routed_counts(int64_t experts, int64_t top_k, int64_t tokens, double skew,
                                        const std::function<double(int64_t)>& f) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0;
  double sum = 0;
  for (double p : pick_probabilities(experts, top_k, skew)) sum += expected_over_binomial(tokens, p, f);
  return sum;
}

double ops::experts_touched(int64_t experts, int64_t top_k, int64_t tokens, double skew) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0;
  double touched = 0;
  for (double p : pick_probabilities(experts, top_k, skew)) touched += 1.0 - std::pow(1.0 - p, static_cast<double>(tokens));
  return touched;
}

double ops::expected_row_blocks(int64_t experts, int64_t top_k, int64_t tokens, int64_t block, double skew) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0 || block <= 0) return 0;
  if (skew <= 0) return static_cast<double>(experts) * expected_ceil_blocks(tokens, std::min(1.0, static_cast<double>(top_k) / static_cast<double>(experts)), block);
  double blocks = 0;
  for (double p : pick_probabilities(experts, top_k, skew)) blocks += expected_ceil_blocks(tokens, p, block);
  return blocks;
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
  op.moe.tokens = tokens;
  op.moe.top_k = top_k;
  op.moe.experts = experts;
  op.moe.experts_touched = touched;
  op.moe.skew = skew;
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
