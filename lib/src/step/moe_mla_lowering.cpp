#include "moe_mla_lowering.hpp"

#include "perfmodel/ops.hpp"

namespace perfmodel::lowering {

namespace {

Op counted(Op op, int64_t count, int framework_calls = 0) {
  op.count = count;
  op.framework_calls = framework_calls;
  return op;
}

// Branch hostmod2: the ATen ops the host dispatches for an op (launching / not) and the
// nn.Module calls it stands for (op.hpp; validation/results/h200-hostmod2, transformers 5.17's
// Qwen3-MoE / Mixtral / DeepSeek-V2 blocks: router 7 ATen calls, experts 32, 20-21 of them launching).
void host(Step& s, int launching, int other, int modules = 0) {
  s.ops.back().aten_launching = launching;
  s.ops.back().aten_other = other;
  s.ops.back().module_calls = modules;
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
  // fused_moe reads the hidden rows through the sorted index inside the first GEMM; both GEMMs run the config vLLM
  // takes for T tokens (a tuned file's nearest entry, `--moe-config`; else its default), whose BLOCK_M the align pads to.
  const FusedMoeTile tile = nearest_fused_moe_tile(w.fused_moe_tiles, T);
  Op align = ops::moe_permute(n.name + ".align", T, k, E, m.hidden, act, false);
  align.moe.tile = tile;
  s.ops.push_back(counted(std::move(align), n.count));
  Op w13 = ops::grouped_gemm(n.name + ".w13", T, k, E, 2 * I, m.hidden, act, wt, mm, w.routing_skew);
  Op w2 = ops::grouped_gemm(n.name + ".w2", T, k, E, m.hidden, I, act, wt, mm, w.routing_skew);
  w13.moe.tile = w2.moe.tile = tile;
  s.ops.push_back(counted(std::move(w13), n.count));
  s.ops.push_back(counted(ops::silu_mul(n.name + ".act_mul", T * k, I, act), n.count));
  s.ops.push_back(counted(std::move(w2), n.count));
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
  // DeepSeek-V2/V3's gate computes its logits in fp32 (F.linear(hidden.type(torch.float32),
  // weight.type(torch.float32))): cuBLAS runs an FFMA kernel, not a tensor-core one. The MoE sets'
  // DeepSeek-V2-Lite prefill steps name it, the same in h200-moe, -moe-sync and -moe-contiguous:
  // sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_..._ffma, 64x64x8 at 2048 tokens (0.48 ms over 26 layers,
  // 18.5 us a call) and 128x64x8 at 8192 (1.45 ms, 55.9 us); priced as bf16 it was 7.5 / 10.8 us.
  // Qwen3-MoE's and Mixtral's gates are nn.Linear in the activation dtype (nvjet kernels).
  const bool deepseek = m.architecture.rfind("deepseek", 0) == 0;
  const DType gate = deepseek ? DType::fp32 : act;
  s.ops.push_back(counted(
      ops::gemm(n.name + ".gate", T, E, m.hidden, gate, gate, matmul_precision(gate, w.allow_tf32)), n.count, 1));
  // F.linear inside the router module; the sparse block's view and reshape, its module (DeepSeek's
  // adds the shared experts' output: one more launch).
  host(s, deepseek ? 4 : 1, 3, 2);  // DeepSeek-V2: 6 of its router's 7 calls launch (no renorm op here)
  // softmax / sigmoid over the logits (in fp32), then torch.topk.
  s.ops.push_back(counted(ops::elementwise(n.name + ".scores", KernelId::other, T, E, DType::fp32, 1, 1, 4), n.count));
  // torch.topk on a [T, E] row: sbtopk's gatherTopK, then a bitonic sort of the k values with
  // their indices (two sorts, values and indices): 3 kernels (h200-moe kernel_cases: softmax +
  // topk are 4 kernels, 12.8-13.4 us at T = 1).
  Op topk = ops::moe_topk(n.name + ".topk", T, E, k, DType::fp32);
  topk.launches = 3;
  // Its dependent kernels (moe_topk.cpp prices them): gatherTopK, then the sort when the call sorts.
  // transformers' Qwen3-MoE and Mixtral routers keep torch.topk's sorted=True; DeepSeek-V2/V3's pass
  // sorted=False (h200-moe: no bitonicSortKVInPlace of fp32 values in DeepSeek-V2-Lite's steps).
  topk.passes = m.architecture.rfind("deepseek", 0) == 0 ? 1 : 2;
  s.ops.push_back(counted(topk, n.count));
  host(s, 1, 0);  // one torch.topk call
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

namespace {

// PyTorch's sort along a dim of n elements (aten/src/ATen/native/cuda/Sort.cpp): up to 4096 one
// in-place kernel (bitonic, warp merge or radixSortKVInPlace); longer, cub's DeviceRadixSort
// over the int64 keys: its histogram and scan, eight 8-bit onesweep passes and their memset.
// Kernels per argsort, the iota of the indices included.
int argsort_launches(int64_t n) { return n <= 4096 ? 2 : 12; }

// A generic-path (TensorIterator elementwise_kernel<128, 4>) kernel over [rows, cols] with
// `operands` tensors, the output included: the chunk views and per-row broadcasts of
// transformers' experts. Priced per operand element (aten_kernel_cost.cpp).
Op generic(std::string name, KernelId kernel, int64_t rows, int64_t cols, DType act, int inputs, double flops) {
  Op op = ops::elementwise(std::move(name), kernel, rows, cols, act, inputs, 1, flops);
  op.strided = true;
  op.generic_operands = inputs + 1;
  return op;
}

// x.masked_fill(mask, 0) with a [rows, 1] mask: out of place, so a clone (cudaMemcpy DtoD) then
// masked_fill_ on the generic path (self, self, mask).
void masked_fill_clone(const std::string& name, int64_t rows, int64_t cols, DType act, int64_t count, Step& s) {
  Op clone = ops::copy(name + ".clone", rows, cols, act);
  s.ops.push_back(counted(clone, count));
  Op fill = generic(name + ".masked_fill", KernelId::other, rows, cols, act, 2, 0);
  fill.bytes_read -= static_cast<double>(rows) * static_cast<double>(cols) * bytes_of(act);
  fill.bytes_read += static_cast<double>(rows);  // the bool mask, one per row
  s.ops.push_back(counted(fill, count, 1));
}

}  // namespace

void eager_experts(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  const int64_t T = w.tokens(), k = m.moe.top_k, E = m.moe.experts, I = m.moe.expert_intermediate, h = m.hidden;
  const int64_t routed = T * k;
  const DType act = w.act_dtype, wt = w.weight_dtype;
  const Precision mm = matmul_precision(act, w.allow_tf32);
  // transformers 5's grouped_mm experts (integrations/moe.py), kernel by kernel as hf.json's
  // MoE steps list them: token_idx = arange(T) expanded to the k picks and flattened (arange,
  // copy of the expand); the picked rows gathered (hidden_states[token_idx]).
  //
  // The host (h200-hostmod2: one experts call dispatches 32 ATen ops, 20 of them launching: arange,
  // floor_divide, sort, 3 index, to, histc, cumsum, ge, clamp_, masked_fill_, 2 masked_fill,
  // 2 _grouped_mm, 2 mul, index_put_, sum; reshape x2, to x3, unsqueeze x2, transpose x2, chunk,
  // empty_like and view launch nothing) is spread over the ops below by what each stands for.
  s.ops.push_back(counted(ops::elementwise(n.name + ".token_idx", KernelId::other, T, k, DType::fp32, 0, 2, 1, 2),
                          n.count, 3));
  host(s, 2, 2, 1);  // arange, floor_divide; two reshapes; the experts module
  Op rows = ops::copy(n.name + ".gather_rows", routed, h, act);
  rows.kernel = KernelId::moe_permute;  // vectorized_gather_kernel
  s.ops.push_back(counted(rows, n.count, 1));
  host(s, 1, 0);
  // perm = argsort(expert_ids) and inv_perm = argsort(perm), each an iota fill and a sort over
  // the T k picks (argsort_launches); expert ids, weights and rows indexed by perm; histc of the
  // ids (cast, memset, histogram), cumsum, int32 offsets.
  Op sort = ops::moe_permute(n.name + ".argsort", T, k, E, h, act, false);
  sort.launches = 2 * argsort_launches(routed);
  sort.passes = sort.launches;
  s.ops.push_back(counted(sort, n.count, 2));
  host(s, 1, 0);  // one torch.sort (5 kernels at decode)
  Op gather = ops::moe_permute(n.name + ".sort_gather", T, k, E, h, act, true);
  s.ops.push_back(counted(gather, n.count, 3));
  host(s, 2, 0);
  s.ops.push_back(counted(ops::elementwise(n.name + ".histc_offsets", KernelId::other, 1, E, DType::fp32, 1, 1, 1, 5),
                          n.count, 1));
  host(s, 3, 3);  // to, histc, cumsum; three casts of nothing
  // Before each torch._grouped_mm its input rows pass a masked_fill out of place (clone +
  // masked_fill_): [T k, hidden] and [T k, I]. Its source in transformers is not read; the
  // element count is the data's: at prefill the masked_fill kernel time over three models is
  // T k (hidden + I) elements at one rate (h200-moe-contiguous/README.md), and the Memcpy DtoD
  // follows it; at decode both are two kernels a layer.
  masked_fill_clone(n.name + ".rows", routed, h, act, n.count, s);
  host(s, 3, 0);  // ge, clamp_ and the out-of-place masked_fill (its clone is inside it)
  s.ops[s.ops.size() - 2].aten_launching = 0;
  s.ops[s.ops.size() - 2].aten_other = 0;
  // Each torch._grouped_mm: prepare_grouped_gemm_data, then the CUTLASS kernel (grouped_mm_cost.cpp).
  Op gate_up = ops::grouped_gemm(n.name + "._grouped_mm_gate_up", T, k, E, 2 * I, h, act, wt, mm, w.routing_skew);
  gate_up.launches = 2;
  s.ops.push_back(counted(gate_up, n.count, 2));
  host(s, 1, 1);  // _grouped_mm, the weight's transpose
  // act_fn(gate) * up: gate and up are chunk views of the [T k, 2I] output, so both kernels
  // run the generic path.
  s.ops.push_back(counted(generic(n.name + ".act_fn", KernelId::other, routed, I, act, 1, 4), n.count, 1));
  host(s, 1, 1, 1);  // chunk, the SiLU module
  s.ops.push_back(counted(generic(n.name + ".act_mul_up", KernelId::mul, routed, I, act, 2, 1), n.count));
  masked_fill_clone(n.name + ".act", routed, I, act, n.count, s);
  host(s, 1, 0);
  s.ops[s.ops.size() - 2].aten_launching = 0;
  s.ops[s.ops.size() - 2].aten_other = 0;
  Op down = ops::grouped_gemm(n.name + "._grouped_mm_down", T, k, E, h, I, act, wt, mm, w.routing_skew);
  down.launches = 2;
  s.ops.push_back(counted(down, n.count, 1));
  host(s, 1, 1);
  // out * weights.unsqueeze(-1): the [T k, 1] weights broadcast along the row, the generic path.
  Op mul = generic(n.name + ".mul_weights", KernelId::mul, routed, h, act, 2, 1);
  mul.bytes_read -= static_cast<double>(routed) * static_cast<double>(h) * bytes_of(act);
  mul.bytes_read += static_cast<double>(routed) * bytes_of(act);
  s.ops.push_back(counted(mul, n.count, 1));
  host(s, 1, 2);  // two unsqueezes
  // out[inv_perm], then .view(T, k, h).sum(dim=1) back to token order.
  Op back = ops::moe_unpermute(n.name + ".unpermute_sum", T, k, h, act);
  back.bytes_read += static_cast<double>(routed) * static_cast<double>(h) * bytes_of(act);
  back.bytes_written += static_cast<double>(routed) * static_cast<double>(h) * bytes_of(act);
  back.launches = 2;
  back.passes = 2;
  s.ops.push_back(counted(back, n.count, 2));
  host(s, 3, 2);  // index_put_, sum, masked_fill_; empty_like, view
}

void eager_mla_up(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  if (!n.before_attention) return;
  const MlaSpec& a = m.mla;
  const int64_t T = w.tokens(), H = m.heads;
  const DType act = w.act_dtype;
  // transformers 5 (DeepseekV2Attention, eager) caches the normalized latent and its rope key
  // (eager_mla_cache_write) and re-expands the whole context every step: kv_b_proj over the
  // batch's ctx positions, not only the new tokens (h200-moe probe_ops.txt: aten::mm
  // [[131136, 512], [512, 4096]] at b64 ctx2048, 27 calls, one a layer).
  const int64_t rows = w.batch * w.ctx;
  s.ops.push_back(counted(ops::gemm("kv_b_proj", rows, H * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank,
                                    act, w.weight_dtype, matmul_precision(act, w.allow_tf32)),
                          n.count, 3));  // .view, .transpose, torch.split
  s.ops.back().module_calls = 1;  // its nn.Linear
  // At prefill DynamicLayer's first update (lazy init: empty, to, lift_fresh, detach_ of the latent
  // and the rope key) and its two cats, and SDPA's .contiguous(): the host's, carried here (the
  // prompt's cache cats are not priced on the GPU).
  if (w.phase == Phase::prefill) {
    s.ops.back().aten_launching = 1 + 3;
    s.ops.back().aten_other = 3 + 8;
  }
  // key_states = torch.cat((k_nope, k_pe.expand(...)), -1): k_nope is a strided view of
  // kv_b_proj's rows and k_pe an expanded view, so cat copies each input into its slice of the
  // 192-wide keys (aten::copy_ [[64, 16, 2049, 128], ...] and [..., 64] inside aten::cat in the
  // h200-moe probe; the contiguous-cache run has no CatArrayBatchedCopy of that size): two
  // generic direct_copy kernels, k_pe read once per position (a broadcast) and written H times.
  // The values stay a strided view SDPA reads.
  Op nope = ops::copy("key_nope_copy", rows, H * a.qk_nope_head_dim, act);
  nope.kernel = KernelId::other;  // direct_copy_kernel, not a cat
  nope.strided = true;
  nope.generic_operands = 2;
  s.ops.push_back(counted(nope, n.count, 1));
  Op pe = ops::copy("key_pe_copy", rows, H * a.qk_rope_head_dim, act);
  pe.bytes_read /= static_cast<double>(H);
  pe.kernel = KernelId::other;
  pe.strided = true;
  pe.generic_operands = 2;
  s.ops.push_back(counted(pe, n.count, 1));
  // The query's cat at the new tokens (contiguous inputs: CatArrayBatchedCopy).
  s.ops.push_back(counted(ops::copy("query_cat", T, H * a.qk_head_dim(), act), n.count, 1));
}

void eager_mla_cache_write(const GraphNode& n, const Model& m, const Workload& w, Step& s) {
  // DynamicCache.update on the latent (kv_lora_rank) and the rope key (qk_rope_head_dim): a
  // torch.cat of each with the new token every decode step (the prompt's first update stores
  // them). Both are 3-D rows the vectorized cat copies (CatArrayBatchedCopy_vectorized in
  // hf.json's DeepSeek steps), unlike the dense models' sliced 4-D K/V.
  if (w.phase != Phase::decode) return;
  Op cat = ops::copy(n.name + ".cat", w.batch * w.ctx, m.mla.cache_width(), w.kv_dtype);
  cat.launches = 2;
  cat.passes = 2;
  s.ops.push_back(counted(cat, n.count));
}

}  // namespace perfmodel::lowering
