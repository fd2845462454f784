// Kernel kind `kv_append`: the new tokens' K and V written into the cache at their slots.
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"
#include "perfmodel/instructions.hpp"

namespace perfmodel {

Op ops::kv_append(std::string name, int64_t tokens, int64_t kv_heads, int64_t head_dim, DType act, DType kv) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::kv_cache;
  op.kernel = KernelId::kv_append;
  op.dtype = kv;
  op.precision = Precision::fp32;
  op.rows = tokens;
  op.cols = 2 * kv_heads * head_dim;
  op.attention = {tokens, kv_heads, kv_heads, 1, 1, head_dim, false};
  const double e = kernels::elems(tokens, op.cols, op.name);
  op.bytes_read = e * bytes_of(act) + static_cast<double>(tokens) * 8;  // + slot indices
  op.bytes_written = e * bytes_of(kv);
  op.instructions = kernel_instructions(KernelId::kv_append, tokens, op.cols, kv);
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) {
  return ops::kv_append(c.name, c.batch * c.q_len, c.kv_heads, c.head_dim, c.dtype, c.dtype);
}
}  // namespace

const KernelDef& kernel_def_kv_append() {
  static const KernelDef d{.id = KernelId::kv_append,
                           .name = "kv_append",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {0.0, 14.6, false, 0, 2},  // per element of K and V
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
