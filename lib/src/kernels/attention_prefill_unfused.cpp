// Kernel kind `attention_prefill_unfused`: the eager PyTorch math path. S = Q K^T as a batched
// GEMM writing the full score matrix, a softmax pass reading and writing it, and P V: the score
// matrix crosses memory three times (seed 001 slide 46: 40.3 GB vs 4.4 GB for FlashAttention).
// No causal FLOP saving: the mask is applied to a full matrix.
#include <algorithm>

#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"

namespace perfmodel {

Op ops::attention_prefill_unfused(std::string name, int64_t batch, int64_t heads, int64_t kv_heads, int64_t q_len,
                                  int64_t kv_len, int64_t head_dim, bool causal, DType act, DType kv) {
  Op op = attention_prefill(std::move(name), batch, heads, kv_heads, q_len, kv_len, head_dim, causal, act, kv);
  op.kernel = KernelId::attention_prefill_unfused;
  const double B = static_cast<double>(batch), H = static_cast<double>(heads);
  const double D = static_cast<double>(head_dim);
  const double scores = B * H * static_cast<double>(q_len) * static_cast<double>(kv_len);
  op.flops = 4 * B * H * D * static_cast<double>(q_len) * static_cast<double>(kv_len) + 5 * scores;
  op.model_flops = 4 * B * H * D * attention_pairs(q_len, kv_len, causal);
  // S written by QK^T, read and P written by softmax, P read by PV.
  op.bytes_read += 2 * scores * bytes_of(act);
  op.bytes_written += 2 * scores * bytes_of(act);
  op.launches = 3;
  op.passes = 3;
  return op;
}

namespace {

Op from_case(const KernelCase& c, bool) {
  return ops::attention_prefill_unfused(c.name, c.batch, c.heads, c.kv_heads, c.q_len, c.kv_len, c.head_dim,
                                        c.causal, c.dtype, c.dtype);
}

// The three kernels it launches: S = Q K^T batched over (sequence, KV head) with the G query
// heads of a group stacked as rows, the row softmax of S in place, and O = P V.
std::vector<Op> launched_kernels(const Op& op) {
  const AttentionShape& a = op.attention;
  const int64_t groups = a.batch * a.kv_heads, g = a.heads / a.kv_heads;
  return {ops::batched_gemm("qk", groups, g * a.q_len, a.kv_len, a.head_dim, op.dtype, op.precision),
          ops::softmax("softmax", a.batch * a.heads * a.q_len, a.kv_len, op.dtype, true),
          ops::batched_gemm("pv", groups, g * a.q_len, a.head_dim, a.kv_len, op.dtype, op.precision)};
}

// Priced kernel by kernel; the op keeps its own FLOPs, bytes and roofline.
OpCost price_whole(const Op& op, const Roofs& r, Impl impl) {
  const Card& card = r.card;
  OpCost total;
  for (const Op& k : launched_kernels(op)) {
    const OpCost c = price(k, r, impl);
    total.time_s += c.time_s;
    total.compute_time_s += c.compute_time_s;
    total.memory_time_s += c.memory_time_s;
  }
  total.nominal_bandwidth = card.bandwidth;
  total.nominal_peak = card.peak_flops(op.precision);
  total.roofline_time_s = std::max(op.flops / total.nominal_peak, op.bytes() / card.bandwidth);
  total.overhead_time_s = std::max(0.0, total.time_s - std::max(total.compute_time_s, total.memory_time_s));
  total.bound = total.compute_time_s >= total.memory_time_s ? Bound::compute : Bound::memory;
  total.achieved_flops = op.flops / total.time_s;
  return total;
}

}  // namespace

const KernelDef& kernel_def_attention_prefill_unfused() {
  static const KernelDef d{.id = KernelId::attention_prefill_unfused,
                           .name = "attention_prefill_unfused",
                           .accuracy_set = "attention",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = stream_cost,
                           .price = price_whole};
  return d;
}

}  // namespace perfmodel
