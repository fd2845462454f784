// Kernel kind `gelu_unfused`: GELU as eight eager kernels: the seed's 10 reads and 8 writes per element
// (seed 000: "10 чтений и 8 записей"), 9x the fused traffic.
#include "op_builders.hpp"
#include "../cost/kernel_costs.hpp"

namespace perfmodel {

Op ops::gelu_unfused(std::string name, int64_t rows, int64_t cols, DType dtype) {
  return elementwise(std::move(name), KernelId::gelu_unfused, rows, cols, dtype, 10, 8, 8, 8);
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::gelu_unfused(c.name, c.rows, c.cols, c.dtype); }
}  // namespace

const KernelDef& kernel_def_gelu_unfused() {
  static const KernelDef d{.id = KernelId::gelu_unfused,
                           .name = "gelu_unfused",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {8 * 20.3, 8 * 7.0}  /* eight kernels of one operation */,
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
