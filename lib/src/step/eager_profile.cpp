// Profile `eager`: PyTorch eager as Hugging Face transformers runs a model (modeling_llama.py,
// attn_implementation="sdpa", StaticCache). Every elementwise op is its own kernel; RMSNorm runs
// in fp32 through several kernels; rotary is several ops; GQA repeats K/V into full-head tensors
// (repeat_kv) before attention; the static cache is written by index_copy_; each launch costs the
// host its dispatch time (docs/profiles.md).
#include "perfmodel/ops.hpp"
#include "perfmodel/profile.hpp"
#include "moe_mla_lowering.hpp"

namespace perfmodel {

namespace {

using Kind = GraphNode::Kind;

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
  s.ops.push_back(
      counted(ops::elementwise(name + ".add_eps_rsqrt", KernelId::other, T, 1, DType::fp32, 1, 1, 2, 2), count));
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
  s.ops.push_back(counted(ops::copy("rotary_" + which + ".cat", T, width, act), count));
  s.ops.push_back(
      counted(ops::elementwise("rotary_" + which + ".mul_sin", KernelId::mul, T, width, act, 2, 1, 1), count));
  s.ops.push_back(counted(ops::add("rotary_" + which + ".add", T, width, act), count));
}

// The embedding, and what HF computes once per step before the layers.
void eager_embed(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t T = w.tokens();
  s.ops.push_back(counted(ops::embedding(n.name, T, m.hidden, w.weight_dtype, w.act_dtype), n.count));
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
    Op mask = ops::elementwise("causal_mask", KernelId::other, 1, w.ctx, w.act_dtype, 1, 1, 1);
    mask.launches = 5;
    mask.passes = 5;
    mask.framework_calls = 4;
    s.ops.push_back(mask);
  }
}

// repeat_kv (GQA) and scaled_dot_product_attention over the static cache, which holds max-length
// K/V; attention reads the first ctx positions (masked).
void eager_attention(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t kv_len = w.ctx;
  // MLA: per-head keys of qk_head_dim and values of v_head_dim (lowering::mla_expanded_head_dim).
  const int64_t head_dim = m.mla.enabled() ? lowering::mla_expanded_head_dim(m) : m.head_dim;
  if (m.heads / m.kv_heads > 1) {
    // repeat_kv: expand + reshape materializes K and V at full head count.
    Op rep = ops::copy("repeat_kv", w.batch * kv_len, 2 * m.q_dim(), w.kv_dtype);
    rep.bytes_read = static_cast<double>(w.batch) * kv_len * 2 * m.kv_dim() * bytes_of(w.kv_dtype);
    rep.launches = 2;
    rep.passes = 2;
    rep.framework_calls = 4;  // x[:, :, None] and .expand() for K and V
    s.ops.push_back(counted(rep, n.count));
  }
  if (w.phase == Phase::decode) {
    Op a = ops::attention_decode(n.name + ".sdpa", w.batch, m.heads, m.heads, kv_len, head_dim, w.act_dtype,
                                 w.kv_dtype);
    a.launches = 1;
    a.passes = 1;
    a.framework_calls = 3;  // .transpose(1, 2), .contiguous() (already contiguous at one query), .reshape()
    s.ops.push_back(counted(a, n.count));
  } else {
    s.ops.push_back(counted(ops::attention_prefill(n.name + ".sdpa", w.batch, m.heads, m.heads, w.ctx, kv_len,
                                                   head_dim, true, w.act_dtype, w.kv_dtype),
                            n.count));
  }
}

void lower(const LayerGraph& g, const Model& m, const Workload& w, Step& s) {
  const int64_t T = w.tokens();
  const DType act = w.act_dtype, wt = w.weight_dtype;
  const Precision mm = matmul_precision(act, w.allow_tf32);
  for (const GraphNode& n : g.nodes) {
    switch (n.kind) {
      case Kind::embed: eager_embed(n, m, w, s); break;
      case Kind::position_embed: s.ops.push_back(counted(ops::add(n.name, T, m.hidden, act), n.count)); break;
      case Kind::norm:
        if (m.norm == NormKind::rmsnorm) eager_rmsnorm(s, n.name, T * n.rows_per_token, node_width(n, m.hidden), act, n.count);
        else s.ops.push_back(counted(ops::layernorm(n.name, T * n.rows_per_token, node_width(n, m.hidden), act, false), n.count));
        break;
      case Kind::linear: {  // each part its own nn.Linear
        const int64_t rows = n.logits ? logits_rows(w) : T;
        for (const GraphNode::Part& p : n.parts) {
          Op op = ops::gemm(p.name, rows, p.out, n.in, act, wt, mm, n.bias && !n.logits);
          op.framework_calls = n.framework_views;
          s.ops.push_back(counted(op, n.count));
        }
        // HF upcasts logits to fp32.
        if (n.logits) s.ops.push_back(counted(ops::cast("logits.float", rows, m.vocab, act, DType::fp32), n.count));
        break;
      }
      case Kind::rotary:
        if (m.mla.enabled()) {  // q_rot of every head, the one shared k_rot
          eager_rotary(s, T, m.heads * m.mla.qk_rope_head_dim, "q", act, n.count, 2);
          eager_rotary(s, T, m.mla.qk_rope_head_dim, "k", act, n.count, 0);
          break;
        }
        eager_rotary(s, T, m.q_dim(), "q", act, n.count, 2);  // cos.unsqueeze(1), sin.unsqueeze(1)
        eager_rotary(s, T, m.kv_dim(), "k", act, n.count, 0);
        break;
      case Kind::kv_write: {  // StaticCache.update: index_copy_ of the new K and V into the cache
        // MLA: HF caches the expanded per-head keys (qk_head_dim) and values (v_head_dim).
        const int64_t hd = m.mla.enabled() ? lowering::mla_expanded_head_dim(m) : m.head_dim;
        Op copy = ops::kv_append(n.name + ".index_copy", T, m.kv_heads, hd, act, w.kv_dtype);
        copy.launches = 2;
        copy.passes = 2;
        s.ops.push_back(counted(copy, n.count));
        break;
      }
      case Kind::attention: eager_attention(n, m, w, s); break;
      case Kind::residual_add: s.ops.push_back(counted(ops::add(n.name, T, m.hidden, act), n.count)); break;
      case Kind::router: lowering::eager_router(n, m, w, s); break;
      case Kind::moe_experts: lowering::eager_experts(n, m, w, s); break;
      case Kind::mla_up: lowering::eager_mla_up(n, m, w, s); break;
      case Kind::activation:
        if (n.gated) {
          // act_fn(gate) then * up: two kernels.
          s.ops.push_back(counted(ops::elementwise("act_fn", m.act == Activation::silu ? KernelId::other
                                                                                       : KernelId::gelu_fused,
                                                   T, node_width(n, m.intermediate), act, 1, 1, 4),
                                  n.count));
          s.ops.push_back(counted(
              ops::elementwise("act_mul_up", KernelId::mul, T, node_width(n, m.intermediate), act, 2, 1, 1), n.count));
        } else {
          s.ops.push_back(counted(ops::gelu(n.name, T, m.intermediate, act, true), n.count));
        }
        break;
    }
  }
}

}  // namespace

const Profile& eager_profile() {
  static const Profile p{.impl = Impl::eager, .name = "eager", .lower = lower};
  return p;
}

}  // namespace perfmodel
