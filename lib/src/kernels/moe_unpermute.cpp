// Kernel kind `moe_unpermute`: each token's k expert outputs scaled by their router weights and
// summed back into the token's row (vLLM moe_sum after fused_moe's second GEMM; PyTorch eager:
// a multiply and index_add_).
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

// A multiply and an add per routed element (2 T k d FLOPs); reads the T k rows and the T k fp32
// weights, writes T rows.
Op ops::moe_unpermute(std::string name, int64_t tokens, int64_t top_k, int64_t hidden, DType act) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::elementwise;
  op.kernel = KernelId::moe_unpermute;
  op.dtype = act;
  op.precision = vector_precision(act);
  op.rows = tokens;
  op.cols = hidden;
  op.moe.tokens = tokens;
  op.moe.top_k = top_k;
  const double routed = kernels::elems(tokens * top_k, hidden, op.name);
  op.flops = 2.0 * routed;
  op.bytes_read = routed * bytes_of(act) + kernels::elems(tokens, top_k, op.name) * 4.0;
  op.bytes_written = kernels::elems(tokens, hidden, op.name) * bytes_of(act);
  return op;
}

const KernelDef& kernel_def_moe_unpermute() {
  static const KernelDef d{.id = KernelId::moe_unpermute,
                           .name = "moe_unpermute",
                           .accuracy_set = "elementwise",
                           .from_case = nullptr,  // no validation launcher yet (issue 11, device side)
                           .instructions = {},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
