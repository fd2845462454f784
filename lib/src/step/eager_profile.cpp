// Profile `eager`: PyTorch eager as Hugging Face transformers runs a model (modeling_llama.py,
// attn_implementation="sdpa", DynamicCache). Every elementwise op is its own kernel; RMSNorm runs
// in fp32 through several kernels; rotary is several ops; GQA runs through SDPA's enable_gqa
// (no repeat_kv); the DynamicCache is grown by torch.cat every decode step; each launch costs the
// host its dispatch time (docs/profiles.md).
#include "eager_ops.hpp"
#include "../parallel/parallel_internal.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/profile.hpp"
#include "moe_mla_lowering.hpp"
#include "perfmodel/quant.hpp"

namespace perfmodel {

namespace {

using Kind = GraphNode::Kind;

// Branch hostmod2: the top-level ATen ops (launching / launching nothing) and nn.Module calls the
// host dispatches for an op, where they differ from one ATen op per kernel plus framework_calls
// (validation/results/h200-hostmod2/counts.jsonl, torch.profiler under module hooks, transformers
// 5.17: per decoder layer Llama / Qwen2 / Mistral 54 ATen ops and 13 module calls, GPT-2 38 and 12).
Op& host_counts(Op& op, int launching, int other, int modules) {
  op.aten_launching = launching;
  op.aten_other = other;
  op.module_calls = modules;
  return op;
}

// GPT-2's Conv1D: addmm over x.view(-1, nx), then .view(size_out): two views a call.
bool conv1d_model(const Model& m) { return m.architecture == "gpt2"; }

// Decode past a sliding window (transformers' DynamicSlidingWindowLayer: Gemma-2's local layers, every
// layer of a windowed Mistral): the layers that attend over the window alone, 0 where no window is
// reached (validation/results/h200-hfgemma/window).
int64_t windowed_layers(const Model& m, const Workload& w, int64_t layers) {
  if (w.phase != Phase::decode || m.sliding_window <= 0 || w.ctx <= m.sliding_window || m.mla.enabled()) return 0;
  return m.window_pattern == WindowPattern::all ? layers : (layers + 1) / 2;
}

// The embedding, and what HF computes once per step before the layers.
void eager_embed(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t T = w.tokens();
  s.ops.push_back(counted(ops::embedding(n.name, T, m.hidden, is_quantized(w) ? w.act_dtype : w.weight_dtype, w.act_dtype), n.count));
  s.ops.back().vocab = m.vocab;
  // The host: *ForCausalLM, *Model and the token Embedding modules. The model's own ATen calls
  // (cache_position's arange, position ids, the mask check: 2 launching, 1 more for Llama-style
  // models, 4 for GPT-2's) sit on the decode mask below; at prefill here.
  const int own_other = m.position == PositionKind::learned ? 4 : 1;
  const bool prefill = w.phase == Phase::prefill;
  host_counts(s.ops.back(), 1 + (prefill ? 2 : 0), prefill ? own_other : 0, 3);
  if (m.embed_scale) {  // GemmaModel: inputs_embeds * sqrt(hidden_size), one kernel
    s.ops.push_back(counted(ops::elementwise("embed_scale", KernelId::mul, T, m.hidden, w.act_dtype, 1, 1, 1), n.count));
    host_counts(s.ops.back(), 1, 0, 0);
  }
  if (m.position == PositionKind::rope) {
    // LlamaRotaryEmbedding.forward, once per step: inv_freq @ positions, cat, cos, sin and two
    // casts (6 kernels on a few KB), with cache_position, position_ids and the expands around it.
    Op r = ops::elementwise("rotary_emb", KernelId::other, T, m.head_dim, DType::fp32, 1, 1, 2);
    r.launches = 6;
    r.passes = 6;
    r.framework_calls = 6;
    // Host: 9 launching ATen calls (the arange/expand/matmul/cat/cos/sin/casts) and 6 views, one
    // module (DeepSeek-V2's complex rotary: 5 and 7).
    if (m.mla.enabled()) host_counts(r, 5, 7, 1);
    else host_counts(r, 9, 6, 1);
    s.ops.push_back(r);
  }
  if (w.phase == Phase::decode) {
    // _update_causal_mask for the static cache: full, triu, arange, compare, multiply (5 kernels
    // over ctx mask entries) and the reshapes and expand.
    Op mask = ops::elementwise("causal_mask", KernelId::other, 1, w.ctx, w.act_dtype, 1, 1, 1);
    mask.launches = 5;
    mask.passes = 5;
    mask.framework_calls = 4;
    // transformers 5.17 builds no mask for SDPA at one query: the model's own calls only (above).
    host_counts(mask, 2, own_other, 0);
    s.ops.push_back(mask);
  }
}

// scaled_dot_product_attention over the DynamicCache (ctx positions). With PyTorch >= 2.5 and no
// attention mask (no padding: decode at one query, causal prefill) transformers passes
// enable_gqa=True instead of repeat_kv, so the kernel reads each KV head once: hf.json's
// Qwen2.5-7B steps show it (b32 ctx2048: 1.1 ms of attention and no repeat_kv copy, against
// 9.9 ms + 8.6 ms with K/V repeated). PyTorch 2.11's SDPA picks cuDNN on sm90 for that call: every
// Hugging Face step whose kernel names were recorded (validation/results/h200-hf-grid, dense
// Llama-3-8B, Qwen2.5-7B, Llama-2-7B; h200-moe-sync, Qwen3-MoE, DeepSeek-V2-Lite, Mixtral) runs
// cuDNN's 16-row-tile decode kernel (cudnn_..._sm80_flash_fprop_wmma_f16_knob_35_16x128x<d>) and its
// sm90 wgmma prefill kernel, never FlashAttention: decode is attention_decode_cudnn with the GQA
// group in the query tile, prefill the profile's cuDNN prefill rates (hardware/<card>.calibration.yaml,
// profiles.eager).
void eager_attention(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t kv_len = w.ctx;
  // MLA: per-head keys of qk_head_dim and values of v_head_dim (lowering::mla_expanded_head_dim).
  const int64_t head_dim = m.mla.enabled() ? lowering::mla_expanded_head_dim(m) : m.head_dim;
  if (w.phase == Phase::decode) {
    // An fp8 cache: SDPA takes no fp8 K/V, so the Hugging Face path casts K and V to the
    // activations' dtype (two ATen copy kernels over the whole cache) and attends over those
    // (h200-quant2/3: 2-7.5x the bf16 SDPA; docs/model.md, "FP8 KV cache").
    const bool cast_kv = !m.mla.enabled() && w.kv_dtype == DType::fp8 && w.act_dtype != DType::fp8;
    // The fp8 -> bf16 copy is ATen's unrolled, non-vectorized elementwise kernel (LoadWithCast /
    // StoreWithCast in h200-quant2/3's kernel names, ~3.4e11 elements/s): priced at the generic
    // TensorIterator rate the eager profile measured, not as a vectorized stream.
    if (cast_kv)
      for (const char* part : {".k_cast", ".v_cast"}) {
        Op c = ops::cast(n.name + part, w.batch * m.kv_heads * kv_len, head_dim, w.kv_dtype, w.act_dtype);
        c.strided = true;
        s.ops.push_back(counted(c, n.count));
      }
    // MLA: SDPA reads the keys and values expanded this step, in the activations' dtype.
    const int64_t windowed = windowed_layers(m, w, n.count);
    const DType kv = m.mla.enabled() || cast_kv ? w.act_dtype : w.kv_dtype;
    // attn_implementation="flash_attention_2": flash-attn 2's kernels (its split-KV pair counts as one host launch:
    // one call from Python launches both).
    Op a = w.eager_flash_attention_2
               ? ops::attention_decode_flash2(n.name + ".flash_attn", w.batch, m.heads, m.kv_heads, kv_len, head_dim,
                                              w.act_dtype, kv)
               : ops::attention_decode_cudnn(n.name + ".sdpa", w.batch, m.heads, m.kv_heads, kv_len, head_dim,
                                             w.act_dtype, kv);
    if (m.mla.enabled()) a.attention.v_head_dim = m.mla.v_head_dim;
    a.launches = 1;
    a.passes = 1;
    a.framework_calls = 3;  // .transpose(1, 2), .contiguous() (already contiguous at one query), .reshape()
    // Host: .contiguous() of a contiguous tensor dispatches nothing (the probe's ATen calls: one
    // transpose and one reshape after SDPA); the attention module.
    host_counts(a, 1, 2, 1);
    if (n.count > windowed) s.ops.push_back(counted(a, n.count - windowed));
    if (windowed > 0 && w.eager_flash_attention_2) {
      // flash-attn 2 takes the window itself (window_size): its kernel walks the window's keys, no repeat_kv.
      Op local = ops::attention_decode_flash2(n.name + ".flash_attn_window", w.batch, m.heads, m.kv_heads,
                                              std::min(kv_len, m.sliding_window), head_dim, w.act_dtype, kv);
      local.launches = 1;
      local.passes = 1;
      local.framework_calls = a.framework_calls;
      host_counts(local, 1, 2, 1);
      s.ops.push_back(counted(local, windowed));
    } else if (windowed > 0) {
      // The window's layers get a sliding mask, and transformers gives SDPA no enable_gqa with a mask:
      // repeat_kv copies K and V to every query head (TensorIterator's generic copy of an expanded
      // view), then SDPA attends each head over the window (h200-hfgemma/window: Gemma-2-9B b8 ctx 6000,
      // 12.5 ms of direct_copy and 6.1 ms of cuDNN's kernel a step).
      const int64_t window = m.sliding_window;
      if (m.heads > m.kv_heads)
        for (const char* part : {".repeat_k", ".repeat_v"}) {
          // expand + reshape: direct_copy over the expanded view, TensorIterator's generic elementwise
          // kernel (not the cat's CatArrayBatchedCopy): the strided rate per element written.
          Op r = ops::elementwise(n.name + part, KernelId::other, w.batch * m.heads * window, head_dim, w.act_dtype, 1, 1, 0);
          r.bytes_read = r.bytes_written * static_cast<double>(m.kv_heads) / static_cast<double>(m.heads);
          r.strided = true;
          s.ops.push_back(counted(r, windowed));
        }
      Op local = ops::attention_decode_cudnn(n.name + ".sdpa_window", w.batch, m.heads, m.heads, window, head_dim,
                                             w.act_dtype, w.act_dtype);
      local.launches = 1;
      local.passes = 1;
      local.framework_calls = a.framework_calls;
      host_counts(local, 1, 2, 1);
      s.ops.push_back(counted(local, windowed));
    }
  } else {
    Op a = w.eager_flash_attention_2
               ? ops::attention_prefill_flash2(n.name + ".flash_attn", w.batch, m.heads, m.kv_heads, w.ctx, kv_len,
                                               head_dim, true, w.act_dtype, w.kv_dtype)
               : ops::attention_prefill(n.name + ".sdpa", w.batch, m.heads, m.kv_heads, w.ctx, kv_len, head_dim, true,
                                        w.act_dtype, w.kv_dtype);
    host_counts(a, 1, 2, 1);
    s.ops.push_back(counted(a, n.count));
  }
}

void lower(const LayerGraph& g, const Model& m, const Workload& w, Step& s) {
  const int64_t T = w.tokens();
  const DType act = w.act_dtype, wt = w.weight_dtype;
  const Precision mm = matmul_precision(act, w.allow_tf32);
  for (const GraphNode& n : g.nodes) {
    switch (n.kind) {
      case Kind::embed: eager_embed(n, m, w, s); break;
      case Kind::position_embed:
        s.ops.push_back(counted(ops::add(n.name, T, m.hidden, act), n.count));
        host_counts(s.ops.back(), 2, 1, 2);  // the position Embedding's gather and the add; the Dropout module
        break;
      case Kind::norm: {
        const size_t first = s.ops.size();
        if (m.norm == NormKind::rmsnorm && m.gemma_norm)
          eager_gemma_rmsnorm(s, n.name, T * n.rows_per_token, node_width(n, m.hidden), act, n.count);
        else if (m.norm == NormKind::rmsnorm)
          eager_rmsnorm(s, n.name, T * n.rows_per_token, node_width(n, m.hidden), act, n.count);
        else s.ops.push_back(counted(ops::layernorm(n.name, T * n.rows_per_token, node_width(n, m.hidden), act, false), n.count));
        s.ops[first].module_calls = 1;  // the norm module (RMSNorm: 8 ATen calls, one a kernel)
        break;
      }
      case Kind::linear: {  // each part its own nn.Linear
        const int64_t rows = n.logits ? logits_rows(w) : T;
        for (const GraphNode::Part& p : n.parts) {
          if (is_quantized(w) && !n.logits) {  // the LM head stays in the activations' dtype (quant.hpp)
            std::vector<Op> q = torch_quantized_linear(p.name, rows, p.out, n.in, w, n.bias, Impl::eager);
            // FP8 W8A8 with tensor or row scales: eager quantizes x in torch ops, not in one kernel.
            if (gemm_input(w) == DType::fp8 && w.quant.scaling != Scaling::block) {
              eager_fp8_act_quant(s, p.name + "_quant", rows, n.in, act, w.quant.act_quant == ActQuant::dynamic,
                                  w.quant.scaling == Scaling::row, n.count);
              q.erase(q.begin(), q.end() - 1);  // keep the GEMM
            }
            q.back().framework_calls = n.framework_views;
            q.back().module_calls = 1;
            for (Op& op : q) s.ops.push_back(counted(std::move(op), n.count));
            continue;
          }
          Op op = ops::gemm(p.name, rows, p.out, n.in, act, is_quantized(w) ? act : wt, mm, n.bias && !n.logits);
          op.framework_calls = n.framework_views;
          op.module_calls = 1;  // its nn.Linear
          if (conv1d_model(m) && !n.logits) {
            // GPT-2: one Conv1D (c_attn) for q, k and v, each Conv1D's two views; c_attn's output
            // split, and q, k, v each viewed and transposed (the attention module's calls).
            const bool qkv = n.parts.size() == 3;
            if (&p != &n.parts.front()) host_counts(op, 0, 0, 0);
            else host_counts(op, 1, 2 + (qkv ? 1 + 3 + 3 : 0), 1);
          }
          s.ops.push_back(counted(op, n.count));
        }
        // Gemma-2's final soft-cap: logits / cap, tanh, * cap (three kernels before any cast).
        if (n.logits && m.final_logit_softcap > 0)
          for (const char* part : {".div", ".tanh", ".mul"}) {
            s.ops.push_back(counted(ops::elementwise(std::string("logits_softcap") + part, KernelId::other, rows, m.vocab, act, 1, 1, 1), n.count));
            host_counts(s.ops.back(), 1, 0, 0);
          }
        // HF upcasts logits to fp32.
        if (n.logits) {
          s.ops.push_back(counted(ops::cast("logits.float", rows, m.vocab, act, DType::fp32), n.count));
          host_counts(s.ops.back(), 0, 0, 0);  // transformers 5.17's *ForCausalLM dispatched no cast (h200-hostmod2)
        }
        break;
      }
      case Kind::rotary:
        if (m.mla.enabled()) {  // q_rot of every head, the one shared k_rot
          const size_t first = s.ops.size();
          eager_rotary(s, T, m.heads * m.mla.qk_rope_head_dim, "q", act, n.count, 2, w.phase == Phase::decode);
          eager_rotary(s, T, m.mla.qk_rope_head_dim, "k", act, n.count, 0, w.phase == Phase::decode);
          // The host: DeepseekV2Attention's complex rotary and its splits (h200-hostmod2: 38 ATen
          // calls a layer in the attention module, 12 launching): to x2, mul x2, type_as x2 launch;
          // the views, splits, view_as_complex / view_as_real, flatten, expand, new_empty and slices
          // around it (16) launch nothing. Carried on the first rotary op.
          for (size_t i = first; i < s.ops.size(); ++i) host_counts(s.ops[i], 0, 0, 0);
          host_counts(s.ops[first], 6, 16, 0);
          break;
        }
        // cos.unsqueeze(1), sin.unsqueeze(1)
        eager_rotary(s, T, m.q_dim(), "q", act, n.count, 2, w.phase == Phase::decode);
        eager_rotary(s, T, m.kv_dim(), "k", act, n.count, 0, w.phase == Phase::decode);
        break;
      case Kind::kv_write: {
        // DynamicCache.update (transformers' default cache, what generate() uses): the first call
        // stores the prompt's K and V; each decode step then torch.cat's the whole cache with the
        // new token, one copy of the cache per layer for K and one for V. MLA: the latent.
        if (m.mla.enabled()) {
          lowering::eager_mla_cache_write(n, m, w, s);
          break;
        }
        const int64_t kv_width = m.kv_dim();
        if (w.phase == Phase::decode) {
          Op cat = ops::copy(n.name + ".cat", w.batch * w.ctx, 2 * kv_width, w.kv_dtype);
          cat.launches = 2;
          cat.passes = 2;
          // CatArrayBatchedCopy over the cache as hf.json measured it: cropped back between steps,
          // so a strided view (--eager-cache contiguous: a generate() loop's own contiguous cache).
          // GPT-2's new K and V are split off the fused c_attn output, [b, 1, 3 x width]: beyond
          // batch 1 their batch stride is 3 x width, not width, so the token's views are not
          // contiguous and ATen's cat takes its generic path over the whole cache too
          // (tests/test_eager_gpt2_cat.cpp: h200-heldout16's contiguous-cache GPT-2 b24 step).
          cat.strided = w.eager_cache_cropped || (conv1d_model(m) && w.batch > 1);
          const int64_t windowed = windowed_layers(m, w, n.count);
          if (n.count > windowed) s.ops.push_back(counted(cat, n.count - windowed));
          if (windowed > 0) {
            // DynamicSlidingWindowLayer keeps the last window - 1 tokens as a slice of the previous cat: the
            // next cat reads that strided view (ATen's generic CatArrayBatchedCopy) into window tokens.
            Op local = ops::copy(n.name + ".cat_window", w.batch * m.sliding_window, 2 * kv_width, w.kv_dtype);
            local.launches = 2;
            local.passes = 2;
            local.strided = true;
            s.ops.push_back(counted(local, windowed));
          }
        } else {
          // The prompt: DynamicLayer.update (transformers >= 4.56) starts each layer's cache as an
          // empty tensor and torch.cat's the prompt's K and V onto it, one copy each. V (and K without
          // rotary) is a transposed view of its projection, so ATen's generic CatArrayBatchedCopy;
          // rotary's output K is a new contiguous tensor, the vectorized copy (h200-heldout16/hf: GPT-2's
          // prefill runs CatArrayBatchedCopy for 0.24 of its 1.87 ms of kernels).
          for (const bool key : {true, false}) {
            Op cat = ops::copy(n.name + (key ? ".prompt_k" : ".prompt_v"), w.batch * w.ctx, kv_width, w.kv_dtype);
            cat.strided = !key || m.position != PositionKind::rope;
            // DynamicLayer's lazy init before the cat: empty, to, lift_fresh, detach_ (h200-hostmod2).
            host_counts(cat, 1, 4, 0);
            s.ops.push_back(counted(cat, n.count));
          }
        }
        break;
      }
      case Kind::attention: eager_attention(n, m, w, s); break;
      case Kind::collective: s.ops.push_back(lower_collective(n, w)); break;
      case Kind::residual_add: {
        s.ops.push_back(counted(ops::add(n.name, T, m.hidden, act), n.count));
        // The decoder layer's module on its first add; GPT-2's resid / MLP Dropout before each.
        const bool first = n.name == "residual_add_attn";
        if (conv1d_model(m)) host_counts(s.ops.back(), 1, 1, first ? 2 : 1);
        else s.ops.back().module_calls = first ? 1 : 0;
        break;
      }
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
          s.ops.back().module_calls = 1;  // the activation module (SiLUActivation)
          s.ops.push_back(counted(
              ops::elementwise("act_mul_up", KernelId::mul, T, node_width(n, m.intermediate), act, 2, 1, 1), n.count));
          s.ops.back().module_calls = 1;  // the MLP module
        } else {
          // transformers' NewGELUActivation (gelu_new, GPT-2) is written out in torch ops: pow,
          // mul, add, mul, tanh, add, mul, mul, 8 kernels; other GELUs are F.gelu, one kernel.
          s.ops.push_back(counted(ops::gelu(n.name, T, m.intermediate, act, m.act != Activation::gelu_tanh), n.count));
          s.ops.back().module_calls = 2;  // the activation module and the MLP
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
