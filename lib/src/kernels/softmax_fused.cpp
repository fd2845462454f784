// Kernel kind `softmax_fused`: online softmax over rows, one CTA per row (seed 001 slide 49).
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"
#include "perfmodel/instructions.hpp"

namespace perfmodel {

Op ops::softmax(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused) {
  if (!fused) return softmax_naive(std::move(name), rows, cols, dtype);
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::other;
  op.kernel = KernelId::softmax_fused;
  op.dtype = dtype;
  op.precision = Precision::fp32;
  op.rows = rows;
  op.cols = cols;
  const double mn = kernels::elems(rows, cols, op.name);
  op.flops = 5 * mn;  // max, subtract, exp, sum, divide
  // One sweep for the running max and sum, one to write; the second re-reads the row the first
  // brought in (an L2 hit).
  op.bytes_read = mn * bytes_of(dtype);
  op.bytes_written = mn * bytes_of(dtype);
  op.passes = 2;
  op.reread_passes = 1;
  op.row_reads_per_sweep = {1, 1};
  op.instructions = kernel_instructions(op.kernel, rows, cols, dtype);
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::softmax(c.name, c.rows, c.cols, c.dtype, true); }
}  // namespace

const KernelDef& kernel_def_softmax_fused() {
  static const KernelDef d{.id = KernelId::softmax_fused,
                           .name = "softmax_fused",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {122.0, 34.1, true},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
