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
  // How long the production harness replayed the call (harness.py; 0 = not recorded): its samples,
  // the launches in each, and the buffer sets it rotated (harness_clock.hpp reads them).
  int64_t samples = 0, launches_per_sample = 0, buffer_sets = 0;
};

// The share of the case's first touches the harness served from L2: all of them when it asked
// for that (l2_resident: one buffer set, re-run); otherwise the share of the buffer sets it
// cycled through (rotated_bytes: it rotates through enough sets to exceed 2 x L2, but never more
// than the launches per sample, at most 1000, so tiny kernels cycle through a few MB) that
// survives a cycle in `capacity` bytes of L2 (l2_residency.hpp).
double harness_l2_hit(const KernelCase& c, double capacity);

std::optional<KernelId> kernel_from_string(const std::string& s);

// The op for a case. Throws InputError for a kernel the model does not price on its own.
Op to_op(const KernelCase& c, bool allow_tf32 = false);
// ... with its L2 hit share as the harness ran it (capacity: Roofs::l2_cyclic_capacity).
Op to_op_on(const KernelCase& c, double capacity);

}  // namespace perfmodel
