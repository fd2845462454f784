// Profile `fused`: what serving engines (vLLM, TensorRT-LLM, SGLang) run. The residual add is
// fused into the following norm, gate/up and q/k/v are one GEMM each, the activation is one
// kernel, rotary is one kernel for q and one for k (as Inductor's stand-in runs it) and the KV-cache
// write one, attention is flash-style, and the
// step is replayed as one CUDA graph, so there is no host gap between kernels (docs/profiles.md).
#include "../parallel/parallel_internal.hpp"
#include "fused_ops.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/profile.hpp"
#include "moe_mla_lowering.hpp"
#include "perfmodel/quant.hpp"

namespace perfmodel {

Op fused_norm(const Model& m, const GraphNode& n, int64_t tokens, DType act) {
  const int64_t rows = tokens * n.rows_per_token, cols = node_width(n, m.hidden);  // per-head norms: the heads
  return m.norm == NormKind::rmsnorm ? ops::rmsnorm(n.name, rows, cols, act, n.after_residual)
                                     : ops::layernorm(n.name, rows, cols, act, n.after_residual);
}

Op fused_activation(const GraphNode& n, const Model& m, int64_t tokens, DType act) {
  if (!n.gated) return ops::gelu(n.name, tokens, m.intermediate, act, /*fused=*/true);
  const int64_t width = node_width(n, m.intermediate);
  return m.act == Activation::silu ? ops::silu_mul(n.name, tokens, width, act) : ops::gelu_mul(n.name, tokens, width, act);
}

namespace {

using Kind = GraphNode::Kind;

Op counted(Op op, int64_t count) {
  op.count = count;
  return op;
}

// Prefill: the stand-in's rotary + KV write (fused_step.py's rope_kv) runs Inductor's kernels as
// compiled at decode sizes, XBLOCK 256 or half of it (lib/src/cost/inductor_waves.cpp,
// validation/results/h200-rope10). Decode keeps its pricing (its grids are one or two waves).
constexpr int64_t kRopeDecodeBlock = 256;

Op inductor_rope(Op op, const Workload& w) {
  if (w.phase == Phase::prefill) op.inductor_block = kRopeDecodeBlock;
  return op;
}

// Attention for the layers that share one KV length (sliding windows split the layers).
void add_attention(Step& s, const Model& m, const Workload& w, int64_t window, int64_t layers,
                   const std::string& name) {
  // Decode reads at most `window` cached tokens; prefill attends over the whole prompt with
  // each query seeing at most `window` keys.
  const int64_t kv_len = window > 0 && w.ctx > window && w.phase == Phase::decode ? window : w.ctx;
  if (layers == 0) return;
  if (w.phase == Phase::decode) {
    s.ops.push_back(counted(
        ops::attention_decode(name, w.batch, m.heads, m.kv_heads, kv_len, m.head_dim, w.act_dtype, w.kv_dtype),
        layers));
  } else {
    s.ops.push_back(counted(ops::attention_prefill(name, w.batch, m.heads, m.kv_heads, w.ctx, kv_len, m.head_dim,
                                                   /*causal=*/true, w.act_dtype, w.kv_dtype, window),
                            layers));
  }
}

// A paged flash kernel runs sliding-window layers (local) apart from full ones (global).
void lower_attention(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t L = n.count;
  if (m.sliding_window > 0 && w.ctx > m.sliding_window) {
    const int64_t local = m.window_pattern == WindowPattern::all ? L : (L + 1) / 2;
    add_attention(s, m, w, m.sliding_window, local, n.name + "_local");
    add_attention(s, m, w, 0, L - local, n.name + "_global");
  } else {
    add_attention(s, m, w, 0, L, n.name);
  }
}

// Rotary as Inductor's kernels run it (the profile's measured stand-in, fused_step.py's _rope_kv):
// q's rotary, k's rotary (with the K write at decode), and the V write are three kernels at decode
// and prefill alike (validation/results/h200-fused-step-cudnn's kernel names: ..._view_2, ..._view_0,
// ..._view_1), so rotary is one kernel for q and one for k, as in the compiled profile, beside the
// KV write (branch idle7-full's lowering; fusedsmall measured it at decode, small11 extends it to
// prefill, where each keeps rope10's small-block waves: inductor_rope).
std::vector<Op> rotary_q_k(const std::string& name, int64_t T, const Model& m, DType act) {
  return {ops::rotary(name + "_q", T, m.heads, 0, m.head_dim, act), ops::rotary(name + "_k", T, m.kv_heads, 0, m.head_dim, act)};
}

// A decode kernel whose only input is what the step's previous kernel just wrote finds it in L2:
// SiLU*mul reads the gate|up GEMM's output, the V write the qkv GEMM's v rows. Measured alone
// (validation/results/h200-fusedsmall, l2warm.py): Inductor's SiLU*mul 23-39 % faster after a
// kernel that wrote its input than after an L2 flush (14336 columns, 1-128 rows: 1.47 -> 1.12,
// 4.38 -> 2.85 us), as fast as back-to-back calls; the V write 0.17-0.60 us faster. Not so the
// others: add+RMSNorm also reads the residual (written a GEMM block earlier) and its weight from
// DRAM, so its sweeps still wait on DRAM (0-14 % faster); the q and k rotary kernels are no faster
// (<= 0.04 us: their time is their own chain). The first touch waits on L2 and the stream runs at the L2
// rate (stream_cost's l2_hit); price() keeps only what the card's L2 holds of the op's bytes.
void reads_last_output(Op& op) { op.l2_hit = 1; }

void lower(const LayerGraph& g, const Model& m, const Workload& w, Step& s) {
  const int64_t T = w.tokens();
  const DType act = w.act_dtype, wt = w.weight_dtype;
  const Precision mm = matmul_precision(wt == DType::fp8 ? DType::fp8 : act, w.allow_tf32);
  for (const GraphNode& n : g.nodes) {
    switch (n.kind) {
      case Kind::embed:
        s.ops.push_back(counted(ops::embedding(n.name, T, m.hidden, is_quantized(w) ? act : wt, act), n.count));
        s.ops.back().vocab = m.vocab;
        break;
      case Kind::position_embed:  // learned positions: a second gather fused with the add
        s.ops.push_back(counted(ops::add(n.name, T, m.hidden, act), n.count));
        break;
      case Kind::norm: s.ops.push_back(counted(fused_norm(m, n, T, act), n.count)); break;
      case Kind::linear:  // the parts as one GEMM (QKVParallelLinear, MergedColumnParallelLinear)
        if (is_quantized(w) && !n.logits) {  // the LM head stays in the activations' dtype (quant.hpp)
          for (Op& op : quantized_linear(n.name, T, n.out(), n.in, w, n.bias)) s.ops.push_back(counted(std::move(op), n.count));
          break;
        }
        // vLLM pads the LM head's vocabulary to a multiple of 64 (ParallelLMHead, pad_vocab_size), so
        // its rows stay 16-byte aligned and cuBLASLt's TMA kernels run it (gemm_unaligned_cost.cpp).
        s.ops.push_back(counted(ops::gemm(n.name, n.logits ? logits_rows(w) : T, n.logits ? (n.out() + 63) / 64 * 64 : n.out(), n.in, act,
                                          is_quantized(w) ? act : wt, is_quantized(w) ? matmul_precision(act, w.allow_tf32) : mm, n.bias),
                                n.count));
        break;
      case Kind::rotary:
        if (m.mla.enabled())  // the queries' rope dims per head and the one shared rope key
          s.ops.push_back(counted(ops::rotary(n.name, T, m.heads, 1, m.mla.qk_rope_head_dim, act), n.count));
        else
          for (Op& op : rotary_q_k(n.name, T, m, act)) s.ops.push_back(counted(inductor_rope(std::move(op), w), n.count));
        break;
      case Kind::kv_write:
        if (m.mla.enabled()) {  // one [latent | rope key] row per token: a K/V append of half its width each
          Op op = ops::kv_append(n.name, T, 1, (m.mla.cache_width() + 1) / 2, act, w.kv_dtype);
          op.attention.head_dim = m.mla.cache_width();
          s.ops.push_back(counted(op, n.count));
        } else {
          s.ops.push_back(counted(inductor_rope(ops::kv_append(n.name, T, m.kv_heads, m.head_dim, act, w.kv_dtype), w), n.count));
          if (w.phase == Phase::decode) reads_last_output(s.ops.back());
        }
        break;
      case Kind::attention:
        if (m.mla.enabled()) lowering::fused_mla_attention(n, m, w, s);
        else lower_attention(n, m, w, s);
        break;
      case Kind::router: lowering::fused_router(n, m, w, s); break;
      case Kind::moe_experts: lowering::fused_experts(n, m, w, s); break;
      case Kind::mla_up: lowering::fused_mla_up(n, m, w, s); break;
      case Kind::collective: s.ops.push_back(lower_collective(n, w)); break;
      case Kind::residual_add: break;  // fused into the next norm
      case Kind::activation:
        s.ops.push_back(counted(fused_activation(n, m, T, act), n.count));
        if (w.phase == Phase::decode) reads_last_output(s.ops.back());
        break;
    }
  }
}

}  // namespace

const Profile& fused_profile() {
  static const Profile p{.impl = Impl::fused, .name = "fused", .lower = lower};
  return p;
}

}  // namespace perfmodel
