#pragma once
// What a model computes in one step, before an implementation profile picks the kernels
// (docs/architecture.md): a model family turns a Model and a Workload into this abstract layer
// graph; a profile (profile.hpp) lowers it into kernels, e.g. a fused profile runs q, k and v as
// one GEMM and folds the residual add into the next norm, an eager one launches each.
#include <cstdint>
#include <string>
#include <vector>

#include "perfmodel/model.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

struct GraphNode {
  enum class Kind {
    embed,           // token ids gather rows of the embedding table
    position_embed,  // learned absolute positions added (GPT-2)
    norm,            // RMSNorm / LayerNorm over the hidden width
    linear,          // y = x W^T, its output in named parts (q, k, v; gate, up)
    rotary,          // rotary position embedding on q and k
    kv_write,        // the new tokens' K and V into the cache
    attention,       // the token mixer over the KV cache
    residual_add,    // h += sublayer(x)
    activation,      // the MLP's nonlinearity (gated: act(gate) * up)
    router,          // MoE: the router GEMM (hidden -> experts) and the top-k selection
    moe_experts,     // MoE: the routed experts (permute, grouped GEMMs, activation, un-permute)
    mla_up,          // MLA: the latent's up-projection around attention (expanded or absorbed)
  };
  Kind kind = Kind::norm;
  std::string name;
  int64_t count = 1;  // instances per step (the layers for per-layer nodes)

  // norm: a residual add precedes it (fused profiles fold the add into the norm)
  bool after_residual = false;
  // linear: the output parts, each its own nn.Linear in the model's code; `in` inputs
  struct Part {
    std::string name;
    int64_t out = 0;
  };
  std::vector<Part> parts;
  int64_t in = 0;
  bool bias = false;
  bool logits = false;      // the LM head: rows are the positions that need logits
  int framework_views = 0;  // eager: views/transposes of each part's output (no kernels)
  // activation
  bool gated = false;
  // norm, activation: the width when not the model's (hidden; intermediate); MLA's latent
  // norms, shared experts, Qwen3's per-head q/k norms
  int64_t width = 0;
  int64_t rows_per_token = 1;  // norm: rows each token contributes (per-head norms: the heads)
  // mla_up: the half before the attention (q absorbed / keys and values expanded) or after it
  bool before_attention = true;

  int64_t out() const {
    int64_t s = 0;
    for (const Part& p : parts) s += p.out;
    return s;
  }
};

// The width of a norm or an activation node.
inline int64_t node_width(const GraphNode& n, int64_t model_width) { return n.width > 0 ? n.width : model_width; }

struct LayerGraph {
  std::vector<GraphNode> nodes;
};

// Rows of the LM head: every position when all logits are asked for (or in decode), else the
// last position of each sequence.
inline int64_t logits_rows(const Workload& w) {
  return w.phase == Phase::prefill && !w.lm_head_all_positions ? w.batch : w.tokens();
}

}  // namespace perfmodel
