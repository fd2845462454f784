// The eager profile: PyTorch eager as Hugging Face transformers runs a Llama-family model
// (modeling_llama.py, attn_implementation="sdpa", StaticCache). Every elementwise op is its own
// kernel; RMSNorm runs in fp32 through several kernels; rotary is several ops; GQA repeats K/V
// into full-head tensors (repeat_kv) before attention; the static cache is written by
// index_copy_; each launch costs the host its dispatch time (docs/profiles.md).
#include "perfmodel/ops.hpp"
#include "perfmodel/step.hpp"

namespace perfmodel {

namespace {

Op counted(Op op, int64_t count) {
  op.count = count;
  return op;
}

// LlamaRMSNorm.forward: x.to(fp32); x.pow(2).mean(-1, keepdim); x * rsqrt(var + eps);
// weight * x.to(bf16). Seven kernels, the wide ones in fp32.
void eager_rmsnorm(Step& s, const std::string& name, int64_t T, int64_t d, DType act, int64_t count) {
  s.ops.push_back(counted(ops::cast(name + ".to_fp32", T, d, act, DType::fp32), count));
  s.ops.push_back(counted(ops::elementwise(name + ".pow", KernelId::mul, T, d, DType::fp32, 1, 1, 1), count));
  Op mean = ops::elementwise(name + ".mean", KernelId::other, T, d, DType::fp32, 1, 0, 1);
  mean.kind = OpKind::norm;
  mean.bytes_written = static_cast<double>(T) * 4;
  s.ops.push_back(counted(mean, count));
  s.ops.push_back(counted(ops::elementwise(name + ".add_eps_rsqrt", KernelId::other, T, 1, DType::fp32, 1, 1, 2, 2), count));
  Op scale = ops::elementwise(name + ".mul_rsqrt", KernelId::mul, T, d, DType::fp32, 1, 1, 1);
  scale.bytes_read += static_cast<double>(T) * 4;
  s.ops.push_back(counted(scale, count));
  s.ops.push_back(counted(ops::cast(name + ".to_bf16", T, d, DType::fp32, act), count));
  Op w = ops::elementwise(name + ".mul_weight", KernelId::mul, T, d, act, 1, 1, 1);
  w.bytes_read += static_cast<double>(d) * bytes_of(act);
  s.ops.push_back(counted(w, count));
}

// apply_rotary_pos_emb: q*cos + rotate_half(q)*sin for q and k; rotate_half slices, negates
// and concatenates. Per tensor: mul, slice-neg, cat, mul, add = 5 kernels.
// `views`: calls before it that launch nothing (cos and sin unsqueezed once for q and k).
void eager_rotary(Step& s, int64_t T, int64_t width, const std::string& which, DType act, int64_t count, int views) {
  Op mul_cos = ops::elementwise("rotary_" + which + ".mul_cos", KernelId::mul, T, width, act, 2, 1, 1);
  mul_cos.framework_calls = views;
  s.ops.push_back(counted(mul_cos, count));
  Op neg = ops::elementwise("rotary_" + which + ".neg", KernelId::other, T, width / 2, act, 1, 1, 1);
  neg.framework_calls = 2;  // rotate_half's two slices
  s.ops.push_back(counted(neg, count));
  Op cat = ops::copy("rotary_" + which + ".cat", T, width, act);
  s.ops.push_back(counted(cat, count));
  s.ops.push_back(counted(ops::elementwise("rotary_" + which + ".mul_sin", KernelId::mul, T, width, act, 2, 1, 1), count));
  s.ops.push_back(counted(ops::add("rotary_" + which + ".add", T, width, act), count));
}

}  // namespace

Step build_eager_step(const Model& m, const Workload& w) {
  Step s;
  s.ops.reserve(64);
  const int64_t T = w.tokens();
  const int64_t L = m.layers;
  const DType act = w.act_dtype, wt = w.weight_dtype;
  const Precision mm = matmul_precision(act, w.allow_tf32);
  const bool rms = m.norm == NormKind::rmsnorm;
  const int64_t group = m.heads / m.kv_heads;

  s.ops.push_back(ops::embedding("embed_tokens", T, m.hidden, wt, act));
  s.ops.back().vocab = m.vocab;
  if (m.position == PositionKind::rope) {
    // LlamaRotaryEmbedding.forward, once per step: inv_freq @ positions, cat, cos, sin and two
    // casts (6 kernels on a few KB), with cache_position, position_ids and the expands around it.
    Op r = ops::elementwise("rotary_emb", KernelId::other, T, m.head_dim, DType::fp32, 1, 1, 2);
    r.launches = 6;
    r.passes = 6;
    r.framework_calls = 6;
    s.ops.push_back(r);
  }
  if (w.phase == Phase::decode) {
    // _update_causal_mask for the static cache: full, triu, arange, compare, multiply (5 kernels
    // over ctx mask entries) and the reshapes and expand.
    Op mask = ops::elementwise("causal_mask", KernelId::other, 1, w.ctx, act, 1, 1, 1);
    mask.launches = 5;
    mask.passes = 5;
    mask.framework_calls = 4;
    s.ops.push_back(mask);
  }
  if (m.position == PositionKind::learned) s.ops.push_back(ops::add("embed_positions", T, m.hidden, act));

  auto norm = [&](const std::string& name, int64_t count) {
    if (rms) eager_rmsnorm(s, name, T, m.hidden, act, count);
    else s.ops.push_back(counted(ops::layernorm(name, T, m.hidden, act, false), count));
  };

  norm("input_norm", L);
  // Separate q, k, v projections.
  // Separate q, k, v projections, each followed by .view() and .transpose(1, 2) (no kernels).
  for (const char* name : {"q_proj", "k_proj", "v_proj"}) {
    Op p = ops::gemm(name, T, name[0] == 'q' ? m.q_dim() : m.kv_dim(), m.hidden, act, wt, mm, m.qkv_bias);
    p.framework_calls = 2;
    s.ops.push_back(counted(p, L));
  }
  if (m.position == PositionKind::rope) {
    eager_rotary(s, T, m.q_dim(), "q", act, L, 2);  // cos.unsqueeze(1), sin.unsqueeze(1)
    eager_rotary(s, T, m.kv_dim(), "k", act, L, 0);
  }
  // StaticCache.update: index_copy_ of the new K and V into the cache.
  Op kcopy = ops::kv_append("kv_write.index_copy", T, m.kv_heads, m.head_dim, act, w.kv_dtype);
  kcopy.launches = 2;
  kcopy.passes = 2;
  s.ops.push_back(counted(kcopy, L));

  // The static cache holds max-length K/V; attention reads the first ctx positions (masked).
  const int64_t kv_len = w.ctx;
  if (group > 1) {
    // repeat_kv: expand + reshape materializes K and V at full head count.
    Op rep = ops::copy("repeat_kv", w.batch * kv_len, 2 * m.q_dim(), w.kv_dtype);
    rep.bytes_read = static_cast<double>(w.batch) * kv_len * 2 * m.kv_dim() * bytes_of(w.kv_dtype);
    rep.launches = 2;
    rep.passes = 2;
    rep.framework_calls = 4;  // x[:, :, None] and .expand() for K and V
    s.ops.push_back(counted(rep, L));
  }
  if (w.phase == Phase::decode) {
    Op a = ops::attention_decode("attention.sdpa", w.batch, m.heads, m.heads, kv_len, m.head_dim, act, w.kv_dtype);
    a.launches = 1;
    a.passes = 1;
    a.framework_calls = 3;  // .transpose(1, 2), .contiguous() (already contiguous at one query), .reshape()
    s.ops.push_back(counted(a, L));
  } else {
    s.ops.push_back(counted(ops::attention_prefill("attention.sdpa", w.batch, m.heads, m.heads, w.ctx,
                                                   kv_len, m.head_dim, true, act, w.kv_dtype),
                            L));
  }
  s.ops.push_back(counted(ops::gemm("o_proj", T, m.hidden, m.q_dim(), act, wt, mm, m.o_bias), L));
  s.ops.push_back(counted(ops::add("residual_add_attn", T, m.hidden, act), L));
  if (m.norms_per_layer == 4) norm("post_attention_norm", L);
  norm("post_attention_layernorm", L);
  if (m.gated_mlp) {
    s.ops.push_back(counted(ops::gemm("gate_proj", T, m.intermediate, m.hidden, act, wt, mm, m.mlp_bias), L));
    s.ops.push_back(counted(ops::gemm("up_proj", T, m.intermediate, m.hidden, act, wt, mm, m.mlp_bias), L));
    // act_fn(gate) then * up: two kernels.
    s.ops.push_back(counted(ops::elementwise("act_fn", m.act == Activation::silu ? KernelId::other : KernelId::gelu_fused,
                                             T, m.intermediate, act, 1, 1, 4),
                            L));
    s.ops.push_back(counted(ops::elementwise("act_mul_up", KernelId::mul, T, m.intermediate, act, 2, 1, 1), L));
  } else {
    s.ops.push_back(counted(ops::gemm("fc_in", T, m.intermediate, m.hidden, act, wt, mm, m.mlp_bias), L));
    s.ops.push_back(counted(ops::gelu("act", T, m.intermediate, act, true), L));
  }
  s.ops.push_back(counted(ops::gemm(m.gated_mlp ? "down_proj" : "fc_out", T, m.hidden, m.intermediate, act, wt, mm, m.mlp_bias), L));
  if (m.norms_per_layer == 4) norm("post_mlp_norm", L);
  s.ops.push_back(counted(ops::add("residual_add_mlp", T, m.hidden, act), L));

  norm("final_norm", 1);
  const int64_t logits_rows = w.phase == Phase::prefill && !w.lm_head_all_positions ? w.batch : T;
  s.ops.push_back(ops::gemm("lm_head", logits_rows, m.vocab, m.hidden, act, wt, mm, false));
  s.ops.back().framework_calls = 1;  // hidden_states[:, -1:, :]
  // HF upcasts logits to fp32.
  s.ops.push_back(ops::cast("logits.float", logits_rows, m.vocab, act, DType::fp32));
  return s;
}

}  // namespace perfmodel
