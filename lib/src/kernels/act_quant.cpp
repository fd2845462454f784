// Kernel kind `act_quant`: scale and cast the m x k activations into the GEMM's input type
// (vLLM's scaled_fp8_quant / dynamic_per_token_scaled_fp8_quant, the NVFP4 quantizer). Per
// token and per block the kernel finds each row's / group's amax itself: it sweeps the row
// twice, the second time from L1/L2 (`amax_inside`).
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

Op ops::act_quant(std::string name, int64_t m, int64_t k, DType act, DType in, Scaling scaling, bool amax_inside) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::elementwise;
  op.kernel = KernelId::act_quant;
  op.dtype = act;
  op.precision = vector_precision(act);
  op.quant_weight = in;
  op.scaling = scaling;
  op.rows = m;
  op.cols = k;
  const double e = kernels::elems(m, k, op.name);
  op.flops = (amax_inside ? 3.0 : 2.0) * e;  // (amax,) multiply, clamp
  op.bytes_read = e * bytes_of(act) + 4;     // x and the tensor scale
  op.bytes_written = act_storage_bytes(in, scaling, m, k);
  if (amax_inside) {
    op.passes = 2;
    op.reread_passes = 1;
  }
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) {
  return ops::act_quant(c.name, c.rows, c.cols, c.dtype, DType::fp8, Scaling::tensor, false);
}
}  // namespace

const KernelDef& kernel_def_act_quant() {
  static const KernelDef d{.id = KernelId::act_quant,
                           .name = "act_quant",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
