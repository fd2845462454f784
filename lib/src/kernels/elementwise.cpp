// The op of an elementwise kernel on rows x cols outputs (any map kernel: the definitions in this
// folder and the eager profile's framework kernels build theirs through it).
#include "op_builders.hpp"
#include "perfmodel/instructions.hpp"

namespace perfmodel {

Op ops::elementwise(std::string name, KernelId kernel, int64_t rows, int64_t cols, DType dtype, int inputs,
                    int outputs, double flops_per_element, int launches) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::elementwise;
  op.kernel = kernel;
  op.dtype = dtype;
  op.precision = vector_precision(dtype);
  op.rows = rows;
  op.cols = cols;
  const double e = kernels::elems(rows, cols, op.name);
  op.flops = flops_per_element * e;
  op.bytes_read = inputs * e * bytes_of(dtype);
  op.bytes_written = outputs * e * bytes_of(dtype);
  op.launches = launches;
  op.passes = launches;  // each kernel one sweep
  op.instructions = kernel_instructions(kernel, rows, cols, dtype);
  return op;
}

}  // namespace perfmodel
