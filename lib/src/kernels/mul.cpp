// Kernel kind `mul`: an elementwise product as PyTorch eager launches it (the eager profile's
// x * y, x * scalar, pow); no stand-alone validation kernel.
#include "op_builders.hpp"
#include "../cost/kernel_costs.hpp"

namespace perfmodel {

const KernelDef& kernel_def_mul() {
  static const KernelDef d{.id = KernelId::mul,
                           .name = "mul",
                           .accuracy_set = "elementwise",
                           .from_case = nullptr,
                           .instructions = {22.0, 6.5},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
