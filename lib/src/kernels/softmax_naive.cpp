// Kernel kind `softmax_naive`: seed 001's manual_softmax, five kernels (max, subtract, exp, sum,
// divide) over rows.
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"
#include "perfmodel/instructions.hpp"

namespace perfmodel {

Op ops::softmax_naive(std::string name, int64_t rows, int64_t cols, DType dtype) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::other;
  op.kernel = KernelId::softmax_naive;
  op.dtype = dtype;
  op.precision = Precision::fp32;
  op.rows = rows;
  op.cols = cols;
  const double mn = kernels::elems(rows, cols, op.name), m = static_cast<double>(rows);
  const double b = bytes_of(dtype);
  op.flops = 5 * mn;
  // seed 001 manual_softmax: "Итого: 5MN + M чтений, 3MN + 2M записей"
  op.bytes_read = (5 * mn + m) * b;
  op.bytes_written = (3 * mn + 2 * m) * b;
  op.launches = 5;
  op.passes = 5;
  op.instructions = kernel_instructions(op.kernel, rows, cols, dtype);
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::softmax_naive(c.name, c.rows, c.cols, c.dtype); }
}  // namespace

const KernelDef& kernel_def_softmax_naive() {
  static const KernelDef d{.id = KernelId::softmax_naive,
                           .name = "softmax_naive",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {0.0, 59.4},  // five kernels, counted together
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
