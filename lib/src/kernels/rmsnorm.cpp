// Kernel kind `rmsnorm`: RMSNorm over rows, one CTA per row, optionally with the residual add
// fused in (as serving engines run it).
#include "../cost/kernel_costs.hpp"
#include "row_op.hpp"

namespace perfmodel {

Op ops::rmsnorm(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused_residual) {
  // square, sum, scale, weight: 4 FLOPs per element (+1 for the fused residual add).
  // Two dependent sweeps: the sum of squares (a block reduction), then the scaled write, which
  // also fetches the weight (a first touch: it waits on DRAM like the first sweep).
  Op op = kernels::norm_op(std::move(name), KernelId::rmsnorm, rows, cols, dtype, fused_residual, 1,
                           fused_residual ? 5 : 4);
  op.passes = 2;
  // Plain: x, then x again and w. Fused residual: x and r (h written), then h and w.
  op.row_reads_per_sweep = fused_residual ? std::array<int, 4>{2, 2} : std::array<int, 4>{1, 2};
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::rmsnorm(c.name, c.rows, c.cols, c.dtype, c.residual); }
}  // namespace

const KernelDef& kernel_def_rmsnorm() {
  static const KernelDef d{.id = KernelId::rmsnorm,
                           .name = "rmsnorm",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           // the fused residual: the add and a second write
                           .instructions = {87.0, 12.1, true, 16.4},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
