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
};

std::optional<KernelId> kernel_from_string(const std::string& s);

// The op for a case. Throws InputError for a kernel the model does not price on its own.
Op to_op(const KernelCase& c, bool allow_tf32 = false);

}  // namespace perfmodel
