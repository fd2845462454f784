#pragma once
// Op constructors: the one place each op's FLOPs and bytes are counted, each defined in its
// kernel's file (lib/src/kernels/<kernel>.cpp). Every tensor read and every tensor written is
// counted once per kernel (seed 004 错误一), in its own dtype.
#include <cstdint>
#include <functional>
#include <string>

#include "perfmodel/op.hpp"

namespace perfmodel::ops {

// An NCCL collective among `gpus` GPUs on `bytes` per GPU (nccl-tests' sizes: all_reduce the
// buffer, all_gather the gathered output, send_recv the message); no FLOPs, no DRAM bytes counted.
Op collective(std::string name, CollectiveOp what, int gpus, double bytes, bool overlaps);

// y[m,n] = x[m,k] . W[n,k]^T (+ bias): 2mnk FLOPs; reads x and W (and bias), writes y
// (seed 000 example 2: bytes 2(MK + KN + MN) in bf16).
Op gemm(std::string name, int64_t m, int64_t n, int64_t k, DType act, DType weight,
        Precision precision, bool bias = false);
// Quantized linears (quant.hpp). Weight-only: x (act) times W (int4/int8, `group` along K, 0 =
// per channel) dequantized in the kernel, y in act. Scaled (W8A8/W4A4): x already in `in`
// (fp8/int8/nvfp4/mxfp4) with its scales, W in `weight` with its scales, y in act.
Op gemm_wonly(std::string name, int64_t m, int64_t n, int64_t k, DType act, DType weight, int64_t group,
              bool bias = false);
Op gemm_scaled(std::string name, int64_t m, int64_t n, int64_t k, DType act, DType in, Scaling scaling,
               bool bias = false);
// Activation quantization of an m x k `act` tensor into `in`: the amax reduction of dynamic
// per-tensor scales, and the scale/cast kernel (per-token and block scales find their amax inside it).
Op act_amax(std::string name, int64_t m, int64_t k, DType act);
Op act_quant(std::string name, int64_t m, int64_t k, DType act, DType in, Scaling scaling, bool amax_inside);

// `batch` independent y = x W^T of one shape in one launch (attention scores).
Op batched_gemm(std::string name, int64_t batch, int64_t m, int64_t n, int64_t k, DType t, Precision p);

// Elementwise kernels on rows x cols outputs. `inputs` full-size tensors are read and
// `outputs` written per kernel; flops_per_element is the arithmetic per output element.
Op elementwise(std::string name, KernelId kernel, int64_t rows, int64_t cols, DType dtype,
               int inputs, int outputs, double flops_per_element, int launches = 1);

// Convenience wrappers with the seeds' counts.
Op add(std::string name, int64_t rows, int64_t cols, DType dtype);          // 2 reads, 1 write, 1 FLOP
Op copy(std::string name, int64_t rows, int64_t cols, DType dtype);         // 1 read, 1 write
Op silu_mul(std::string name, int64_t rows, int64_t cols, DType dtype);     // reads gate and up, writes 1
Op gelu_mul(std::string name, int64_t rows, int64_t cols, DType dtype);     // GeGLU
// GELU (tanh form). Fused: 1 read, 1 write. Unfused: the seed's 8 kernels, 10 reads and
// 8 writes per element (seed 000: "10 чтений и 8 записей"), 9x the fused traffic.
Op gelu(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused);
Op gelu_unfused(std::string name, int64_t rows, int64_t cols, DType dtype);
Op cast(std::string name, int64_t rows, int64_t cols, DType from, DType to);

// RMSNorm / LayerNorm over rows of `cols`; reads x and the weight (and bias), writes y. With
// `fused_residual` the residual add is fused in (reads x and residual, writes both).
Op rmsnorm(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused_residual);
Op layernorm(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused_residual);

// Row softmax. Naive (seed 001 manual_softmax, 5 kernels): 5MN + M reads, 3MN + 2M writes.
// Fused: MN reads, MN writes.
Op softmax(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused);
Op softmax_naive(std::string name, int64_t rows, int64_t cols, DType dtype);

// Rotary on q and k in place: reads and writes (heads + kv_heads) x head_dim per token and
// reads the cos/sin table (head_dim per token).
Op rotary(std::string name, int64_t tokens, int64_t heads, int64_t kv_heads, int64_t head_dim,
          DType dtype);
// KV-cache append: reads the new K and V, writes them into the cache.
Op kv_append(std::string name, int64_t tokens, int64_t kv_heads, int64_t head_dim, DType act,
             DType kv);
// Embedding gather: reads token ids (int64) and one table row per token, writes the rows.
Op embedding(std::string name, int64_t tokens, int64_t hidden, DType table, DType out);

// Decode attention over a KV cache: QK^T and PV are 4 b h L d FLOPs; the cache is read once
// per KV head group (GQA), q read and o written once.
Op attention_decode(std::string name, int64_t batch, int64_t heads, int64_t kv_heads,
                    int64_t kv_len, int64_t head_dim, DType act, DType kv);
// The same attention as cuDNN's decode SDPA runs it (attention_decode_cudnn.cpp): 16-row query
// tiles, split over all SMs with a merge kernel when the tiles leave half the SMs idle.
Op attention_decode_cudnn(std::string name, int64_t batch, int64_t heads, int64_t kv_heads,
                          int64_t kv_len, int64_t head_dim, DType act, DType kv);
// Fused (flash) prefill attention: 4 b h s^2 d FLOPs, halved (s(s+1)/2 pairs) when causal;
// Q, K, V read and O written once (the score matrix never reaches memory).
Op attention_prefill(std::string name, int64_t batch, int64_t heads, int64_t kv_heads,
                     int64_t q_len, int64_t kv_len, int64_t head_dim, bool causal, DType act,
                     DType kv, int64_t window = 0);
// The same decode as FlashAttention-2 runs it (attention_decode_flash2.cpp): the GQA group in the query rows, its
// split rule, split kernel + combine or one kernel.
Op attention_decode_flash2(std::string name, int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len,
                           int64_t head_dim, DType act, DType kv);
// The same prefill as FlashAttention-2 runs it (attention_prefill_flash2.cpp): its own mma.sync tiles, two CTAs
// an SM, the masking branch's extra cost; PyTorch SDPA's `flash` backend and flash-attn 2.
Op attention_prefill_flash2(std::string name, int64_t batch, int64_t heads, int64_t kv_heads, int64_t q_len,
                            int64_t kv_len, int64_t head_dim, bool causal, DType act, DType kv, int64_t window = 0);
// Unfused prefill attention (eager PyTorch math path): S = Q K^T as a batched GEMM writing the
// full score matrix, a softmax pass reading and writing it, and P V: the score matrix crosses
// memory three times (seed 001 slide 46: 40.3 GB vs 4.4 GB for FlashAttention). No causal
// FLOP saving: the mask is applied to a full matrix.
Op attention_prefill_unfused(std::string name, int64_t batch, int64_t heads, int64_t kv_heads,
                             int64_t q_len, int64_t kv_len, int64_t head_dim, bool causal,
                             DType act, DType kv);
// Score pairs of attention: q_len x kv_len, or with a causal mask the queries (aligned to the
// end of the keys) each see the keys up to their own position, at most `window` of them when a
// sliding window is set (Mistral, Gemma-2 local layers).
double attention_pairs(int64_t q_len, int64_t kv_len, bool causal, int64_t window = 0);

// --- mixture of experts (lib/src/kernels/moe_*.cpp, grouped_gemm.cpp) ---------------------
// Expected distinct experts `tokens` tokens reach when each picks `top_k` of `experts`. Uniform
// routing (skew 0): E (1 - (1 - k/E)^T) (issue 11). With skew s, expert i (1-based) is picked
// with probability p_i = k i^-s / sum_j j^-s (capped at 1): sum_i 1 - (1 - p_i)^T.
double experts_touched(int64_t experts, int64_t top_k, int64_t tokens, double skew = 0);
// Expected row blocks when each expert's routed rows are padded to `block` (vLLM moe_align_block_size):
// sum over experts of E[ceil(c_i / block)], c_i ~ Binomial(tokens, p_i) with experts_touched's p_i. Above
// T k / block by the partly filled blocks: Qwen3-30B's 2048-token prefill 317 against 256 (the probe's 320).
double expected_row_blocks(int64_t experts, int64_t top_k, int64_t tokens, int64_t block, double skew = 0);
// sum over experts of E[f(c_i)], c_i ~ Binomial(tokens, p_i) as above: what a per-expert cost of its routed rows
// (fused_moe's partner lag, by the last block's rows) comes to in expectation.
double expected_over_routed_counts(int64_t experts, int64_t top_k, int64_t tokens, double skew,
                                   const std::function<double(int64_t)>& f);
// Router top-k (vLLM fused_moe topk_softmax / grouped_topk): reads the tokens x experts router
// logits, scores them (softmax or sigmoid), picks k (per group when grouped), writes k fp32
// weights and k int32 ids per token.
Op moe_topk(std::string name, int64_t tokens, int64_t experts, int64_t top_k, DType logits);
// Token permutation: the tokens' k expert ids sorted into per-expert runs (vLLM
// moe_align_block_size). `gather_rows`: the hidden rows are also copied into expert order
// (PyTorch eager: index_select before torch._grouped_mm), T k rows of `hidden`.
Op moe_permute(std::string name, int64_t tokens, int64_t top_k, int64_t experts, int64_t hidden, DType act,
               bool gather_rows);
// Un-permutation: each token's k expert outputs scaled by their router weights and summed into
// its row (weighted scatter-add; vLLM moe_sum): reads T k rows, writes T rows.
Op moe_unpermute(std::string name, int64_t tokens, int64_t top_k, int64_t hidden, DType act);
// Grouped expert GEMM: T k routed rows through their experts' W[n, k_dim]. FLOPs 2 T k n k_dim;
// weight bytes those of the expected distinct experts touched (experts_touched); the tile plan
// is a batch of experts_touched GEMMs of T k / experts_touched rows each.
Op grouped_gemm(std::string name, int64_t tokens, int64_t top_k, int64_t experts, int64_t n, int64_t k_dim,
                DType act, DType weight, Precision precision, double skew = 0);

// --- multi-head latent attention (attention_mla_decode.cpp) -------------------------------
// Absorbed MLA decode (FlashMLA; DeepSeek-V2 paper section 2.1.3): per head, q (latent + rope
// dims) against the cached [latent | rope key] of every token, and P against the latent as the
// value: 2 b h L (r + p) + 2 b h L r FLOPs; the cache (r + p per token) read once for all heads.
Op attention_mla_decode(std::string name, int64_t batch, int64_t heads, int64_t kv_len, int64_t kv_lora_rank,
                        int64_t rope_dim, DType act, DType kv);

}  // namespace perfmodel::ops
