#pragma once
// A single kernel at given shapes, as the validation backend runs it and its result files
// record it (validation/results/<card>/kernels.json). `to_op` turns it into the Op the cost
// model prices, so measured and predicted refer to the same work.
#include <cstdint>
#include <optional>
#include <string>

#include "perfmodel/op.hpp"

namespace perfmodel {

struct KernelCase {
  std::string name;
  KernelId kernel = KernelId::copy;
  DType dtype = DType::bf16;
  int64_t m = 0, n = 0, k = 0;    // gemm: y[m,n] = x[m,k] W[n,k]^T
  int64_t rows = 0, cols = 0;     // row-wise kernels
  int64_t vocab = 0;              // embedding table rows
  int64_t batch = 0, heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_dim = 0;
  bool causal = false;
  bool residual = false;          // rmsnorm / layernorm with the residual add fused in
  bool l2_resident = false;       // measured hot without rotating buffers
  double rotated_bytes = 0;       // bytes of the buffer sets the harness cycled through (0 = not recorded)
};

// Whether the harness had the case's working set hot in L2: it asked for that (l2_resident), or
// the buffer sets it rotated through fit in half of L2. (The harness rotates through enough sets
// to exceed 2 x L2, but never more sets than launches per sample, at most 1000: tiny kernels
// cycle through a few MB and stay in L2; validation/src/harness.cu.)
bool hot_in_l2(const KernelCase& c, double l2_bytes);

std::optional<KernelId> kernel_from_string(const std::string& s);

// The op for a case. Throws InputError for a kernel the model does not price on its own.
Op to_op(const KernelCase& c, bool allow_tf32 = false);
// ... on a card: with the working set marked hot in L2 where the harness kept it there.
Op to_op_on(const KernelCase& c, double l2_bytes);

}  // namespace perfmodel
