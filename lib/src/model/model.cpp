#include "perfmodel/model.hpp"

#include "perfmodel/errors.hpp"
#include "perfmodel/checked.hpp"
#include "perfmodel/family.hpp"

namespace perfmodel {

// The family owns the formula (lib/src/model/).
double Model::parameters() const { return family_for(*this).parameters(*this); }

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
  // The largest products the model forms; all must fit in 64 bits.
  checked_mul({m.vocab, m.hidden}, "vocab_size x hidden_size");
  checked_mul({m.hidden, m.intermediate, 3}, "hidden_size x intermediate_size");
  checked_mul({m.heads, m.head_dim, m.hidden}, "heads x head_dim x hidden_size");
}

}  // namespace perfmodel
