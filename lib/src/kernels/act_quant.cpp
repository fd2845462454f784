// Kernel kind `act_quant`: scale and cast the m x k activations into the GEMM's input type
// (vLLM's scaled_fp8_quant / dynamic_per_token_scaled_fp8_quant, the NVFP4 quantizer). Per
// token and per block the kernel finds each row's / group's amax itself: it sweeps the row
// twice, the second time from L1/L2 (`amax_inside`).
#include "../cost/act_quant_cost.hpp"
#include "op_builders.hpp"

namespace perfmodel {

Op ops::act_quant(std::string name, int64_t m, int64_t k, DType act, DType in, Scaling scaling, bool amax_inside) {
  // (amax,) multiply, clamp per element; reads x and the tensor scale, writes x in `in` with its
  // scales (quant.hpp).
  Op op = elementwise(std::move(name), KernelId::act_quant, m, k, act, 1, 0, amax_inside ? 3 : 2);
  op.quant_weight = in;
  op.scaling = scaling;
  op.bytes_read += 4;
  op.bytes_written = act_storage_bytes(in, scaling, m, k);
  if (amax_inside) {
    op.passes = 2;
    op.reread_passes = 1;
  }
  return op;
}

namespace {
// A measured case names the quantized type (h200-quant: dtype fp8); what it quantizes is the
// model's bf16 activations (validation/scripts/quant/quant_gemm.py act_case). The case carries no
// scaling: priced as the static per-tensor cast.
Op from_case(const KernelCase& c, bool) {
  return ops::act_quant(c.name, c.rows, c.cols, DType::bf16, c.dtype, Scaling::tensor, false);
}
}  // namespace

const KernelDef& kernel_def_act_quant() {
  static const KernelDef d{.id = KernelId::act_quant,
                           .name = "act_quant",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = act_quant_cost};
  return d;
}

}  // namespace perfmodel
