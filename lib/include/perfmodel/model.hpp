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

  int64_t q_dim() const { return heads * head_dim; }
  int64_t kv_dim() const { return kv_heads * head_dim; }
  // Parameter count (reference B.3 "Llama-like" formula, plus biases and learned positions).
  double parameters() const;
  // Parameters touched per generated token: everything but the input embedding table, which is
  // gathered, not multiplied (its lm_head twin counts when tied).
  double matmul_parameters() const;
  // Tokens of KV a layer keeps at context n (sliding windows cap it).
  int64_t kv_tokens(int64_t layer, int64_t ctx) const;
  // kv_tokens summed over all layers, in closed form (a loop over layers hung on 2e12 layers).
  double kv_tokens_all_layers(int64_t ctx) const;
};

std::string to_string(Activation a);
std::string to_string(NormKind n);

// Checks the invariants every model must satisfy (positive sizes, heads divisible by kv heads,
// products that fit in 64 bits). Throws InputError.
void validate(const Model& m);

}  // namespace perfmodel
