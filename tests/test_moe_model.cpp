// Mixture-of-experts and MLA model descriptions (issue 11): config.json and catalogue fields,
// exact parameter counts computed by hand, KV bytes, and the refusal of MoE/MLA-looking keys
// that are not understood (never priced as dense).
#include <doctest/doctest.h>

#include "perfmodel/analysis.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/errors.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("Mixtral-8x7B from its config.json: 46,702,792,704 parameters, 12,879,925,248 active") {
  const Model m = load_hf_config(test::data("hf/mixtral.json"));
  CHECK(m.architecture == "mixtral");
  CHECK(m.moe.experts == 8);
  CHECK(m.moe.top_k == 2);
  CHECK(m.moe.expert_intermediate == 14336);
  CHECK(m.moe.shared_experts == 0);
  CHECK(m.moe_layers() == 32);
  CHECK_FALSE(m.mla.enabled());
  // Per layer: attention 4096·4096·2 + 2·4096·1024 = 41,943,040; experts 8·3·4096·14336 =
  // 1,409,286,144; router 8·4096 = 32,768; two RMSNorms 8,192: 1,451,270,144. x 32 =
  // 46,440,644,608; + embeddings and lm_head 2·32000·4096 = 262,144,000 + final norm 4,096.
  CHECK(m.parameters() == 46702792704.0);
  // Active: 6 of the 8 experts unused per layer: - 32·6·176,160,768 = 33,822,867,456.
  CHECK(m.active_parameters() == 12879925248.0);
  CHECK(kv_bytes_per_token(m, DType::bf16) == 131072.0);  // 2·32·8·128·2, as Mistral-7B
  CHECK(test::catalogue().model("mixtral-8x7b").parameters() == m.parameters());
  CHECK(test::catalogue().model("mixtral-8x7b").active_parameters() == m.active_parameters());
}

TEST_CASE("DeepSeek-V3 from its config.json: MLA, 256 experts + 1 shared, 3 dense layers") {
  const Model m = load_hf_config(test::data("hf/deepseek-v3.json"));
  CHECK(m.architecture == "deepseek_v3");
  CHECK(m.mla.q_lora_rank == 1536);
  CHECK(m.mla.kv_lora_rank == 512);
  CHECK(m.mla.cache_width() == 576);
  CHECK(m.head_dim == 192);  // 128 nope + 64 rope
  CHECK(m.kv_heads == 128);
  CHECK(m.moe.scoring == RouterScoring::sigmoid);
  CHECK(m.moe.n_group == 8);
  CHECK(m.moe.topk_group == 4);
  CHECK(m.moe.score_correction_bias);
  CHECK(m.moe.norm_topk_prob);
  CHECK(m.moe_layers() == 58);
  CHECK(m.dense_layers() == 3);
  // MLA per layer: q_a 7168·1536 = 11,010,048 + its norm 1,536 + q_b 1536·128·192 =
  // 37,748,736; kv_a 7168·576 = 4,128,768 + its norm 512; kv_b 512·128·256 = 16,777,216;
  // o 128·128·7168 = 117,440,512: 187,107,328. + 2 norms 14,336 -> x 61 = 11,414,421,504.
  // Dense MLP 3·7168·18432 = 396,361,728 x 3 = 1,189,085,184.
  // MoE layer: 257 experts x 3·7168·2048 (44,040,192) = 11,318,329,344 + router 256·7168 =
  // 1,835,008 + correction bias 256 = 11,320,164,608; x 58 = 656,569,547,264.
  // Embeddings 2·129280·7168 = 1,853,358,080; final norm 7,168.
  // Sum: 671,026,419,200 (reference B.3, "671B"), the MTP layer not included.
  CHECK(m.parameters() == 671026419200.0);
  // Active: 9 experts (8 routed + 1 shared) instead of 257: - 58·248·44,040,192.
  CHECK(m.active_parameters() == 671026419200.0 - 58.0 * 248 * 44040192);
  CHECK(m.active_parameters() == 37552297472.0);  // reference B.3, "37B activated"
  // The MTP module (num_nextn_predict_layers 1; HF's modeling has no such layer): one more MoE
  // layer 11,507,286,272 (DeepSeek-V3 README_WEIGHTS.md: "11.5B unique parameters") + eh_proj
  // 2·7168² + 3 norms + the embedding and head copies the checkpoint stores in layer 61
  // (2·129280·7168, README_WEIGHTS' "shared 0.9B Embedding and 0.9B output Head") =
  // 13,463,426,304; the HF checkpoint's "685B" (README: 671B main + 14B MTP) = 671.03 + 13.46 =
  // 684.49 B plus the FP8 block-scale tensors.
  const double mtp = (187107328.0 + 14336 + 11320164608.0) + 2.0 * 7168 * 7168 + 3 * 7168 + 1853358080.0;
  CHECK(mtp == 13463426304.0);
  CHECK((m.parameters() + mtp) / 1e9 == test::approx(684.49).epsilon(1e-4));
  // MLA cache: 61 x (512 + 64) x 2 bytes = 70,272 B/token (reference B.3); a sequence of 4096
  // tokens holds 4096 x that.
  CHECK(kv_bytes_per_token(m, DType::bf16) == 70272.0);
  CHECK(kv_bytes_per_sequence(m, DType::fp8, 4096) == 4096.0 * 61 * 576);
  CHECK(test::catalogue().model("deepseek-v3").parameters() == m.parameters());
  CHECK(test::catalogue().model("deepseek-v3").active_parameters() == m.active_parameters());
}

