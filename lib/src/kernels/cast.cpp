// Kernel kind `cast`: a dtype conversion (reads one dtype, writes another).
#include "op_builders.hpp"
#include "../cost/kernel_costs.hpp"

namespace perfmodel {

Op ops::cast(std::string name, int64_t rows, int64_t cols, DType from, DType to) {
  Op op = elementwise(std::move(name), KernelId::cast, rows, cols, from, 1, 0, 0);
  op.kind = OpKind::copy;
  op.bytes_written = kernels::elems(rows, cols, op.name) * bytes_of(to);
  return op;
}

const KernelDef& kernel_def_cast() {
  static const KernelDef d{.id = KernelId::cast,
                           .name = "cast",
                           .accuracy_set = "elementwise",
                           .from_case = nullptr,
                           .instructions = {20.0, 3.63},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
