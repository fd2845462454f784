// Kernel kind `gelu_fused`: GELU (tanh form) in one kernel: 1 read, 1 write per element.
#include "op_builders.hpp"
#include "../cost/kernel_costs.hpp"

namespace perfmodel {

Op ops::gelu(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused) {
  // tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): 8 operations per element.
  if (!fused) return gelu_unfused(std::move(name), rows, cols, dtype);
  return elementwise(std::move(name), KernelId::gelu_fused, rows, cols, dtype, 1, 1, 8);
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::gelu(c.name, c.rows, c.cols, c.dtype, true); }
}  // namespace

const KernelDef& kernel_def_gelu_fused() {
  static const KernelDef d{.id = KernelId::gelu_fused,
                           .name = "gelu_fused",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {17.5, 25.9},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