TEST_CASE("DeepSeek-V2-Lite: no q_lora_rank (q_proj from the hidden state), 2 shared experts") {
  const Model m = load_hf_config(test::data("hf/deepseek-v2-lite.json"));
  CHECK(m.mla.q_lora_rank == 0);
  CHECK(m.moe.shared_experts == 2);
  CHECK(m.moe.scoring == RouterScoring::softmax);
  CHECK_FALSE(m.moe.score_correction_bias);
  CHECK(m.moe_layers() == 26);
  // MLA per layer: q_proj 2048·16·192 = 6,291,456; kv_a 2048·576 = 1,179,648 + norm 512;
  // kv_b 512·16·256 = 2,097,152; o 16·128·2048 = 4,194,304: 13,763,072 + 2 norms 4,096 =
  // 13,767,168; x 27 = 371,713,536. Dense layer 3·2048·10944 = 67,239,936.
  // MoE layer: 66 experts x 3·2048·1408 (8,650,752) = 570,949,632 + router 64·2048 = 131,072:
  // 571,080,704; x 26 = 14,848,098,304. Embeddings 2·102400·2048 = 419,430,400; final 2,048.
  CHECK(m.parameters() == 15706484224.0);  // "15.7B" (DeepSeek-V2 paper, appendix B)
  CHECK(m.active_parameters() == 15706484224.0 - 26.0 * 58 * 8650752);
  CHECK(m.active_parameters() == 2661150208.0);
  CHECK(test::catalogue().model("deepseek-v2-lite").parameters() == m.parameters());
}

