// Kernel kind `other`: an elementwise kernel with no reference implementation of its own (eager
// reductions, casts and index kernels); counted like an add.
#include "op_builders.hpp"
#include "../cost/kernel_costs.hpp"

namespace perfmodel {

const KernelDef& kernel_def_other() {
  static const KernelDef d{.id = KernelId::other,
                           .name = "other",
                           .accuracy_set = "elementwise",
                           .from_case = nullptr,
                           .instructions = {22.0, 6.5},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
