// Hugging Face config.json loading (catalogue.hpp: load_hf_config), on fixtures in
// tests/data/hf/: missing fields take HF's defaults, GPT-2 spells its fields differently,
// Gemma-2's head_dim is explicit, Qwen2's q/k/v bias is implied, MoE/MLA keys on a dense model type are refused.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "perfmodel/analysis.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/errors.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("a Llama config without head_dim and num_key_value_heads is MHA with hidden/heads") {
  const Model m = load_hf_config(test::data("hf/llama-mha-no-head-dim.json"));
  CHECK(m.architecture == "llama");
  CHECK(m.name == "test/llama-mha");
  CHECK(m.hidden == 4096);
  CHECK(m.intermediate == 11008);
  CHECK(m.layers == 32);
  CHECK(m.heads == 32);
  CHECK(m.kv_heads == 32);   // absent -> multi-head attention (HF default)
  CHECK(m.head_dim == 128);  // absent -> 4096 / 32
  CHECK(m.vocab == 32000);
  CHECK(m.max_positions == 4096);
  CHECK(m.act == Activation::silu);
  CHECK(m.gated_mlp);
  CHECK(m.norm == NormKind::rmsnorm);
  CHECK(m.norms_per_layer == 2);
  CHECK(m.position == PositionKind::rope);
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK_FALSE(m.qkv_bias);
  CHECK(m.sliding_window == 0);
  // These are Llama-2-7B's shapes: reference B.3's 6,738,415,616 and 512 KiB per token.
  CHECK(m.parameters() == 6738415616.0);
  CHECK(kv_bytes_per_token(m, DType::bf16) == 524288.0);
  // The same fixture through the catalogue's path lookup.
  CHECK(test::catalogue().model(test::data("hf/llama-mha-no-head-dim.json")).parameters() == 6738415616.0);
}

TEST_CASE("a GPT-2 config: n_embd / n_head / n_layer / n_positions, n_inner null, gelu_new") {
  const Model m = load_hf_config(test::data("hf/gpt2.json"));
  CHECK(m.architecture == "gpt2");
  CHECK(m.hidden == 768);
  CHECK(m.heads == 12);
  CHECK(m.kv_heads == 12);
  CHECK(m.head_dim == 64);
  CHECK(m.layers == 12);
  CHECK(m.max_positions == 1024);
  CHECK(m.intermediate == 3072);  // n_inner null -> 4 x n_embd
  CHECK(m.vocab == 50257);
  CHECK(m.act == Activation::gelu_tanh);  // gelu_new is the tanh form
  CHECK_FALSE(m.gated_mlp);
  CHECK(m.norm == NormKind::layernorm);
  CHECK(m.position == PositionKind::learned);
  CHECK(m.tie_word_embeddings);  // absent -> PretrainedConfig default true
  CHECK(m.qkv_bias);
  CHECK(m.o_bias);
  CHECK(m.mlp_bias);
  // Hand count (reference B.3: 124,439,808):
  //   per layer: attention 4·768² = 2,359,296; MLP 2·768·3072 = 4,718,592;
  //   biases 2304 + 768 + 3072 + 768 = 6,912; 2 LayerNorms x (w + b) = 3,072 -> 7,087,872
  //   x 12 = 85,054,464; wte 50257·768 = 38,597,376; wpe 1024·768 = 786,432; ln_f 1,536.
  CHECK(m.parameters() == 85054464.0 + 38597376.0 + 786432.0 + 1536.0);
  CHECK(m.parameters() == 124439808.0);
  // The catalogue's gpt2.yaml describes the same model.
  CHECK(test::catalogue().model("gpt2").parameters() == m.parameters());
}

TEST_CASE("a Gemma-2 config: explicit head_dim 256, four norms, alternating sliding window") {
  const Model m = load_hf_config(test::data("hf/gemma2.json"));
  CHECK(m.architecture == "gemma2");
  CHECK(m.head_dim == 256);  // not 3584 / 16 = 224
  CHECK(m.q_dim() == 4096);
  CHECK(m.kv_heads == 8);
  CHECK(m.norms_per_layer == 4);
  CHECK(m.act == Activation::gelu_tanh);
  CHECK(m.tie_word_embeddings);
  CHECK(m.sliding_window == 4096);
  CHECK(m.window_pattern == WindowPattern::alternate);
  CHECK(m.parameters() == 9241705984.0);  // reference B.3
  CHECK(kv_bytes_per_token(m, DType::bf16) == 344064.0);
  CHECK(test::catalogue().model("gemma2-9b").parameters() == m.parameters());
  // Gemma's conventions (the eager lowering's GemmaRMSNorm, embedding scale and final soft-cap), from the
  // config's final_logit_softcapping and, in the catalogue's YAML, its own key.
  CHECK(m.gemma_norm);
  CHECK(m.embed_scale);
  CHECK(m.final_logit_softcap == 30.0);
  CHECK(test::catalogue().model("gemma2-9b").final_logit_softcap == 30.0);
  const Model llama = load_hf_config(test::data("hf/llama-mha-no-head-dim.json"));
  CHECK_FALSE(llama.gemma_norm);
  CHECK(llama.final_logit_softcap == 0);
}

