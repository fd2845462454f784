// Kernel kind `attention_decode`: flash-decoding over a KV cache (a split kernel and a combine).
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

// QK^T and PV are 4 b h L d FLOPs; the cache is read once per KV head group (GQA), q read and o
// written once.
Op ops::attention_decode(std::string name, int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len,
                         int64_t head_dim, DType act, DType kv) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::attention;
  op.kernel = KernelId::attention_decode;
  op.dtype = act;
  op.precision = matmul_precision(act, false);
  op.attention = {batch, heads, kv_heads, 1, kv_len, head_dim, false};
  checked_mul({batch, heads, kv_len, head_dim}, op.name);
  const double B = static_cast<double>(batch), H = static_cast<double>(heads);
  const double L = static_cast<double>(kv_len), D = static_cast<double>(head_dim);
  op.flops = 4 * B * H * L * D;
  op.model_flops = op.flops;
  op.bytes_read = 2 * B * kv_heads * L * D * bytes_of(kv) + B * H * D * bytes_of(act);
  op.bytes_written = B * H * D * bytes_of(act);
  op.kv_cache = kv;
  // Flash-decoding: a split kernel and a combine kernel.
  op.launches = 2;
  op.passes = 2;
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) {
  return ops::attention_decode(c.name, c.batch, c.heads, c.kv_heads, c.kv_len, c.head_dim, c.dtype, c.dtype);
}
}  // namespace

const KernelDef& kernel_def_attention_decode() {
  static const KernelDef d{.id = KernelId::attention_decode,
                           .name = "attention_decode",
                           .accuracy_set = "attention",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = flash_decode_cost};
  return d;
}

}  // namespace perfmodel
