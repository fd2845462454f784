// Profile `compiled`: torch.compile (Inductor, mode="reduce-overhead") of the Hugging Face model
// with transformers' StaticCache, the recipe transformers documents for compiled generation. One
// CUDA graph per step (no host time between kernels). Inductor fuses the pointwise and reduction
// work into Triton kernels: the residual add into the next RMSNorm, SiLU(gate) * up into one
// kernel, rotary into one kernel per tensor (validation/results/h200-production: the
// torch.compile rotary runs triton_poi_fused_add_cat_mul_neg_slice_unsqueeze_0 and _1). The
// matmuls stay cuBLAS calls, one per nn.Linear (Inductor does not merge q/k/v or gate/up). A
// static cache always attends over all its slots with a mask (max_cache_len = the workload's
// ctx), so SDPA gets a mask and K/V repeated to every query head (transformers' repeat_kv: with a
// mask it does not pass enable_gqa). With a mask PyTorch's SDPA skips FlashAttention; on sm90 it
// picks cuDNN, whose decode kernel is attention_decode_cudnn (measured in every compiled decode
// step, validation/results/h200-compiled). generate() runs the prefill uncompiled (runs_as): the
// prefill branch below prices only a compiled forward over the whole static cache, which no
// measured step runs (docs/profiles.md).
#include "../parallel/parallel_internal.hpp"
#include "compiled_graph_inputs.hpp"
#include "eager_ops.hpp"
#include "fused_ops.hpp"
#include "inductor_pointwise_l2.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/instructions.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/profile.hpp"