TEST_CASE("Qwen3-30B-A3B: 128 experts top-8, per-head q/k norms; Qwen2-MoE's gated shared expert") {
  const Model q3 = load_hf_config(test::data("hf/qwen3-moe.json"));
  CHECK(q3.qk_norm);
  CHECK_FALSE(q3.qkv_bias);
  CHECK(q3.moe.experts == 128);
  CHECK(q3.moe_layers() == 48);
  // Per layer: q 2048·4096 + k, v 2·2048·512 + o 4096·2048 = 18,874,368; q/k norms 256;
  // norms 4,096; experts 128·3·2048·768 = 603,979,776; router 128·2048 = 262,144:
  // 623,120,640; x 48 = 29,909,790,720; + 2·151936·2048 = 622,329,856 + 2,048.
  CHECK(q3.parameters() == 30532122624.0);  // "30.5B"
  CHECK(q3.active_parameters() == 30532122624.0 - 48.0 * 120 * 3 * 2048 * 768);  // "3.3B"
  CHECK(test::catalogue().model("qwen3-30b-a3b").parameters() == q3.parameters());

  const Model q2 = load_hf_config(test::data("hf/qwen2-moe.json"));  // Qwen1.5-MoE-A2.7B's shapes
  CHECK(q2.qkv_bias);  // implied by the model type, as Qwen2
  CHECK(q2.moe.shared_experts == 1);
  CHECK(q2.moe.shared_intermediate == 5632);
  CHECK(q2.moe.shared_expert_gate);
  // Per layer: attention 4·2048² = 16,777,216 + q/k/v bias 6,144; norms 4,096; 60 experts
  // 3·2048·1408 each = 519,045,120; shared 3·2048·5632 = 34,603,008; router 60·2048 =
  // 122,880; shared gate 2,048: 570,560,512; x 24 = 13,693,452,288; + 2·151936·2048 + 2,048.
  CHECK(q2.parameters() == 14315784192.0);  // "14.3B" (Qwen1.5-MoE-A2.7B)
  CHECK(q2.active_parameters() == 14315784192.0 - 24.0 * 56 * 3 * 2048 * 1408);  // "2.7B"
}

TEST_CASE("MoE layer placement: first_k_dense_replace, moe_layer_freq, decoder_sparse_step") {
  Model m = test::catalogue().model("deepseek-v2-lite");
  m.moe.first_dense = 1;
  m.moe.layer_freq = 2;  // DeepSeek: layer_idx % 2 == 0 from layer 1 on: 2, 4, ..., 26
  CHECK(m.moe_layers() == 13);
  Model q = test::catalogue().model("qwen3-30b-a3b");
  q.moe.layer_freq = 2;  // Qwen: (layer_idx + 1) % 2 == 0: 1, 3, ..., 47
  CHECK(q.moe_layers() == 24);
  CHECK(q.dense_layers() == 24);
  // The dense layers then count intermediate_size MLPs: 24 x 3·2048·6144 in place of MoE blocks.
  const Model all = test::catalogue().model("qwen3-30b-a3b");
  CHECK(q.parameters() == all.parameters() - 24.0 * (128.0 * 3 * 2048 * 768 + 128.0 * 2048) + 24.0 * 3 * 2048 * 6144);
}

namespace {
void expect_refused_naming(const std::string& file, const std::string& key) {
  CAPTURE(file);
  try {
    (void)load_hf_config(test::data(file));
    FAIL("expected the config to be refused");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(test::contains(what, key));
    CHECK(test::contains(what, file));
  }
}
}  // namespace

TEST_CASE("MoE/MLA-looking keys that are not understood are refused by name, never priced as dense") {
  expect_refused_naming("hf/llama-with-moe-keys.json", "moe_num_experts");
  expect_refused_naming("hf/llama-with-mla-fields.json", "kv_lora_rank");
  expect_refused_naming("hf/mixtral-with-shared-experts.json", "n_shared_experts");
  expect_refused_naming("hf/qwen3-moe-dense-islands.json", "mlp_only_layers");
}

TEST_CASE("MoE/MLA YAML fields are checked: top-k within the experts, head_dim = nope + rope") {
  Model m = test::catalogue().model("mixtral-8x7b");
  m.moe.top_k = 9;
  CHECK_THROWS_AS(validate(m), InputError);
  m = test::catalogue().model("deepseek-v3");
  m.moe.topk_group = 1;  // 8 experts from one group of 32: fine; 33 would not be
  CHECK_NOTHROW(validate(m));
  m.moe.top_k = 33;
  CHECK_THROWS_AS(validate(m), InputError);
}
