// models/*.yaml and Hugging Face config.json -> Model.
#include <algorithm>

#include "perfmodel/catalogue.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/family.hpp"
#include "catalogue/model_loader_moe.hpp"
#include "catalogue/yaml_reader.hpp"

namespace perfmodel {

namespace {

using detail::MapReader;

// Upper bounds of a model's sizes (issue 14: 2e12 layers hung the KV sum). Far above any model
// published (Llama-3.1-405B: 126 layers, hidden 16384, 128 heads; Gemma: vocab 256000), low
// enough that the products the model forms (checked in validate) stay within 64 bits.
constexpr int64_t kMaxWidth = int64_t{1} << 24;      // hidden_size, intermediate_size
constexpr int64_t kMaxLayers = 1000000;
constexpr int64_t kMaxHeads = int64_t{1} << 20;      // heads, KV heads, head_dim
constexpr int64_t kMaxVocab = int64_t{1} << 32;
constexpr int64_t kMaxPositions = int64_t{1} << 40;  // max_position_embeddings, sliding_window

// The families whose layer structure perfmodel prices (lib/src/model/family_registry.cpp); anything
// else is refused rather than priced as a Llama.
std::string supported_list() { return known_architectures(); }

// transformers' Gemma models (modeling_gemma.py, modeling_gemma2.py): GemmaRMSNorm's (1 + w) in fp32 and the
// embeddings times sqrt(hidden_size), whatever the config says; the soft-cap is a config value.
void set_gemma_conventions(Model& m) {
  m.gemma_norm = m.embed_scale = m.architecture == "gemma" || m.architecture == "gemma2";
}

bool is_supported(const std::string& arch) {
  for (const ModelFamily* f : model_families())
    for (std::string_view a : f->architectures)
      if (a == arch) return true;
  return false;
}

Activation parse_activation(MapReader& r, const std::string& key, const std::string& v) {
  if (v == "silu" || v == "swish") return Activation::silu;
  if (v == "gelu") return Activation::gelu;
  if (v == "gelu_new" || v == "gelu_pytorch_tanh" || v == "gelu_fast" || v == "gelu_tanh")
    return Activation::gelu_tanh;
  if (v == "relu") return Activation::relu;
  r.fail(key, "unknown activation '" + v + "'; expected silu, gelu, gelu_new, gelu_pytorch_tanh or relu");
}

template <typename T>
T pick(MapReader& r, const std::string& key, const std::string& v,
       std::initializer_list<std::pair<const char*, T>> options) {
  std::string names;
  for (const auto& [name, value] : options) {
    if (v == name) return value;
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  r.fail(key, "'" + v + "' is not one of: " + names);
}

}  // namespace

Model load_model_file(const std::string& path) {
  if (path.size() >= 5 && path.substr(path.size() - 5) == ".json") return load_hf_config(path);
  YAML::Node root = detail::load_file(path);
  if (root.IsMap() && (root["model_type"] || root["architectures"])) return load_hf_config(path);
  MapReader r(root, path, "");
  Model m;
  m.key = path;
  m.source_file = path;
  m.name = r.str("name");
  r.opt_str("hf_repo");
  m.architecture = r.str("architecture");
  if (!is_supported(m.architecture))
    r.fail("architecture", "unknown architecture '" + m.architecture + "'; supported: " + supported_list());
  m.hidden = r.integer("hidden_size", 1, kMaxWidth);
  m.intermediate = r.integer("intermediate_size", 1, kMaxWidth);
  m.layers = r.integer("num_hidden_layers", 1, kMaxLayers);
  m.heads = r.integer("num_attention_heads", 1, kMaxHeads);
  m.kv_heads = r.integer("num_key_value_heads", 1, kMaxHeads);
  m.head_dim = r.integer("head_dim", 1, kMaxHeads);
  m.vocab = r.integer("vocab_size", 1, kMaxVocab);
  m.max_positions = r.integer("max_position_embeddings", 1, kMaxPositions);
  m.act = parse_activation(r, "hidden_act", r.str("hidden_act"));
  m.gated_mlp = pick<bool>(r, "mlp", r.str("mlp"), {{"gated", true}, {"plain", false}});
  m.norm = pick<NormKind>(r, "norm", r.str("norm"),
                          {{"rmsnorm", NormKind::rmsnorm}, {"layernorm", NormKind::layernorm}});
  m.norms_per_layer = static_cast<int>(r.integer("norms_per_layer", 1, 4));
  if (m.norms_per_layer != 2 && m.norms_per_layer != 4) r.fail("norms_per_layer", "must be 2 or 4");
  m.position = pick<PositionKind>(r, "position_embedding", r.str("position_embedding"),
                                  {{"rope", PositionKind::rope}, {"learned", PositionKind::learned}});
  m.tie_word_embeddings = r.boolean("tie_word_embeddings");
  m.qkv_bias = r.boolean("attention_bias");
  m.o_bias = r.boolean("attention_output_bias");
  m.mlp_bias = r.boolean("mlp_bias");
  m.sliding_window = r.integer("sliding_window", 0, kMaxPositions);
  m.window_pattern = pick<WindowPattern>(r, "sliding_window_pattern", r.str("sliding_window_pattern"),
                                         {{"all", WindowPattern::all}, {"alternate", WindowPattern::alternate}});
  detail::read_yaml_moe_mla(r, m);  // MoE and MLA blocks (model_loader_moe.cpp)
  set_gemma_conventions(m);
  if (auto cap = r.opt_number("final_logit_softcapping", 0)) m.final_logit_softcap = *cap;  // 0: none
  r.finish();
  validate(m);
  return m;
}

Model load_hf_config(const std::string& path) {
  MapReader r(detail::load_file(path), path, "");
  Model m;
  m.key = path;
  m.source_file = path;
  const std::string type = r.opt_str("model_type").value_or("");
  if (!is_supported(type)) {
    const std::string list = supported_list();
    r.fail("model_type", type.empty() ? "missing; supported model types: " + list
                                      : "'" + type + "' is not supported; supported: " + list);
  }
  m.architecture = type;
  m.name = type;
  if (auto names = r.has("_name_or_path") ? r.opt_str("_name_or_path") : std::nullopt) m.name = *names;
  const bool gpt2 = type == "gpt2";
  // The first of `keys` present; its value must lie in [1, max_value].
  auto first = [&](std::initializer_list<const char*> keys, bool required,
                   int64_t max_value) -> std::optional<int64_t> {
    for (const char* k : keys)
      if (r.has(k))
        if (auto v = r.opt_nullable_integer(k, 1, max_value)) return v;
    if (required) r.fail_here(std::string("missing required field '") + *keys.begin() + "'");
    return std::nullopt;
  };
  m.hidden = *first({"hidden_size", "n_embd"}, true, kMaxWidth);
  m.layers = *first({"num_hidden_layers", "n_layer"}, true, kMaxLayers);
  m.heads = *first({"num_attention_heads", "n_head"}, true, kMaxHeads);
  m.vocab = *first({"vocab_size"}, true, kMaxVocab);
  m.max_positions = *first({"max_position_embeddings", "n_positions"}, true, kMaxPositions);
  // GPT-2: n_inner null means 4 x n_embd.
  auto inter = first({"intermediate_size", "n_inner"}, !gpt2, kMaxWidth);
  m.intermediate = inter ? *inter : 4 * m.hidden;
  // Missing num_key_value_heads means multi-head attention (HF's default).
  m.kv_heads = first({"num_key_value_heads"}, false, kMaxHeads).value_or(m.heads);
  // Explicit head_dim wins (Gemma-2: 256, not hidden / heads). Without one, transformers computes
  // hidden_size // num_attention_heads; a remainder means the projections do not tile the hidden
  // size and the config is wrong, so refuse instead of silently flooring (4097 / 32 -> 128).
  auto hd = first({"head_dim"}, false, kMaxHeads);
  if (!hd && m.hidden % m.heads != 0)
    r.fail(r.has("hidden_size") ? "hidden_size" : "n_embd",
           std::to_string(m.hidden) + " is not a multiple of the " + std::to_string(m.heads) +
               " attention heads; give head_dim explicitly");
  m.head_dim = hd ? *hd : m.hidden / m.heads;
  std::string act = r.opt_str("hidden_act").value_or(r.opt_str("activation_function").value_or(
      r.opt_str("hidden_activation").value_or("")));
  if (act.empty()) r.fail_here("missing required field 'hidden_act'");
  m.act = parse_activation(r, "hidden_act", act);
  // PretrainedConfig defaults tie_word_embeddings to true (reference B.4).
  m.tie_word_embeddings = r.opt_boolean("tie_word_embeddings").value_or(true);
  if (gpt2) {
    m.gated_mlp = false;
    m.norm = NormKind::layernorm;
    m.position = PositionKind::learned;
    m.qkv_bias = m.o_bias = m.mlp_bias = true;
  } else {
    m.gated_mlp = true;
    m.norm = NormKind::rmsnorm;
    m.position = PositionKind::rope;
    // Qwen2's q/k/v bias is hard-coded in the model, not a config key (reference B.4).
    m.qkv_bias = r.opt_boolean("attention_bias").value_or(type == "qwen2" || type == "qwen2_moe");
    m.o_bias = false;
    m.mlp_bias = r.opt_boolean("mlp_bias").value_or(false);
  }
  if (type == "gemma2") {
    m.norms_per_layer = 4;
    m.window_pattern = WindowPattern::alternate;
  }
  set_gemma_conventions(m);
  if (auto cap = r.opt_nullable_number("final_logit_softcapping", 0)) m.final_logit_softcap = *cap;  // null: none
  // Qwen3Attention and Qwen3MoeAttention: q_norm and k_norm over head_dim.
  m.qk_norm = type == "qwen3" || type == "qwen3_moe";
  // MoE and MLA fields (model_loader_moe.cpp); any other MoE/MLA-looking key is refused.
  detail::read_hf_moe_mla(r, type, m);
  auto window = r.has("sliding_window") ? r.opt_nullable_integer("sliding_window", 0, kMaxPositions) : std::nullopt;
  const bool use_window = r.opt_boolean("use_sliding_window").value_or(true);
  m.sliding_window = window && use_window ? *window : 0;
  // Other HF fields (training, tokenizer, rope scaling) do not change the cost.
  for (const auto& k : r.keys()) r.ignore({k});
  validate(m);
  return m;
}

}  // namespace perfmodel
