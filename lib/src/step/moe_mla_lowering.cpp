#include "moe_mla_lowering.hpp"

#include "perfmodel/ops.hpp"

namespace perfmodel::lowering {

namespace {

Op counted(Op op, int64_t count, int framework_calls = 0) {
  op.count = count;
  op.framework_calls = framework_calls;
  return op;
}

Precision mm_precision(const Workload& w) {
  return matmul_precision(w.weight_dtype == DType::fp8 ? DType::fp8 : w.act_dtype, w.allow_tf32);
}

}  // namespace

int64_t mla_expanded_head_dim(const Model& m) { return (m.mla.qk_head_dim() + m.mla.v_head_dim + 1) / 2; }

void fused_router(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t T = w.tokens();
  const DType act = w.act_dtype;
  // vLLM keeps the gate unquantized (ReplicatedLinear without quant_config).
  s.ops.push_back(
      counted(ops::gemm(n.name + ".gate", T, m.moe.experts, m.hidden, act, act, matmul_precision(act, w.allow_tf32)),
              n.count));
  s.ops.push_back(counted(ops::moe_topk(n.name + ".topk", T, m.moe.experts, m.moe.top_k, act), n.count));
}

void fused_experts(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t T = w.tokens(), k = m.moe.top_k, E = m.moe.experts, I = m.moe.expert_intermediate;
  const DType act = w.act_dtype, wt = w.weight_dtype;
  const Precision mm = mm_precision(w);
  s.ops.push_back(counted(ops::moe_permute(n.name + ".align", T, k, E, m.hidden, act, false), n.count));
  // fused_moe reads the hidden rows through the sorted index inside the first GEMM.
  s.ops.push_back(
      counted(ops::grouped_gemm(n.name + ".w13", T, k, E, 2 * I, m.hidden, act, wt, mm, w.routing_skew), n.count));
  s.ops.push_back(counted(ops::silu_mul(n.name + ".act_mul", T * k, I, act), n.count));
  s.ops.push_back(
      counted(ops::grouped_gemm(n.name + ".w2", T, k, E, m.hidden, I, act, wt, mm, w.routing_skew), n.count));
  s.ops.push_back(counted(ops::moe_unpermute(n.name + ".sum", T, k, m.hidden, act), n.count));
}

void fused_mla_up(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const MlaSpec& a = m.mla;
  const int64_t T = w.tokens(), H = m.heads;
  const DType act = w.act_dtype;
  const Precision mm = matmul_precision(act, w.allow_tf32);
  if (w.phase == Phase::decode) {
    // Absorbed: per head q_nope (128) x W_UK (128 x 512) into the latent, and after attention
    // the latent output (512) x W_UV (512 x 128): batched over the heads (vLLM _k_up / _v_up).
    if (n.before_attention)
      s.ops.push_back(counted(ops::batched_gemm("q_absorb", H, T, a.kv_lora_rank, a.qk_nope_head_dim, act, mm), n.count));
    else
      s.ops.push_back(counted(ops::batched_gemm("v_up", H, T, a.v_head_dim, a.kv_lora_rank, act, mm), n.count));
    return;
  }
  if (!n.before_attention) return;
  // Expanded: kv_b_proj turns the prompt's latents into per-head k_nope and v, and the rope key
  // is broadcast and concatenated to every head's key.
  s.ops.push_back(counted(ops::gemm("kv_b_proj", T, H * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank, act,
                                    w.weight_dtype, mm_precision(w)),
                          n.count));
  s.ops.push_back(counted(ops::copy("k_cat", T, H * a.qk_head_dim(), act), n.count));
}

void fused_mla_attention(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  if (w.phase == Phase::decode) {
    s.ops.push_back(counted(ops::attention_mla_decode(n.name, w.batch, m.heads, w.ctx, m.mla.kv_lora_rank,
                                                      m.mla.qk_rope_head_dim, w.act_dtype, w.kv_dtype),
                            n.count));
  } else {
    // The expanded keys and values are computed in the activation dtype.
    s.ops.push_back(counted(ops::attention_prefill(n.name, w.batch, m.heads, m.heads, w.ctx, w.ctx,
                                                   mla_expanded_head_dim(m), true, w.act_dtype, w.act_dtype),
                            n.count));
  }
}

void eager_router(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t T = w.tokens(), E = m.moe.experts, k = m.moe.top_k;
  const DType act = w.act_dtype;
  s.ops.push_back(counted(
      ops::gemm(n.name + ".gate", T, E, m.hidden, act, act, matmul_precision(act, w.allow_tf32)), n.count, 1));
  // softmax / sigmoid over the logits (in fp32), then torch.topk.
  s.ops.push_back(counted(ops::elementwise(n.name + ".scores", KernelId::other, T, E, DType::fp32, 1, 1, 4), n.count));
  Op topk = ops::moe_topk(n.name + ".topk", T, E, k, DType::fp32);
  s.ops.push_back(counted(topk, n.count));
  if (m.moe.n_group > 1) {
    // Group-limited routing (DeepseekV3TopkRouter.get_topk_indices): group scores from each
    // group's top-2, topk over groups, a mask scattered and expanded, masked_fill: ~6 kernels.
    Op group = ops::elementwise(n.name + ".group_mask", KernelId::other, T, E, DType::fp32, 1, 1, 1, 6);
    s.ops.push_back(counted(group, n.count, 4));
  }
  if (m.moe.norm_topk_prob)  // weights / weights.sum(-1, keepdim=True)
    s.ops.push_back(counted(ops::elementwise(n.name + ".renorm", KernelId::other, T, k, DType::fp32, 1, 1, 1, 2),
                            n.count));
  s.ops.push_back(counted(ops::cast(n.name + ".to_dtype", T, k, DType::fp32, act), n.count));
}

void eager_experts(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t T = w.tokens(), k = m.moe.top_k, E = m.moe.experts, I = m.moe.expert_intermediate;
  const DType act = w.act_dtype, wt = w.weight_dtype;
  const Precision mm = matmul_precision(act, w.allow_tf32);
  // argsort of the expert ids, histc for the group offsets, index_select of the rows.
  s.ops.push_back(counted(ops::moe_permute(n.name + ".sort_gather", T, k, E, m.hidden, act, true), n.count, 4));
  s.ops.push_back(
      counted(ops::grouped_gemm(n.name + "._grouped_mm_gate_up", T, k, E, 2 * I, m.hidden, act, wt, mm, w.routing_skew),
              n.count, 2));
  // act_fn(gate) * up: two kernels on the routed rows (chunk is a view).
  s.ops.push_back(counted(ops::elementwise(n.name + ".act_fn", KernelId::other, T * k, I, act, 1, 1, 4), n.count, 1));
  s.ops.push_back(counted(ops::elementwise(n.name + ".act_mul_up", KernelId::mul, T * k, I, act, 2, 1, 1), n.count));
  s.ops.push_back(
      counted(ops::grouped_gemm(n.name + "._grouped_mm_down", T, k, E, m.hidden, I, act, wt, mm, w.routing_skew),
              n.count, 1));
  // The routing weights multiplied in, then index_add_ back into token order.
  s.ops.push_back(
      counted(ops::elementwise(n.name + ".mul_weights", KernelId::mul, T * k, m.hidden, act, 1, 1, 1), n.count));
  Op back = ops::moe_unpermute(n.name + ".index_add", T, k, m.hidden, act);
  back.launches = 2;  // zeros_like and index_add_
  back.passes = 2;
  s.ops.push_back(counted(back, n.count, 2));
}

void eager_mla_up(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  if (!n.before_attention) return;
  const MlaSpec& a = m.mla;
  const int64_t T = w.tokens(), H = m.heads;
  const DType act = w.act_dtype;
  // kv_b_proj over the new tokens' latents; .view, .transpose, torch.split.
  s.ops.push_back(counted(ops::gemm("kv_b_proj", T, H * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank, act,
                                    w.weight_dtype, matmul_precision(act, w.allow_tf32)),
                          n.count, 3));
  // k_rot.expand(...) and torch.cat((k_pass, k_rot)) and torch.cat((q_pass, q_rot)).
  s.ops.push_back(counted(ops::copy("key_cat", T, H * a.qk_head_dim(), act), n.count, 2));
  s.ops.push_back(counted(ops::copy("query_cat", T, H * a.qk_head_dim(), act), n.count, 1));
}

}  // namespace perfmodel::lowering
