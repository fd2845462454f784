// Kernel kind `rotary`: rotary position embedding applied to q and k in place, as vLLM's
// rotary_embedding runs it (each token's position and its cos/sin row read).
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"
#include "perfmodel/instructions.hpp"

namespace perfmodel {

Op ops::rotary(std::string name, int64_t tokens, int64_t heads, int64_t kv_heads, int64_t head_dim, DType dtype) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::elementwise;
  op.kernel = KernelId::rotary;
  op.dtype = dtype;
  op.precision = Precision::fp32;
  op.attention = {tokens, heads, kv_heads, 1, 1, head_dim, false};
  op.rows = tokens;
  op.cols = (heads + kv_heads) * head_dim;
  const double e = kernels::elems(tokens, op.cols, op.name);
  const double b = bytes_of(dtype);
  op.flops = 3 * e;  // x cos + rotate(x) sin
  // each token's position (int64) and its cos/sin row (head_dim values in the activation dtype)
  op.bytes_read = e * b + static_cast<double>(tokens) * (8.0 + static_cast<double>(head_dim) * b);
  op.bytes_written = e * b;
  op.instructions = kernel_instructions(KernelId::rotary, tokens, op.cols, dtype);
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) {
  return ops::rotary(c.name, c.batch * c.q_len, c.heads, c.kv_heads, c.head_dim, c.dtype);
}
}  // namespace

const KernelDef& kernel_def_rotary() {
  static const KernelDef d{.id = KernelId::rotary,
                           .name = "rotary",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {0.0, 15.0, false, 0, 2},  // per element of q and k
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
