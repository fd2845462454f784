// Kernel kind `moe_topk`: the router's scores and top-k selection in one kernel (vLLM
// csrc/moe/topk_softmax_kernels.cu; grouped_topk for DeepSeek-V3's sigmoid + group-limited
// routing). The router GEMM before it is a plain `gemm`.
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

// Reads T x E logits; per logit a score (exp or sigmoid, ~4 FLOPs), the running top-k compare
// and, for softmax, the row sum; writes k fp32 weights and k int32 expert ids per token (and the
// int32 token index vLLM keeps for the permutation).
Op ops::moe_topk(std::string name, int64_t tokens, int64_t experts, int64_t top_k, DType logits) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::other;
  op.kernel = KernelId::moe_topk;
  op.dtype = logits;
  op.precision = Precision::fp32;
  op.rows = tokens;
  op.cols = experts;
  op.moe = {tokens, top_k, experts, 0};
  const double e = kernels::elems(tokens, experts, op.name);
  const double picks = kernels::elems(tokens, top_k, op.name);
  op.flops = 6.0 * e;
  op.bytes_read = e * bytes_of(logits);
  op.bytes_written = picks * (4.0 + 4.0 + 4.0);
  return op;
}

const KernelDef& kernel_def_moe_topk() {
  static const KernelDef d{.id = KernelId::moe_topk,
                           .name = "moe_topk",
                           .accuracy_set = "elementwise",
                           .from_case = nullptr,  // no validation launcher yet (issue 11, device side)
                           .instructions = {},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
