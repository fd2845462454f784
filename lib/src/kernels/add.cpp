// Kernel kind `add`: x + y (2 reads, 1 write, 1 FLOP per element).
#include "op_builders.hpp"
#include "../cost/kernel_costs.hpp"

namespace perfmodel {

Op ops::add(std::string name, int64_t rows, int64_t cols, DType dtype) {
  return elementwise(std::move(name), KernelId::add, rows, cols, dtype, 2, 1, 1);
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::add(c.name, c.rows, c.cols, c.dtype); }
}  // namespace

const KernelDef& kernel_def_add() {
  static const KernelDef d{.id = KernelId::add,
                           .name = "add",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {22.0, 6.5},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
