// Kernel kind `gelu_mul`: GeGLU's gelu(gate) * up in one kernel (Gemma).
#include "op_builders.hpp"
#include "../cost/kernel_costs.hpp"

namespace perfmodel {

Op ops::gelu_mul(std::string name, int64_t rows, int64_t cols, DType dtype) {
  return elementwise(std::move(name), KernelId::gelu_mul, rows, cols, dtype, 2, 1, 10);
}

const KernelDef& kernel_def_gelu_mul() {
  static const KernelDef d{.id = KernelId::gelu_mul,
                           .name = "gelu_mul",
                           .accuracy_set = "elementwise",
                           .from_case = nullptr,
                           .instructions = {23.4, 32.4},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