namespace perfmodel {

namespace {

using Kind = GraphNode::Kind;

void compiled_attention(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t kv_len = w.ctx;
  if (m.kv_heads < m.heads) {
    // repeat_kv: expand + reshape of the whole static cache, a copy Inductor materializes for
    // K and V before the SDPA call.
    const int64_t group = m.heads / m.kv_heads;
    Op rep = ops::copy(n.name + ".repeat_kv", w.batch * kv_len, 2 * m.q_dim(), w.kv_dtype);
    rep.bytes_read /= static_cast<double>(group);
    rep.launches = 2;
    s.ops.push_back(counted(rep, n.count));
  }
  if (w.phase == Phase::decode) {
    Op sdpa = ops::attention_decode_cudnn(n.name + ".sdpa", w.batch, m.heads, m.heads, kv_len, m.head_dim, w.act_dtype,
                                          w.kv_dtype);
    if (m.kv_heads < m.heads) sdpa.l2_dirty_bytes = s.ops.back().bytes_written;  // repeat_kv's expanded K and V
    s.ops.push_back(counted(sdpa, n.count));
  } else {
    // The causal mask materialized over the static cache: the kernel skips no masked tile, so
    // it does the full T x kv_len work (priced as non-causal).
    s.ops.push_back(counted(ops::attention_prefill(n.name + ".sdpa", w.batch, m.heads, m.heads, w.ctx, kv_len,
                                                   m.head_dim, false, w.act_dtype, w.kv_dtype),
                            n.count));
  }
}

// Kernels of every compiled step outside the layers (validation/results/h200-compiled, kernel
// names in hf.json, all 7 steps): the cudagraph tree copies the call's new inputs (input ids,
// cache_position, position_ids: int64) into the graph's static buffers with one _foreach_copy_
// (multi_tensor_apply_kernel) before the replay; LlamaRotaryEmbedding's table, once per step: the
// fp32 inv_freq x positions product (a K = 1 cuBLAS GEMM: cutlass sgemm / gemmk1) and Inductor's
// kernel expanding it (triton_poi_fused__to_copy_..._unsqueeze_1; cos and sin are fused into the
// rotary kernels).
void add_step_inputs(Step& s, const Model& m, const Workload& w) {
  const int64_t T = w.tokens();
  s.ops.push_back(ops::copy("graph_inputs.copy", 3, T, DType::fp64));
  if (m.position != PositionKind::rope) return;
  s.ops.push_back(ops::gemm("rotary_emb.inv_freq", T, m.head_dim / 2, 1, DType::fp32, DType::fp32, Precision::fp32));
  s.ops.push_back(ops::copy("rotary_emb.table", T, m.head_dim / 2, DType::fp32));
}

void add_rotary(Step& s, const std::string& name, int64_t T, const Model& m, DType act, int64_t count) {
  s.ops.push_back(counted(ops::rotary(name + "_q", T, m.heads, 0, m.head_dim, act), count));
  s.ops.push_back(counted(ops::rotary(name + "_k", T, m.kv_heads, 0, m.head_dim, act), count));
}

// Inductor's fusion groups around a decoder layer's attention (branch compfuse), read off every
// layer of validation/results/h200-compiled2's nine traces (compiled2.jsonl; names, grids):
// - with GQA (TinyLlama, Llama-3-8B, Qwen2.5-7B, Mistral-7B: 6 small kernels a layer) k's rotary
//   and the K index_copy_ into the static cache are ONE kernel (`..._bmm_cat_cos_index_copy_...`,
//   grid = T x kv_heads x head_dim threads); the V index_copy_ another (`..._index_copy_transpose_
//   view_3`); q's rotary a third, the SDPA's q input (`..._scaled_dot_product_cudnn_attention__to_
//   copy_...`, T x heads x head_dim threads); repeat_kv's two expands of the cache (grids of
//   B x kv_len x heads x head_dim / 1024); the mask a sixth (B x kv_len elements: 5 CTAs of 128 at
//   b1 kv 560, 130 of 256 at b8 kv 4144, 134 of 128 at b16 kv 1072);
// - without GQA (Llama-2-7B: 3 a layer) q's and k's rotary and the K write are one kernel (the
//   SDPA's q input; 2 x T x heads x head_dim elements), the V write one, the mask one.
// A rotary that writes K into its slot writes the same bytes as one that writes it back in place,
// so the fused group is priced as the rotary and the cache write keeps only V.
bool rotary_writes_k(const Model& m) { return m.position == PositionKind::rope; }

void add_compiled_rotary(Step& s, const std::string& name, int64_t T, const Model& m, DType act, int64_t count) {
  if (m.kv_heads < m.heads) {
    add_rotary(s, name, T, m, act, count);  // q (the SDPA's q input), then k + the K write
    return;
  }
  s.ops.push_back(counted(ops::rotary(name + "_qk", T, m.heads, m.kv_heads, m.head_dim, act), count));
}

// A decode kernel whose only input the step's previous kernel just wrote finds it in L2, as the
// fused profile prices the same Inductor kernels (fused_profile.cpp; measured alone in
// validation/results/h200-fusedsmall, l2warm.py: SiLU*mul 1.47 -> 1.12 us at one row after a kernel
// that wrote its input, the V write 0.17-0.60 us faster; the rotary kernels no faster). In
// h200-compiled2's traces the V write follows the v GEMM and SiLU*mul the up GEMM in every layer
// (branch compsmall's l2warm.patch, applied here with the V write as Inductor's own kernel).
void reads_last_output(Op& op) { op.l2_hit = 1; }

// SiLU*mul reads gate and up, two nn.Linear outputs: up's written by the kernel right before it,
// gate's one GEMM earlier, before up's GEMM streamed its whole weight through L2 (every layer of
// validation/results/h200-compiled2's traces: norm, gate GEMM, up GEMM, SiLU*mul, none split).
// Gate's half of the inputs is still in L2 as far as that stream leaves it (Op::l2_older_share,
// priced by l2_residency's random-replacement residency: 1 while the stream fits in the capacity).
// TinyLlama's up weight (5632 x 2048, 23 MB) fits: SiLU*mul 1.14 us in the graph (22 layers'
// median), h200-fusedsmall's producer-warm 1.06 us at 5632; the 7-8B models' (11008-18944 x
// 3584-4096, 90-136 MB) do not: 1.33-1.50 us at batch 1, h200-fusedsmall's cold 1.47 us at 14336
// (producer-warm 1.12). Branch graphroles; no parameter.
void gate_before_up(Op& silu, const Step& s, size_t up_first) {
  double streamed = 0;
  for (size_t i = up_first; i < s.ops.size(); ++i) streamed += s.ops[i].bytes();
  silu.l2_older_share = 0.5;  // gate's bytes of the two inputs
  silu.l2_older_streamed = streamed;
}

// StaticCache.update's V index_copy_ alone: kv_append's bytes and instructions over V's half.
Op v_write(const std::string& name, int64_t T, const Model& m, DType act, DType kv) {
  Op op = ops::kv_append(name, T, m.kv_heads, m.head_dim, act, kv);
  const double e = static_cast<double>(T) * static_cast<double>(m.kv_heads * m.head_dim);
  op.cols = m.kv_heads * m.head_dim;
  op.bytes_read = e * bytes_of(act) + static_cast<double>(T) * 8;  // + slot indices
  op.bytes_written = e * bytes_of(kv);
  op.instructions = kernel_instructions(KernelId::kv_append, T, op.cols, kv);
  return op;
}

// The static cache's boolean mask made the SDPA's additive one (one byte in, one activation out,
// per token and slot), Inductor's own kernel before the cuDNN call.
Op sdpa_mask(const std::string& name, int64_t T, int64_t kv_len, DType act) {
  return ops::cast(name + ".mask", T, kv_len, DType::int8, act);
}

void lower(const LayerGraph& g, const Model& m, const Workload& w, Step& s) {
  // Inductor's code for transformers' MoE expert loops and MLA was never measured.
  if (m.moe.enabled() || m.mla.enabled())
    throw InputError("--impl compiled: " + m.name + " has " + (m.moe.enabled() ? "mixture-of-experts" : "MLA") +
                     " layers; the compiled profile covers dense transformers only (use --impl fused or eager)");
  const int64_t T = w.tokens();
  const DType act = w.act_dtype, wt = w.weight_dtype;
  const Precision mm = matmul_precision(act, w.allow_tf32);
  add_step_inputs(s, m, w);
  int64_t cache_layers = 0;
  size_t last_part_ops = 0;  // the first op of the last linear's last part (the up GEMM)
  int64_t linear_parts = 0;  // the last linear node's parts (gate and up: 2)
  for (const GraphNode& n : g.nodes) {
    switch (n.kind) {
      case Kind::embed:
        s.ops.push_back(counted(ops::embedding(n.name, T, m.hidden, wt, act), n.count));
        s.ops.back().vocab = m.vocab;
        break;
      case Kind::position_embed: s.ops.push_back(counted(ops::add(n.name, T, m.hidden, act), n.count)); break;
      case Kind::norm: s.ops.push_back(counted(fused_norm(m, n, T, act), n.count)); break;
      case Kind::linear: {
        const int64_t rows = n.logits ? logits_rows(w) : T;
        for (const GraphNode::Part& p : n.parts) {
          last_part_ops = s.ops.size();
          if (is_quantized(w) && !n.logits) {  // the LM head stays in the activations' dtype (quant.hpp)
            for (Op& op : torch_quantized_linear(p.name, rows, p.out, n.in, w, n.bias, Impl::compiled))
              s.ops.push_back(counted(std::move(op), n.count));
            continue;
          }
          s.ops.push_back(counted(ops::gemm(p.name, rows, p.out, n.in, act, wt, mm, n.bias && !n.logits), n.count));
        }
        if (n.logits) s.ops.push_back(counted(ops::cast("logits.float", rows, m.vocab, act, DType::fp32), n.count));
        linear_parts = static_cast<int64_t>(n.parts.size());
        break;
      }
      case Kind::rotary:  // Inductor's groups: q, k + K write (GQA); or q + k + K write
        add_compiled_rotary(s, n.name, T, m, act, n.count);
        break;
      case Kind::kv_write:  // StaticCache.update: index_copy_ of the new K and V into their slots
        cache_layers += n.count;
        if (rotary_writes_k(m)) {  // K went with its rotary: the V write alone
          s.ops.push_back(counted(v_write(n.name + "_v", T, m, act, w.kv_dtype), n.count));
          // In every trace it runs right after the v GEMM that wrote its only input (below).
          if (w.phase == Phase::decode) reads_last_output(s.ops.back());
        } else
          s.ops.push_back(counted(ops::kv_append(n.name, T, m.kv_heads, m.head_dim, act, w.kv_dtype), n.count));
        break;
      case Kind::attention:
        s.ops.push_back(counted(sdpa_mask(n.name, T, w.ctx, act), n.count));
        compiled_attention(n, m, w, s);
        break;
      case Kind::router:
      case Kind::moe_experts:
      case Kind::mla_up: break;  // refused above
      case Kind::residual_add: break;  // fused into the next norm
      case Kind::activation:  // right after the up GEMM (every trace): its inputs in L2 at decode
        if (w.phase == Phase::decode) {
          Op act_op = counted(fused_activation(n, m, T, act), n.count);
          reads_last_output(act_op);
          if (linear_parts > 1) gate_before_up(act_op, s, last_part_ops);
          s.ops.push_back(std::move(act_op));
        } else
          s.ops.push_back(counted(fused_activation(n, m, T, act), n.count));
        break;
      // Under tensor parallelism the compiled graph keeps the all-reduces (Inductor leaves the
      // collectives to the process group, as the eager and fused steps do).
      case Kind::collective: s.ops.push_back(lower_collective(n, w)); break;
    }
  }
  // triton_poi_fused_add_copy_: an add written back into a graph input with copy_ (one CTA of 32
  // threads), priced as the smallest add, one element per token. It runs once per cache layer, all
  // at the step's end (h200-compiled2's traces: 22 at TinyLlama's 22 layers, 32 at Llama-3-8B's 32,
  // 8 / 12 / 16 at the cut depths, 0.93-1.7 us each; h200-compiled's 4-layer steps 4.2-5.0 us in
  // all, which an earlier reading took for one kernel): a StaticCache layer's own counter.
  if (cache_layers > 0) s.ops.push_back(counted(ops::add("add_copy", T, 1, DType::fp64), cache_layers));
  // The graph's static inputs, which the host walks before each replay (graph_call_host_per_input),
  // carried by the step's input copy (one instance).
  s.ops.front().graph_inputs = compiled_graph_inputs(g, m);
}

}  // namespace

std::vector<Op> compiled_form(const Op& op, bool keep_l2_hit) {
  if (op.kernel == KernelId::silu_mul) {
    // Inductor's SiLU*mul, one Triton pointwise kernel: its share of the harness's rotated set is
    // that of the inputs the harness rotates (inductor_pointwise_l2.hpp).
    Op k = op;
    k.l2_hit = harness_inputs_hit(op.l2_hit, op.bytes_read / op.bytes());
    return {k};
  }
  if (op.kernel != KernelId::rotary && op.kernel != KernelId::attention_decode) return {op};
  Model m;
  m.heads = op.attention.heads;
  m.kv_heads = op.attention.kv_heads;
  m.head_dim = op.attention.head_dim;
  Step s;
  if (op.kernel == KernelId::rotary) {
    // transformers' apply_rotary_pos_emb under torch.compile: q's rotation and k's are one
    // Triton kernel when the two tensors have one shape (heads == kv heads: Inductor fuses the two
    // pointwise nodes of one iteration space that read the same cos / sin), two otherwise
    // (validation/results/h200-heldout18, kernels_per_launch: t64 / t700 h32 kv32 d64 run
    // triton_poi_fused_add_cat_mul_neg_slice_unsqueeze_0 alone; every kv < h case _0 and _1).
    // keep_l2_hit (the calibration's `rotary_call_l2`, branch rotary; 1 in the H200's calibration
    // since branch tinyl2): each kernel keeps the call's L2 share, that of the inputs the harness
    // rotates (inductor_pointwise_l2.hpp), which the kernels built here otherwise drop (priced
    // DRAM-fed at every rotated set: 4.25 us flat at 1-16 tokens).
    const double hit = keep_l2_hit ? harness_inputs_hit(op.l2_hit, op.bytes_read / op.bytes()) : 0.0;
    if (op.attention.kv_heads == op.attention.heads) {
      Op one = ops::rotary(op.name, op.rows, m.heads, m.kv_heads, m.head_dim, op.dtype);
      one.l2_hit = hit;
      return {one};
    }
    add_rotary(s, op.name, op.rows, m, op.dtype, 1);
    for (Op& k : s.ops) k.l2_hit = hit;
    return s.ops;
  }
  // Decode attention as the compiled step runs it: repeat_kv's copies, then cuDNN's decode kernel
  // over every query head's K and V.
  Workload w;
  w.phase = Phase::decode;
  w.batch = op.attention.batch;
  w.ctx = op.attention.kv_len;
  w.act_dtype = op.dtype;
  w.kv_dtype = op.kv_cache;
  GraphNode n;
  n.name = op.name;
  compiled_attention(n, m, w, s);
  return s.ops;
}

const Profile& compiled_profile() {
  static const Profile p{.impl = Impl::compiled, .name = "compiled", .lower = lower};
  return p;
}

}  // namespace perfmodel
