#include "perfmodel/kernel_case.hpp"

#include "perfmodel/errors.hpp"
#include "perfmodel/l2_residency.hpp"
#include "perfmodel/ops.hpp"

namespace perfmodel {

std::optional<KernelId> kernel_from_string(const std::string& s) {
  for (int i = 0; i <= static_cast<int>(KernelId::other); ++i)
    if (to_string(static_cast<KernelId>(i)) == s) return static_cast<KernelId>(i);
  return std::nullopt;
}

double harness_l2_hit(const KernelCase& c, double capacity) {
  if (c.l2_resident) return 1;
  return c.rotated_bytes > 0 ? cyclic_l2_hit(c.rotated_bytes, capacity) : 0;
}

Op to_op_on(const KernelCase& c, double capacity) {
  Op op = to_op(c);
  op.l2_hit = harness_l2_hit(c, capacity);
  return op;
}

Op to_op(const KernelCase& c, bool allow_tf32) {
  const DType t = c.dtype;
  const int64_t tokens = c.batch * c.q_len;
  switch (c.kernel) {
    case KernelId::gemm: {
      // tf32 cases store fp32 and run on tensor cores.
      const DType storage = t == DType::tf32 ? DType::fp32 : t;
      const DType act = t == DType::fp8 ? DType::bf16 : storage;  // fp8: e4m3 in, bf16 out
      Op op = ops::gemm(c.name, c.m, c.n, c.k, storage, storage, matmul_precision(t, allow_tf32));
      if (t == DType::fp8) op.bytes_written = static_cast<double>(c.m) * c.n * bytes_of(act);
      return op;
    }
    case KernelId::copy: return ops::copy(c.name, c.rows, c.cols, t);
    case KernelId::add: return ops::add(c.name, c.rows, c.cols, t);
    case KernelId::gelu_fused: return ops::gelu(c.name, c.rows, c.cols, t, true);
    case KernelId::gelu_unfused: return ops::gelu(c.name, c.rows, c.cols, t, false);
    case KernelId::silu_mul: return ops::silu_mul(c.name, c.rows, c.cols, t);
    case KernelId::gelu_mul: return ops::gelu_mul(c.name, c.rows, c.cols, t);
    case KernelId::rmsnorm: return ops::rmsnorm(c.name, c.rows, c.cols, t, c.residual);
    case KernelId::layernorm: return ops::layernorm(c.name, c.rows, c.cols, t, c.residual);
    case KernelId::softmax_naive: return ops::softmax(c.name, c.rows, c.cols, t, false);
    case KernelId::softmax_fused: return ops::softmax(c.name, c.rows, c.cols, t, true);
    case KernelId::rotary: return ops::rotary(c.name, tokens, c.heads, c.kv_heads, c.head_dim, t);
    case KernelId::kv_append: return ops::kv_append(c.name, tokens, c.kv_heads, c.head_dim, t, t);
    case KernelId::embedding: return ops::embedding(c.name, c.rows, c.cols, t, t);
    case KernelId::attention_decode:
      return ops::attention_decode(c.name, c.batch, c.heads, c.kv_heads, c.kv_len, c.head_dim, t, t);
    case KernelId::attention_prefill_fused:
      return ops::attention_prefill(c.name, c.batch, c.heads, c.kv_heads, c.q_len, c.kv_len, c.head_dim,
                                    c.causal, t, t);
    case KernelId::attention_prefill_unfused:
      return ops::attention_prefill_unfused(c.name, c.batch, c.heads, c.kv_heads, c.q_len, c.kv_len,
                                            c.head_dim, c.causal, t, t);
    default:
      throw InputError("kernel '" + to_string(c.kernel) + "' has no stand-alone cost model");
  }
}

}  // namespace perfmodel
