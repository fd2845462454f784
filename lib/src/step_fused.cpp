// The fused profile: what serving engines (vLLM, TensorRT-LLM, SGLang) run. The residual add is
// fused into the following norm, gate/up and q/k/v are one GEMM each, the activation is one
// kernel, rotary and the KV-cache write are one kernel each, attention is flash-style, and the
// step is replayed as one CUDA graph, so there is no host gap between kernels (docs/profiles.md).
#include "perfmodel/ops.hpp"
#include "perfmodel/step.hpp"

namespace perfmodel {

namespace {

Op norm_op(const Model& m, const std::string& name, int64_t tokens, DType act, bool fused_residual) {
  return m.norm == NormKind::rmsnorm ? ops::rmsnorm(name, tokens, m.hidden, act, fused_residual)
                                     : ops::layernorm(name, tokens, m.hidden, act, fused_residual);
}

Op counted(Op op, int64_t count) {
  op.count = count;
  return op;
}

// Attention for the layers that share one KV length (sliding windows split the layers).
void add_attention(Step& s, const Model& m, const Workload& w, int64_t window, int64_t layers,
                   const std::string& suffix) {
  // Decode reads at most `window` cached tokens; prefill attends over the whole prompt with
  // each query seeing at most `window` keys.
  const int64_t kv_len = window > 0 && w.ctx > window && w.phase == Phase::decode ? window : w.ctx;
  if (layers == 0) return;
  if (w.phase == Phase::decode) {
    s.ops.push_back(counted(ops::attention_decode("attention" + suffix, w.batch, m.heads,
                                                  m.kv_heads, kv_len, m.head_dim, w.act_dtype,
                                                  w.kv_dtype),
                            layers));
  } else {
    s.ops.push_back(counted(ops::attention_prefill("attention" + suffix, w.batch, m.heads,
                                                   m.kv_heads, w.ctx, kv_len, m.head_dim,
                                                   /*causal=*/true, w.act_dtype, w.kv_dtype, window),
                            layers));
  }
}

}  // namespace

void append_fused_attention(Step& s, const Model& m, const Workload& w) {
  const int64_t L = m.layers;
  if (m.sliding_window > 0 && w.ctx > m.sliding_window) {
    const int64_t local = m.window_pattern == WindowPattern::all ? L : (L + 1) / 2;
    add_attention(s, m, w, m.sliding_window, local, "_local");
    add_attention(s, m, w, 0, L - local, "_global");
  } else {
    add_attention(s, m, w, 0, L, "");
  }
}

Step build_fused_step(const Model& m, const Workload& w) {
  Step s;
  s.ops.reserve(20);
  const int64_t T = w.tokens();
  const int64_t L = m.layers;
  const DType act = w.act_dtype, wt = w.weight_dtype;
  const Precision mm = matmul_precision(wt == DType::fp8 ? DType::fp8 : act, w.allow_tf32);

  s.ops.push_back(ops::embedding("embed_tokens", T, m.hidden, wt, act));
  s.ops.back().vocab = m.vocab;
  if (m.position == PositionKind::learned) {
    // Learned absolute positions (GPT-2): a second gather fused with the add.
    Op pos = ops::add("embed_positions", T, m.hidden, act);
    s.ops.push_back(pos);
  }

  // Per layer. The first layer's norm has no residual to add; the difference is one tensor
  // read and write and is ignored (every layer is priced alike).
  s.ops.push_back(counted(norm_op(m, "input_norm", T, act, true), L));
  s.ops.push_back(counted(ops::gemm("qkv_proj", T, m.q_dim() + 2 * m.kv_dim(), m.hidden, act, wt,
                                    mm, m.qkv_bias),
                          L));
  if (m.position == PositionKind::rope)
    s.ops.push_back(counted(ops::rotary("rotary", T, m.heads, m.kv_heads, m.head_dim, act), L));
  s.ops.push_back(counted(ops::kv_append("kv_write", T, m.kv_heads, m.head_dim, act, w.kv_dtype), L));

  append_fused_attention(s, m, w);

  s.ops.push_back(counted(ops::gemm("o_proj", T, m.hidden, m.q_dim(), act, wt, mm, m.o_bias), L));
  if (m.norms_per_layer == 4)  // Gemma-2: post-attention norm before the residual add
    s.ops.push_back(counted(norm_op(m, "post_attn_norm2", T, act, false), L));
  s.ops.push_back(counted(norm_op(m, "post_attn_norm", T, act, true), L));
  if (m.gated_mlp) {
    s.ops.push_back(counted(ops::gemm("gate_up_proj", T, 2 * m.intermediate, m.hidden, act, wt, mm,
                                      m.mlp_bias),
                            L));
    s.ops.push_back(counted(m.act == Activation::silu
                                ? ops::silu_mul("act_mul", T, m.intermediate, act)
                                : ops::gelu_mul("act_mul", T, m.intermediate, act),
                            L));
  } else {
    s.ops.push_back(counted(ops::gemm("fc_in", T, m.intermediate, m.hidden, act, wt, mm, m.mlp_bias), L));
    s.ops.push_back(counted(ops::gelu("act", T, m.intermediate, act, /*fused=*/true), L));
  }
  s.ops.push_back(counted(ops::gemm(m.gated_mlp ? "down_proj" : "fc_out", T, m.hidden,
                                    m.intermediate, act, wt, mm, m.mlp_bias),
                          L));
  if (m.norms_per_layer == 4)
    s.ops.push_back(counted(norm_op(m, "post_mlp_norm", T, act, false), L));

  // The last layer's residual add is fused into the final norm.
  const int64_t logits_rows =
      w.phase == Phase::prefill && !w.lm_head_all_positions ? w.batch : T;
  s.ops.push_back(norm_op(m, "final_norm", T, act, true));
  s.ops.push_back(ops::gemm("lm_head", logits_rows, m.vocab, m.hidden, act, wt, mm, false));
  return s;
}

}  // namespace perfmodel
