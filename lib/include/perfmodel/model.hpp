#pragma once
// A decoder-only transformer's architecture (ARCHITECTURE.md: Model). Field names follow
// Hugging Face config.json.
#include <cstdint>
#include <string>

namespace perfmodel {

enum class Activation { silu, gelu, gelu_tanh, relu };
enum class NormKind { rmsnorm, layernorm };
enum class PositionKind { rope, learned };
enum class WindowPattern { all, alternate };
enum class RouterScoring { softmax, sigmoid };

// Mixture-of-experts MLP (HF configs of mixtral, qwen2_moe, qwen3_moe, deepseek_v2/v3;
// docs/catalogue-schema.md). `experts` == 0: a dense model.
struct MoeSpec {
  int64_t experts = 0;              // routed experts per MoE layer (num_local_experts, n_routed_experts, num_experts)
  int64_t top_k = 0;                // experts each token is routed to (num_experts_per_tok)
  int64_t expert_intermediate = 0;  // each routed expert's FFN width (moe_intermediate_size)
  int64_t shared_experts = 0;       // always-active experts (DeepSeek n_shared_experts; Qwen2-MoE 1)
  int64_t shared_intermediate = 0;  // each shared expert's FFN width
  bool shared_expert_gate = false;  // Qwen2-MoE: sigmoid(Linear(d, 1)) scales the shared expert
  int64_t first_dense = 0;          // first_k_dense_replace: leading layers with a dense MLP
  // A layer i >= first_dense is MoE when (i + freq_offset) % layer_freq == 0: DeepSeek's
  // moe_layer_freq (offset 0) or Qwen2/3-MoE's decoder_sparse_step (offset 1).
  int64_t layer_freq = 1;
  int64_t freq_offset = 0;
  RouterScoring scoring = RouterScoring::softmax;
  int64_t n_group = 1, topk_group = 1;  // grouped top-k (DeepSeek-V3: 8 groups, best 4)
  bool norm_topk_prob = false;          // top-k weights renormalized to sum to 1
  bool score_correction_bias = false;   // noaux_tc: e_score_correction_bias, one per expert

  bool enabled() const { return experts > 0; }
};

// Multi-head latent attention (DeepSeek-V2 paper, section 2.1; HF modeling_deepseek_v3.py).
// `kv_lora_rank` == 0: standard attention.
struct MlaSpec {
  int64_t q_lora_rank = 0;  // 0: q_proj directly from the hidden state (DeepSeek-V2-Lite)
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;

  bool enabled() const { return kv_lora_rank > 0; }
  int64_t qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
  // What the cache holds per token and layer: the latent and the shared rope key.
  int64_t cache_width() const { return kv_lora_rank + qk_rope_head_dim; }
};

struct Model {
  std::string key;   // catalogue key or file path
  std::string name;  // display name
  std::string architecture;  // llama | mistral | qwen2 | gemma2 | gpt2 | ...
  std::string source_file;
  int64_t hidden = 0, intermediate = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
  int64_t vocab = 0, max_positions = 0;
  Activation act = Activation::silu;
  bool gated_mlp = true;
  NormKind norm = NormKind::rmsnorm;
  int norms_per_layer = 2;
  PositionKind position = PositionKind::rope;
  bool tie_word_embeddings = false;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;
  int64_t sliding_window = 0;  // 0 = none
  WindowPattern window_pattern = WindowPattern::all;
  bool qk_norm = false;  // Qwen3-MoE: RMSNorm over head_dim on q and k (q_norm, k_norm)
  // Gemma's conventions (architectures gemma, gemma2; transformers' GemmaRMSNorm and GemmaModel): the
  // norm's weight applied as (1 + w) in fp32, the embeddings scaled by sqrt(hidden_size). Gemma-2
  // soft-caps its final logits, cap x tanh(logits / cap) (final_logit_softcapping; 0 = none).
  bool gemma_norm = false;
  bool embed_scale = false;
  double final_logit_softcap = 0;
  MoeSpec moe;
  MlaSpec mla;

  int64_t q_dim() const { return heads * head_dim; }
  int64_t kv_dim() const { return kv_heads * head_dim; }
  // Parameter count (reference B.3 "Llama-like" formula, plus biases and learned positions).
  double parameters() const;
  // Parameters touched per generated token: everything but the input embedding table, which is
  // gathered, not multiplied (its lm_head twin counts when tied).
  double matmul_parameters() const;
  // MoE: layers whose MLP is the mixture, and the dense ones (all layers when dense).
  int64_t moe_layers() const;
  int64_t dense_layers() const { return layers - moe_layers(); }
  // Parameters a token uses: all but the routed experts it is not sent to (top_k of experts).
  double active_parameters() const;
  // Tokens of KV a layer keeps at context n (sliding windows cap it).
  int64_t kv_tokens(int64_t layer, int64_t ctx) const;
  // kv_tokens summed over all layers, in closed form (a loop over layers hung on 2e12 layers).
  double kv_tokens_all_layers(int64_t ctx) const;
};

std::string to_string(Activation a);
std::string to_string(NormKind n);
std::string to_string(RouterScoring s);

// Checks the invariants every model must satisfy (positive sizes, heads divisible by kv heads,
// products that fit in 64 bits). Throws InputError.
void validate(const Model& m);

}  // namespace perfmodel
