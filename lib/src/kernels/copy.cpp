// Kernel kind `copy`: a device-to-device copy (1 read, 1 write).
#include "op_builders.hpp"
#include "../cost/kernel_costs.hpp"

namespace perfmodel {

Op ops::copy(std::string name, int64_t rows, int64_t cols, DType dtype) {
  Op op = elementwise(std::move(name), KernelId::copy, rows, cols, dtype, 1, 1, 0);
  op.kind = OpKind::copy;
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::copy(c.name, c.rows, c.cols, c.dtype); }
}  // namespace

const KernelDef& kernel_def_copy() {
  static const KernelDef d{.id = KernelId::copy,
                           .name = "copy",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {20.0, 3.63},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
