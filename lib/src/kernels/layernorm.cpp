// Kernel kind `layernorm`: LayerNorm over rows, one CTA per row (GPT-2).
#include "../cost/kernel_costs.hpp"
#include "row_op.hpp"

namespace perfmodel {

Op ops::layernorm(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused_residual) {
  // mean, variance, normalize, scale, shift: about 7 FLOPs per element. Three dependent
  // sweeps: the mean, the variance around it, the normalized write. The variance sweep re-reads
  // the row the mean sweep just brought in (an L2 hit); the last one also fetches the weight and
  // bias, first touches that wait on DRAM.
  Op op = kernels::norm_op(std::move(name), KernelId::layernorm, rows, cols, dtype, fused_residual, 2,
                           fused_residual ? 8 : 7);
  op.passes = 3;
  op.reread_passes = 1;
  // x (and r), x again, x with w and b.
  op.row_reads_per_sweep = fused_residual ? std::array<int, 4>{2, 1, 3} : std::array<int, 4>{1, 1, 3};
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::layernorm(c.name, c.rows, c.cols, c.dtype, c.residual); }
}  // namespace

const KernelDef& kernel_def_layernorm() {
  static const KernelDef d{.id = KernelId::layernorm,
                           .name = "layernorm",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {130.0, 20.25, true},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
