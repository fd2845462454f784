// Kernel kind `attention_prefill_fused`: flash (fused) prefill attention; the score matrix never
// reaches memory.
#include <algorithm>

#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

double ops::attention_pairs(int64_t q_len, int64_t kv_len, bool causal, int64_t window) {
  const double q = static_cast<double>(q_len), k = static_cast<double>(kv_len);
  if (!causal) return q * (window > 0 ? std::min(k, static_cast<double>(window)) : k);
  // Query i (0-based, aligned to the end of the keys) sees a + i + 1 keys, a = kv_len - q_len,
  // capped at the window: the first n1 queries are under the cap, the rest see `window` keys.
  const double a = k - q;
  if (window <= 0) return q * a + q * (q + 1) / 2;
  const double w = static_cast<double>(window);
  const double n1 = std::clamp(w - a, 0.0, q);
  return n1 * a + n1 * (n1 + 1) / 2 + (q - n1) * w;
}

// 4 b h d FLOPs per score pair (s^2, about halved when causal); Q, K, V read and O written once.
Op ops::attention_prefill(std::string name, int64_t batch, int64_t heads, int64_t kv_heads, int64_t q_len,
                          int64_t kv_len, int64_t head_dim, bool causal, DType act, DType kv, int64_t window) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::attention;
  op.kernel = KernelId::attention_prefill_fused;
  op.dtype = act;
  op.precision = matmul_precision(act, false);
  op.attention = {batch, heads, kv_heads, q_len, kv_len, head_dim, causal, window};
  checked_mul({batch, heads, q_len, kv_len, head_dim}, op.name);
  const double B = static_cast<double>(batch), H = static_cast<double>(heads);
  const double D = static_cast<double>(head_dim);
  op.flops = 4 * B * H * D * attention_pairs(q_len, kv_len, causal, window);
  op.model_flops = op.flops;
  op.bytes_read = B * q_len * H * D * bytes_of(act) + 2 * B * kv_len * kv_heads * D * bytes_of(kv);
  op.bytes_written = B * q_len * H * D * bytes_of(act);
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) {
  return ops::attention_prefill(c.name, c.batch, c.heads, c.kv_heads, c.q_len, c.kv_len, c.head_dim, c.causal,
                                c.dtype, c.dtype);
}
}  // namespace

const KernelDef& kernel_def_attention_prefill_fused() {
  static const KernelDef d{.id = KernelId::attention_prefill_fused,
                           .name = "attention_prefill_fused",
                           .accuracy_set = "attention",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = flash_prefill_cost};
  return d;
}

}  // namespace perfmodel
