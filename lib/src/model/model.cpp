#include "perfmodel/model.hpp"

#include "perfmodel/errors.hpp"
#include "perfmodel/checked.hpp"
#include "perfmodel/family.hpp"

namespace perfmodel {

// The family owns the formula (lib/src/model/).
double Model::parameters() const { return family_for(*this).parameters(*this); }

double Model::active_parameters() const {
  const ModelFamily& f = family_for(*this);
  return f.active_parameters ? f.active_parameters(*this) : f.parameters(*this);
}

int64_t Model::moe_layers() const {
  if (!moe.enabled()) return 0;
  // HF: DeepSeek `layer_idx >= first_k_dense_replace and layer_idx % moe_layer_freq == 0`;
  // Qwen2/3-MoE `(layer_idx + 1) % decoder_sparse_step == 0`.
  int64_t n = 0;
  for (int64_t i = moe.first_dense; i < layers; ++i)
    if ((i + moe.freq_offset) % moe.layer_freq == 0) ++n;
  return n;
}

double Model::matmul_parameters() const {
  const double d = static_cast<double>(hidden);
  const double input_table = static_cast<double>(vocab) * d;
  const double positions = position == PositionKind::learned ? static_cast<double>(max_positions) * d : 0;
  // Untied: the input table is gathered only. Tied: the same table is read again by lm_head.
  return parameters() - positions - (tie_word_embeddings ? 0 : input_table);
}

int64_t Model::kv_tokens(int64_t layer, int64_t ctx) const {
  if (sliding_window <= 0) return ctx;
  bool local = window_pattern == WindowPattern::all || layer % 2 == 0;
  return local && ctx > sliding_window ? sliding_window : ctx;
}

double Model::kv_tokens_all_layers(int64_t ctx) const {
  const double all = static_cast<double>(layers) * static_cast<double>(ctx);
  if (sliding_window <= 0 || ctx <= sliding_window) return all;
  // Local layers: all of them, or the even-indexed ones (0, 2, ...) when windows alternate.
  const int64_t local = window_pattern == WindowPattern::all ? layers : (layers + 1) / 2;
  return all - static_cast<double>(local) * static_cast<double>(ctx - sliding_window);
}

std::string to_string(Activation a) {
  switch (a) {
    case Activation::silu: return "silu";
    case Activation::gelu: return "gelu";
    case Activation::gelu_tanh: return "gelu_tanh";
    case Activation::relu: return "relu";
  }
  return "?";
}

std::string to_string(NormKind n) { return n == NormKind::rmsnorm ? "rmsnorm" : "layernorm"; }

std::string to_string(RouterScoring s) { return s == RouterScoring::softmax ? "softmax" : "sigmoid"; }

void validate(const Model& m) {
  auto positive = [&](int64_t v, const char* what) {
    if (v <= 0)
      throw InputError("model '" + m.key + "': " + what + " must be positive, got " +
                       std::to_string(v));
  };
  positive(m.hidden, "hidden_size");
  positive(m.intermediate, "intermediate_size");
  positive(m.layers, "num_hidden_layers");
  positive(m.heads, "num_attention_heads");
  positive(m.kv_heads, "num_key_value_heads");
  positive(m.head_dim, "head_dim");
  positive(m.vocab, "vocab_size");
  positive(m.max_positions, "max_position_embeddings");
  if (m.heads % m.kv_heads != 0)
    throw InputError("model '" + m.key + "': num_attention_heads (" + std::to_string(m.heads) +
                     ") is not a multiple of num_key_value_heads (" + std::to_string(m.kv_heads) + ")");
  if (m.moe.enabled()) {
    const MoeSpec& e = m.moe;
    auto fail = [&](const std::string& what) { throw InputError("model '" + m.key + "': " + what); };
    positive(e.top_k, "num_experts_per_tok");
    positive(e.expert_intermediate, "moe_intermediate_size");
    positive(e.layer_freq, "moe_layer_freq");
    positive(e.n_group, "n_group");
    positive(e.topk_group, "topk_group");
    if (e.top_k > e.experts)
      fail("num_experts_per_tok (" + std::to_string(e.top_k) + ") exceeds the experts (" + std::to_string(e.experts) + ")");
    if (e.experts % e.n_group != 0)
      fail("n_group (" + std::to_string(e.n_group) + ") does not divide the experts (" + std::to_string(e.experts) + ")");
    if (e.topk_group > e.n_group)
      fail("topk_group (" + std::to_string(e.topk_group) + ") exceeds n_group (" + std::to_string(e.n_group) + ")");
    if (e.top_k > e.topk_group * (e.experts / e.n_group))
      fail("num_experts_per_tok (" + std::to_string(e.top_k) + ") exceeds the experts of topk_group groups");
    if (e.shared_experts < 0 || (e.shared_experts > 0 && e.shared_intermediate <= 0))
      fail("shared experts need a positive count and width");
    if (e.first_dense < 0 || e.first_dense > m.layers) fail("first_k_dense_replace must be in [0, layers]");
    checked_mul({e.experts, m.hidden, e.expert_intermediate, 3}, "experts x hidden_size x moe_intermediate_size");
  }
  if (m.mla.enabled()) {
    positive(m.mla.qk_nope_head_dim, "qk_nope_head_dim");
    positive(m.mla.qk_rope_head_dim, "qk_rope_head_dim");
    positive(m.mla.v_head_dim, "v_head_dim");
    if (m.mla.q_lora_rank < 0) throw InputError("model '" + m.key + "': q_lora_rank must not be negative");
  }
  // The largest products the model forms; all must fit in 64 bits.
  checked_mul({m.vocab, m.hidden}, "vocab_size x hidden_size");
  checked_mul({m.hidden, m.intermediate, 3}, "hidden_size x intermediate_size");
  checked_mul({m.heads, m.head_dim, m.hidden}, "heads x head_dim x hidden_size");
}

}  // namespace perfmodel
