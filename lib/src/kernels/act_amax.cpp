// Kernel kind `act_amax`: the amax reduction of dynamic per-tensor activation quantization
// (vLLM's segmented_max_reduction, PyTorch's x.abs().amax()): reads the m x k activations once,
// writes one fp32.
#include "../cost/act_quant_cost.hpp"
#include "op_builders.hpp"

namespace perfmodel {

Op ops::act_amax(std::string name, int64_t m, int64_t k, DType act) {
  // |x| and max: one compare per element; the amax itself is one fp32.
  Op op = elementwise(std::move(name), KernelId::act_amax, m, k, act, 1, 0, 1);
  op.bytes_written = 4;
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::act_amax(c.name, c.rows, c.cols, c.dtype); }
}  // namespace

const KernelDef& kernel_def_act_amax() {
  static const KernelDef d{.id = KernelId::act_amax,
                           .name = "act_amax",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = act_quant_cost};
  return d;
}

}  // namespace perfmodel