TEST_CASE("final_logit_softcapping: null is none, a negative value is refused with its key") {
  std::ifstream in(test::data("hf/gemma2.json"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto with = [&](const std::string& value) {
    std::string t = text;
    const std::string key = "\"final_logit_softcapping\": 30.0";
    REQUIRE(t.find(key) != std::string::npos);
    t.replace(t.find(key), key.size(), "\"final_logit_softcapping\": " + value);
    const std::string path = (std::filesystem::temp_directory_path() / "gemma2-softcap.json").string();
    std::ofstream(path) << t;
    return path;
  };
  CHECK(load_hf_config(with("null")).final_logit_softcap == 0);
  try {
    (void)load_hf_config(with("-1"));
    FAIL("expected ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.yaml_path() == "final_logit_softcapping");
  }
}

TEST_CASE("a Qwen2 config implies the q/k/v bias; use_sliding_window false disables the window") {
  const Model m = load_hf_config(test::data("hf/qwen2.json"));
  CHECK(m.architecture == "qwen2");
  CHECK(m.qkv_bias);
  CHECK_FALSE(m.o_bias);
  CHECK_FALSE(m.mlp_bias);
  CHECK(m.head_dim == 64);  // 896 / 14
  CHECK(m.kv_heads == 2);
  CHECK(m.tie_word_embeddings);
  CHECK(m.sliding_window == 0);
  // Qwen2.5-0.5B, reference B.3: 494,032,768. By hand: per layer attention
  //   896·896 + 2·896·128 + 896·896 = 1,835,008; MLP 3·896·4864 = 13,074,432; q/k/v bias
  //   896 + 2·128 = 1,152; 2 RMSNorms 1,792 -> 14,912,384; x 24 = 357,897,216;
  //   embeddings (tied) 151936·896 = 136,134,656; final norm 896.
  CHECK(m.parameters() == 357897216.0 + 136134656.0 + 896.0);
  CHECK(m.parameters() == 494032768.0);
  CHECK(test::catalogue().model("qwen2.5-0.5b").parameters() == m.parameters());
}

TEST_CASE("a dense Qwen3 config: per-head q/k RMSNorm weights counted and priced") {
  const Model m = load_hf_config(test::data("hf/qwen3-8b.json"));  // Qwen/Qwen3-8B config.json
  CHECK(m.architecture == "qwen3");
  CHECK(m.qk_norm);  // Qwen3Attention: q_norm and k_norm over head_dim (modeling_qwen3.py)
  CHECK_FALSE(m.qkv_bias);
  CHECK(m.head_dim == 128);
  // By hand: per layer attention 4096·4096 + 2·4096·1024 + 4096·4096 = 41,943,040; MLP
  //   3·4096·12288 = 150,994,944; 2 RMSNorms 8,192; q_norm + k_norm 2·128 = 256
  //   -> 192,946,432; x 36 = 6,946,071,552; embeddings (untied) 2·151936·4096 = 1,244,659,712;
  //   final norm 4,096. Qwen3-8B's model card: 8.2B parameters, 6.95B without the embeddings.
  CHECK(m.parameters() == 6946071552.0 + 1244659712.0 + 4096.0);
  // The q/k norms are ops of the step, one row per head, head_dim wide, in every layer.
  Workload w;
  w.batch = 4;
  const Step step = build_step(m, w);
  int found = 0;
  for (const Op& op : step.ops)
    if (op.name == "q_norm" || op.name == "k_norm") {
      ++found;
      CHECK(op.count == 36);
      CHECK(op.cols == 128);
      CHECK(op.rows == 4 * (op.name == "q_norm" ? 32 : 8));
    }
  CHECK(found == 2);
}

namespace {
void expect_refused(const std::string& file) {
  CAPTURE(file);
  try {
    (void)load_hf_config(test::data(file));
    FAIL("expected the config to be refused");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(test::contains(what, "MoE"));
    CHECK(test::contains(what, "MLA"));
    CHECK(test::contains(what, file));  // names the file
  }
}
}  // namespace

TEST_CASE("MoE and MLA keys on a dense model type are refused, not priced as dense") {
  // An MLA field on an otherwise supported model type (MoE and MLA configs themselves load:
  // test_moe_model.cpp).
  expect_refused("hf/llama-with-mla-fields.json");
  expect_refused("hf/llama-with-moe-keys.json");
  // Through the catalogue's path lookup as well.
  CHECK_THROWS_AS((void)test::catalogue().model(test::data("hf/llama-with-moe-keys.json")), ConfigError);
}

TEST_CASE("an unsupported model type names the supported ones") {
  try {
    (void)load_hf_config(test::data("hf/unknown-type.json"));
    FAIL("expected ConfigError");
  } catch (const ConfigError& e) {
    CHECK(test::contains(e.what(), "falcon"));
    CHECK(test::contains(e.what(), "llama"));
    CHECK(e.yaml_path() == "model_type");
  }
}

TEST_CASE("a missing config file is a ConfigError naming it") {
  CHECK_THROWS_AS((void)load_hf_config(test::data("hf/nope.json")), ConfigError);
}
