#pragma once
// How the fused and eager profiles lower the MoE and MLA nodes of a layer graph (router,
// moe_experts, mla_up) and the MLA shapes of rotary, the cache write and attention (internal).
#include "perfmodel/layer_graph.hpp"
#include "perfmodel/step.hpp"

namespace perfmodel::lowering {

// fused: the router GEMM and one top-k kernel (vLLM fused_moe); the experts as the id sort,
// two grouped GEMMs around silu_mul, and the weighted sum (moe_sum).
void fused_router(const GraphNode& n, const Model& m, const Workload& w, Step& s);
void fused_experts(const GraphNode& n, const Model& m, const Workload& w, Step& s);
// fused MLA (vLLM MLACommonImpl, FlashMLA): decode absorbs W_UK into the query before and
// applies W_UV after the latent attention; prefill expands keys and values with kv_b_proj.
void fused_mla_up(const GraphNode& n, const Model& m, const Workload& w, Step& s);
void fused_mla_attention(const GraphNode& n, const Model& m, const Workload& w, Step& s);

// eager (HF transformers 5): the router's nn.Linear, scores, torch.topk and the
// renormalization as separate kernels; the experts through torch._grouped_mm after an argsort
// and a gather; MLA caches the latent and re-expands the whole context every step
// (transformers 5.17 DeepseekV2Attention, as h200-moe measured it), keys concatenated from the
// nope and rope parts.
void eager_router(const GraphNode& n, const Model& m, const Workload& w, Step& s);
void eager_experts(const GraphNode& n, const Model& m, const Workload& w, Step& s);
void eager_mla_up(const GraphNode& n, const Model& m, const Workload& w, Step& s);
void eager_mla_cache_write(const GraphNode& n, const Model& m, const Workload& w, Step& s);

// MLA's expanded attention as one head size: q/k of qk_head_dim and v of v_head_dim give the
// same FLOPs (2 pairs (d_qk + d_v) per head) and bytes as heads of their mean width.
int64_t mla_expanded_head_dim(const Model& m);

}  // namespace perfmodel::lowering
