// Kernel kind `silu_mul`: SwiGLU's silu(gate) * up in one kernel (reads gate and up, writes one).
#include "op_builders.hpp"
#include "../cost/kernel_costs.hpp"

namespace perfmodel {

Op ops::silu_mul(std::string name, int64_t rows, int64_t cols, DType dtype) {
  // silu(g) * u = g / (1 + exp(-g)) * u: about 5 FLOPs per element.
  return elementwise(std::move(name), KernelId::silu_mul, rows, cols, dtype, 2, 1, 5);
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::silu_mul(c.name, c.rows, c.cols, c.dtype); }
}  // namespace

const KernelDef& kernel_def_silu_mul() {
  static const KernelDef d{.id = KernelId::silu_mul,
                           .name = "silu_mul",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {23.4, 30.8},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
