// Mixture-of-experts and multi-head latent attention fields of models/*.yaml and of Hugging Face
// config.json (mixtral, qwen2_moe, qwen3_moe, deepseek_v2, deepseek_v3). A key that looks like
// MoE or MLA but is not understood is refused by name: a model is never priced as dense by
// mistake (issue 11).
#include "model_loader_moe.hpp"

#include <algorithm>
#include <array>

namespace perfmodel::detail {

namespace {

// Substrings of MoE / MLA config keys (HF configuration_*.py of the five model types, Llama 4,
// gpt-oss, DBRX, Jamba, ...).
constexpr std::array<std::string_view, 13> kMoeMlaMarks{
    "expert", "moe", "lora", "router", "topk", "top_k", "routed", "sparse_step", "n_group",
    "mlp_only", "nope_head", "rope_head", "v_head_dim"};

// Read elsewhere or without a cost: training losses and noise, the weights' scale, expert
// parallel size, the MTP module (used only for speculative decoding; priced without it, as the
// catalogue's 671 B for DeepSeek-V3).
constexpr std::array<std::string_view, 8> kCostless{
    "router_aux_loss_coef", "output_router_logits", "router_jitter_noise", "aux_loss_alpha",
    "seq_aux", "routed_scaling_factor", "ep_size", "num_nextn_predict_layers"};

bool looks_moe_mla(const std::string& key) {
  return std::any_of(kMoeMlaMarks.begin(), kMoeMlaMarks.end(),
                     [&](std::string_view m) { return key.find(m) != std::string::npos; });
}

bool costless(const std::string& key) {
  return std::find(kCostless.begin(), kCostless.end(), key) != kCostless.end();
}

RouterScoring scoring(MapReader& r, const std::string& key, const std::string& v) {
  if (v == "softmax") return RouterScoring::softmax;
  if (v == "sigmoid") return RouterScoring::sigmoid;
  r.fail(key, "'" + v + "' is not one of: softmax, sigmoid");
}

std::optional<int64_t> nullable(MapReader& r, const std::string& key) {
  return r.has(key) ? r.opt_nullable_integer(key) : std::nullopt;
}

int64_t required(MapReader& r, const std::string& key) {
  if (auto v = nullable(r, key)) return *v;
  r.fail_here("missing required field '" + key + "'");
}

// DeepSeek-V2/V3 (configuration_deepseek_v3.py; DeepSeek-V2 paper section 2.1 for MLA, V3 paper
// section 2.1.2 for sigmoid scores and group-limited routing).
void read_deepseek(MapReader& r, Model& m) {
  MoeSpec& e = m.moe;
  e.experts = required(r, "n_routed_experts");
  e.top_k = required(r, "num_experts_per_tok");
  e.expert_intermediate = required(r, "moe_intermediate_size");
  e.shared_experts = nullable(r, "n_shared_experts").value_or(0);
  e.shared_intermediate = e.expert_intermediate;  // DeepseekV3MoE: intermediate_size * n_shared_experts
  e.first_dense = nullable(r, "first_k_dense_replace").value_or(0);
  e.layer_freq = nullable(r, "moe_layer_freq").value_or(1);
  e.n_group = nullable(r, "n_group").value_or(1);
  e.topk_group = nullable(r, "topk_group").value_or(1);
  e.norm_topk_prob = r.opt_boolean("norm_topk_prob").value_or(false);
  const std::string method = r.opt_str("topk_method").value_or("greedy");
  if (method != "greedy" && method != "group_limited_greedy" && method != "noaux_tc")
    r.fail("topk_method", "'" + method + "' is not one of: greedy, group_limited_greedy, noaux_tc");
  e.score_correction_bias = method == "noaux_tc";  // e_score_correction_bias, one per routed expert
  e.scoring = scoring(r, "scoring_func", r.opt_str("scoring_func").value_or("softmax"));
  MlaSpec& a = m.mla;
  a.q_lora_rank = nullable(r, "q_lora_rank").value_or(0);  // null: q_proj straight from the hidden state
  a.kv_lora_rank = required(r, "kv_lora_rank");
  a.qk_nope_head_dim = required(r, "qk_nope_head_dim");
  a.qk_rope_head_dim = required(r, "qk_rope_head_dim");
  a.v_head_dim = required(r, "v_head_dim");
  // num_key_value_heads is nominal: every head has its own (decompressed) key and value.
  m.kv_heads = m.heads;
  m.head_dim = a.qk_head_dim();
}

// Qwen2-MoE / Qwen3-MoE (configuration_qwen2_moe.py, configuration_qwen3_moe.py).
void read_qwen_moe(MapReader& r, Model& m, bool qwen2) {
  MoeSpec& e = m.moe;
  e.experts = required(r, "num_experts");
  e.top_k = required(r, "num_experts_per_tok");
  e.expert_intermediate = required(r, "moe_intermediate_size");
  e.layer_freq = nullable(r, "decoder_sparse_step").value_or(1);
  e.freq_offset = 1;  // (layer_idx + 1) % decoder_sparse_step == 0
  e.norm_topk_prob = r.opt_boolean("norm_topk_prob").value_or(false);
  // mlp_only_layers: dense layers amid the MoE ones; only the empty list (every released
  // Qwen2/3-MoE) is supported.
  if (r.has("mlp_only_layers")) {
    const YAML::Node list = load_file(r.file())["mlp_only_layers"];
    if (!list.IsNull() && !(list.IsSequence() && list.size() == 0))
      r.fail("mlp_only_layers", "dense layers amid MoE layers are not supported (only [])");
  }
  if (qwen2) {  // Qwen2MoeSparseMoeBlock: one shared expert behind a sigmoid gate
    e.shared_experts = 1;
    e.shared_intermediate = required(r, "shared_expert_intermediate_size");
    e.shared_expert_gate = true;
  }
}

// The MoE / MLA keys each model type's reader understands.
std::vector<std::string> understood_keys(const std::string& type) {
  if (type == "mixtral") return {"num_local_experts", "num_experts_per_tok"};
  std::vector<std::string> qwen{"num_experts",     "num_experts_per_tok", "moe_intermediate_size",
                                "decoder_sparse_step", "norm_topk_prob", "mlp_only_layers"};
  if (type == "qwen3_moe") return qwen;
  if (type == "qwen2_moe") {
    qwen.push_back("shared_expert_intermediate_size");
    return qwen;
  }
  if (type == "deepseek_v2" || type == "deepseek_v3")
    return {"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",
            "first_k_dense_replace", "moe_layer_freq", "n_group", "topk_group", "topk_method", "scoring_func",
            "norm_topk_prob", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"};
  return {};
}

}  // namespace

void read_hf_moe_mla(MapReader& r, const std::string& type, Model& m) {
  if (type == "mixtral") {  // configuration_mixtral.py: every layer's MLP is 8 experts of intermediate_size
    m.moe.experts = required(r, "num_local_experts");
    m.moe.top_k = required(r, "num_experts_per_tok");
    m.moe.expert_intermediate = m.intermediate;
    m.moe.norm_topk_prob = true;  // MixtralSparseMoeBlock: routing_weights /= sum of the top-k
  } else if (type == "qwen2_moe" || type == "qwen3_moe") {
    read_qwen_moe(r, m, type == "qwen2_moe");
  } else if (type == "deepseek_v2" || type == "deepseek_v3") {
    read_deepseek(r, m);
  }
  // Whatever else looks like MoE or MLA is not understood: refuse it by name unless it is unset.
  const std::vector<std::string> read = understood_keys(type);
  const YAML::Node root = load_file(r.file());
  for (const std::string& k : r.keys()) {
    if (!looks_moe_mla(k) || costless(k)) continue;
    if (std::find(read.begin(), read.end(), k) != read.end()) continue;
    // Unset (null, 0, false, an empty list) is a dense model saying so.
    const YAML::Node v = root[k];
    if (v.IsNull() || (v.IsSequence() && v.size() == 0)) continue;
    if (v.IsScalar()) {
      const std::string s = v.as<std::string>();
      if (s == "0" || s == "false" || s.empty()) continue;
    }
    r.fail(k, "MoE/MLA field not understood for model_type '" + type +
                  "' (MoE and MLA are read for mixtral, qwen2_moe, qwen3_moe, deepseek_v2, deepseek_v3); "
                  "refusing to price this model as dense");
  }
}

void read_yaml_moe_mla(MapReader& r, Model& m) {
  if (auto experts = r.opt_integer("n_routed_experts")) {
    MoeSpec& e = m.moe;
    e.experts = *experts;
    e.top_k = r.integer("num_experts_per_tok");
    e.expert_intermediate = r.integer("moe_intermediate_size");
    e.shared_experts = r.opt_integer("n_shared_experts", 0).value_or(0);
    e.shared_intermediate = r.opt_integer("shared_expert_intermediate_size").value_or(e.expert_intermediate);
    e.shared_expert_gate = r.opt_boolean("shared_expert_gate").value_or(false);
    e.first_dense = r.opt_integer("first_k_dense_replace", 0).value_or(0);
    if (r.has("moe_layer_freq") && r.has("decoder_sparse_step"))
      r.fail("decoder_sparse_step", "give moe_layer_freq (DeepSeek) or decoder_sparse_step (Qwen), not both");
    if (auto f = r.opt_integer("decoder_sparse_step")) {
      e.layer_freq = *f;
      e.freq_offset = 1;
    } else {
      e.layer_freq = r.opt_integer("moe_layer_freq").value_or(1);
    }
    e.scoring = scoring(r, "scoring_func", r.opt_str("scoring_func").value_or("softmax"));
    e.n_group = r.opt_integer("n_group").value_or(1);
    e.topk_group = r.opt_integer("topk_group").value_or(1);
    e.norm_topk_prob = r.boolean("norm_topk_prob");
    e.score_correction_bias = r.opt_boolean("score_correction_bias").value_or(false);
  }
  m.qk_norm = r.opt_boolean("qk_norm").value_or(false);
  if (auto kv = r.opt_integer("kv_lora_rank")) {
    MlaSpec& a = m.mla;
    a.kv_lora_rank = *kv;
    a.q_lora_rank = r.opt_integer("q_lora_rank", 0).value_or(0);
    a.qk_nope_head_dim = r.integer("qk_nope_head_dim");
    a.qk_rope_head_dim = r.integer("qk_rope_head_dim");
    a.v_head_dim = r.integer("v_head_dim");
    if (m.head_dim != a.qk_head_dim())
      r.fail("head_dim", "must be qk_nope_head_dim + qk_rope_head_dim (" + std::to_string(a.qk_head_dim()) +
                             ") for multi-head latent attention");
    if (m.kv_heads != m.heads) r.fail("num_key_value_heads", "must equal num_attention_heads under MLA");
  }
}

}  // namespace perfmodel::detail
