// Kernel kind `moe_permute`: the tokens' expert ids sorted into per-expert runs padded to the
// GEMM's block (vLLM csrc/moe/moe_align_sum_kernels.cu, moe_align_block_size), and in PyTorch
// eager (transformers 5, torch._grouped_mm path) the hidden rows gathered into expert order.
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

// Sort: reads the T k int32 ids, writes the sorted token indices and the E + 1 expert offsets
// (a count pass and a scatter pass). Gather: T k rows of `hidden` read and written.
Op ops::moe_permute(std::string name, int64_t tokens, int64_t top_k, int64_t experts, int64_t hidden, DType act,
                    bool gather_rows) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::copy;
  op.kernel = KernelId::moe_permute;
  op.dtype = act;
  op.precision = Precision::fp32;
  const double picks = kernels::elems(tokens, top_k, op.name);
  op.rows = tokens * top_k;
  op.cols = gather_rows ? hidden : 1;
  op.moe = {tokens, top_k, experts, 0};
  op.bytes_read = picks * 4.0;
  op.bytes_written = picks * 4.0 + static_cast<double>(experts + 1) * 4.0;
  op.launches = 2;
  op.passes = 2;
  if (gather_rows) {
    const double rows = kernels::elems(tokens * top_k, hidden, op.name) * bytes_of(act);
    op.bytes_read += rows;
    op.bytes_written += rows;
    op.launches = 3;
    op.passes = 3;
  }
  return op;
}

const KernelDef& kernel_def_moe_permute() {
  static const KernelDef d{.id = KernelId::moe_permute,
                           .name = "moe_permute",
                           .accuracy_set = "elementwise",
                           .from_case = nullptr,  // no validation launcher yet (issue 11, device side)
                           .instructions = {},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
