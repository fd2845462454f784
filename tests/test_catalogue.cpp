// The catalogues: every card and model loads cleanly, derived peaks agree with the datasheet,
// parameter counts and KV bytes match reference B.3, aliases and lookups behave.
#include <doctest/doctest.h>

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>

#include "perfmodel/analysis.hpp"
#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/errors.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("the catalogue lists the cards and models of hardware/ and models/") {
  const auto cards = test::catalogue().card_keys();
  const auto models = test::catalogue().model_keys();
  // 14 card files and 40 model files (34 dense, 6 MoE/MLA; aliases.yaml is not an entry).
  CHECK(cards.size() == 14);
  CHECK(models.size() == 40);
  for (const char* k : {"a100-80gb-sxm", "a100-40gb-sxm", "h100-sxm", "t4", "rtx-4080", "mi300x"})
    CHECK(std::find(cards.begin(), cards.end(), k) != cards.end());
  for (const char* k : {"llama2-7b", "tinyllama-1.1b", "baby-gpt", "gemma2-9b", "gpt2"})
    CHECK(std::find(models.begin(), models.end(), k) != models.end());
  CHECK(std::find(cards.begin(), cards.end(), "aliases") == cards.end());
  CHECK(std::find(models.begin(), models.end(), "aliases") == models.end());
}

TEST_CASE("every card loads without warnings and its derived peaks are within 2 % of the stated ones") {
  for (const auto& key : test::catalogue().card_keys()) {
    CAPTURE(key);
    const Card c = test::catalogue().card(key);
    CHECK(c.key == key);
    CHECK(c.warnings.empty());
    CHECK(c.sm_count > 0);
    CHECK(c.bandwidth > 0);
    CHECK(c.memory_bytes > 0);
    CHECK(c.l2_bytes > 0);
    CHECK(c.launch_overhead_s > 0);
    CHECK(c.limits.warp_size == (c.vendor == "AMD" ? 64 : 32));  // AMD wavefronts are 64 wide
    bool any_tensor = false;
    for (int i = 0; i < kPrecisionCount; ++i) {
      const auto p = static_cast<Precision>(i);
      CAPTURE(to_string(p));
      if (c.derived_peak[i] > 0) {
        REQUIRE(c.peak[i] > 0);  // a derivable peak is always usable
        CHECK(std::fabs(c.derived_peak[i] / c.peak[i] - 1) <= 0.02);
      }
      any_tensor = any_tensor || (is_tensor(p) && c.peak[i] > 0);
    }
    CHECK(any_tensor);
    // The bandwidth is either stated or bus width / 8 x data rate; a stated one should agree
    // with the derivation (loose: some datasheets round).
    const double derived_bw = derive_bandwidth(c.bus_width_bits, c.data_rate_bps);
    CHECK(derived_bw / c.bandwidth == test::approx(1.0).epsilon(0.05));
  }
}

TEST_CASE("T4 and A100 nominal peaks come from units x clock, bandwidths from bus x rate (seed 004)") {
  const Card t4 = test::catalogue().card("t4");
  const Card a100 = test::catalogue().card("a100");
  const auto fp16 = static_cast<size_t>(Precision::fp16);
  const auto bf16 = static_cast<size_t>(Precision::bf16);
  // T4: 40 SM x 8 TC x 64 FMA x 2 x 1.59 GHz = 65.1e12 FLOP/s ("≈ 65 TFLOP/s").
  CHECK(t4.derived_peak[fp16] == test::approx(40.0 * 8 * 64 * 2 * 1.59e9));
  CHECK(t4.derived_peak[fp16] == test::approx(65e12).epsilon(0.01));
  CHECK_FALSE(t4.supports(Precision::bf16));  // Turing has no bf16 tensor path
  // A100: 108 x 4 x 256 x 2 x 1.41 GHz = 311.9e12 ("≈ 312 TFLOP/s"), for fp16 and bf16.
  CHECK(a100.derived_peak[fp16] == test::approx(108.0 * 4 * 256 * 2 * 1.41e9));
  CHECK(a100.derived_peak[bf16] == test::approx(312e12).epsilon(0.01));
  // Bandwidth = bus / 8 x rate: T4 256 / 8 x 10 Gbps = 320 GB/s; A100 5120 / 8 x 3.186 Gbps =
  // 2039.04 GB/s. Neither file states it, so both are derived.
  CHECK(t4.bandwidth_derived);
  CHECK(t4.bandwidth == test::approx(320e9));
  CHECK(a100.bandwidth_derived);
  CHECK(a100.bandwidth == test::approx(2039e9).epsilon(0.001));
  // A100 ridge 312e12 / 2039.04e9 = 153.0 (seed 004 W1).
  CHECK(a100.ridge(Precision::bf16) == test::approx(153.0).epsilon(0.005));
  // T4 ridge 65e12 / 320e9 = 203 (seed 004).
  CHECK(t4.ridge(Precision::fp16) == test::approx(203.1).epsilon(0.005));
}

TEST_CASE("the derivation helpers") {
  CHECK(derive_tensor_peak(40, 8, 64, 1.59e9) == test::approx(65.1264e12));
  // RTX 4080 FP32: 76 x 128 lanes x 2 x 2.505 GHz = 48.74e12 (seed 000: "≈ 48.7").
  CHECK(derive_lane_peak(76, 128, 2.505e9) == test::approx(48.73728e12));
  CHECK(derive_bandwidth(256, 22.4e9) == test::approx(716.8e9));
}

TEST_CASE("a card without a precision says which ones it has") {
  const Card t4 = test::catalogue().card("t4");
  try {
    (void)t4.peak_flops(Precision::bf16);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(test::contains(what, "t4"));
    CHECK(test::contains(what, "bf16"));
    CHECK(test::contains(what, "fp16"));
  }
}

TEST_CASE("every model loads and its parameter count matches reference B.3") {
  // Reference B.3 (computed with the Llama-like formula, cross-checked with published counts).
  const std::map<std::string, double> expected{
      {"tinyllama-1.1b", 1100048384.0}, {"llama2-7b", 6738415616.0},     {"llama2-13b", 13015864320.0},
      {"llama2-70b", 68976648192.0},    {"llama3-8b", 8030261248.0},     {"llama3-70b", 70553706496.0},
      {"llama3.1-405b", 405853388800.0}, {"mistral-7b", 7241732096.0},   {"qwen2.5-7b", 7615616512.0},
      {"qwen2.5-0.5b", 494032768.0},    {"gpt2", 124439808.0},           {"gemma2-9b", 9241705984.0},
      // baby GPT (seed 000, nanoGPT 6 x 384, vocab 137, block 256, tied, biases, LayerNorm):
      // per layer 4·384² + 2·384·1536 + biases (1152 + 384 + 1536 + 384) + 2 LayerNorms (2·768)
      //   = 589,824 + 1,179,648 + 3,456 + 1,536 = 1,774,464; x 6 = 10,646,784;
      // + wte 137·384 = 52,608 + wpe 256·384 = 98,304 + ln_f 768 = 10,798,464 ("10.8M").
      {"baby-gpt", 10798464.0},
      // Llama-3.2 / Qwen2.5 (HF configs cited in models/*.yaml; tied embeddings counted once). Llama-3.2-1B:
      // per layer q, o 2·2048² + k, v 2·512·2048 + MLP 3·2048·8192 + 2 norms·2048 = 60,821,504; x 16 =
      // 973,144,064; + embedding 128256·2048 = 262,668,288 + final norm 2048 = 1,235,814,400 (HF: 1.24B).
      {"llama3.2-1b", 1235814400.0},    {"llama3.2-3b", 3212749824.0},   {"qwen2.5-3b", 3085938688.0},
      {"qwen2.5-14b", 14770033664.0},
      // Qwen2.5-1.5B: per layer q 1536²+1536, k / v 2·(256·1536+256), o 1536², MLP 3·1536·8960, 2 norms
      // = 46,797,824; x 28 = 1,310,339,072 (card: 1.31B non-embedding) + 151936·1536 + 1536 = 1,543,714,304.
      // SmolLM2-1.7B: 4·2048² + 3·2048·8192 + 2·2048 = 67,112,960; x 24 + 49152·2048 + 2048 = 1,711,376,384.
      // Yi-6B: 2·4096² + 2·512·4096 + 3·4096·11008 + 2·4096 = 173,023,232; x 32 + 2·64000·4096 (untied)
      // + 4096 = 6,061,035,520 (HF: 6.06B).
      {"qwen2.5-1.5b", 1543714304.0},   {"smollm2-1.7b", 1711376384.0},  {"yi-6b", 6061035520.0},
      // Falcon3-7B: 2·3072² + 2·1024·3072 + 3·3072·23040 + 2·3072 = 237,508,608; x 28 + 2·131072·3072 (untied)
      // + 3072 = 7,455,550,464 (HF: 7.46B). CodeLlama-34B: 2·8192² + 2·1024·8192 + 3·8192·22016 + 2·8192
      // = 692,076,544; x 48 + 2·32000·8192 + 8192 = 33,743,970,304 (HF: 33.7B). SmolLM2-360M: 2·960² +
      // 2·320·960 + 3·960·2560 + 2·960 = 9,832,320; x 32 + 49152·960 (tied) + 960 = 361,821,120 (HF: 362M).
      {"falcon3-7b", 7455550464.0},     {"codellama-34b", 33743970304.0}, {"smollm2-360m", 361821120.0},
      // Mistral-NeMo-12B: 4096·5120 + 2·1024·5120 + 5120·4096 + 3·5120·14336 + 2·5120 = 272,640,000; x 40
      // + 2·131072·5120 (untied) + 5120 = 12,247,782,400 (HF: 12.2B). Qwen2.5-32B: 2·5120² + 5120 + 2·(1024·5120
      // + 1024) + 3·5120·27648 + 2·5120 = 487,605,248; x 64 + 2·152064·5120 + 5120 = 32,763,876,352 (HF: 32.8B).
      // Yi-1.5-9B: Yi-6B's layer (173,023,232) x 48 + 2·64000·4096 + 4096 = 8,829,407,232 (HF: 8.83B).
      // SmolLM2-135M: 2·576² + 2·192·576 + 3·576·1536 + 2·576 = 3,540,096; x 30 + 49152·576 (tied) + 576
      // = 134,515,008 (HF: 134,515,008).
      {"mistral-nemo-12b", 12247782400.0}, {"qwen2.5-32b", 32763876352.0}, {"yi1.5-9b", 8829407232.0},
      {"smollm2-135m", 134515008.0},
      // GPT-2 XL: per block 2·3200 (2 LayerNorms) + 1600·4800 + 4800 (c_attn) + 1600² + 1600 (c_proj) + 1600·6400
      // + 6400 (c_fc) + 6400·1600 + 1600 (mlp c_proj) = 30,740,800; x 48 + 50257·1600 (tied) + 1024·1600 (wpe)
      // + 3200 (ln_f) = 1,557,611,200 (HF: 1.56B).
      {"gpt2-xl", 1557611200.0},
      // Mistral-Small-24B: 4096·5120 + 2·1024·5120 + 5120·4096 + 3·5120·32768 + 2·5120 = 555,755,520; x 40 +
      // 2·131072·5120 (untied) + 5120 = 23,572,403,200 (HF: 23.6B). Yi-34B: 2·7168² + 2·1024·7168 + 3·7168·20480
      // + 2·7168 = 557,856,768; x 60 + 2·64000·7168 + 7168 = 34,388,917,248 (HF: 34.4B). Mistral-Large-2:
      // 2·12288² + 2·1024·12288 + 3·12288·28672 + 2·12288 = 1,384,144,896; x 88 + 2·32768·12288 + 12288 =
      // 122,610,069,504 (HF: 123B).
      {"mistral-small-24b", 23572403200.0}, {"yi-34b", 34388917248.0}, {"mistral-large-2", 122610069504.0},
      // Qwen3-8B: 4096² (q) + 2·1024·4096 + 4096² (o) + 3·4096·12288 + 2·4096 (norms) + 2·128 (q/k norms) =
      // 192,946,432; x 36 + 2·151936·4096 (untied) + 4096 = 8,190,735,360 (HF: 8.2B). Qwen3-4B: 2560·4096 + 2·1024·2560
      // + 4096·2560 + 3·2560·9728 + 2·2560 + 2·128 = 100,930,816; x 36 + 151936·2560 (tied) + 2560 = 4,022,468,096
      // (HF: 4.0B). Codestral-22B: 2·6144² + 2·1024·6144 + 3·6144·16384 + 2·6144 = 390,082,560; x 56 + 2·32768·6144
      // + 6144 = 22,247,282,688 (HF: 22.2B).
      {"qwen3-8b", 8190735360.0}, {"qwen3-4b", 4022468096.0}, {"codestral-22b", 22247282688.0},
      // MoE / MLA (issue 11; hand counts in tests/test_moe_model.cpp):
      {"mixtral-8x7b", 46702792704.0},  {"mixtral-8x22b", 140620634112.0}, {"qwen3-30b-a3b", 30532122624.0},
      {"qwen3-235b-a22b", 235093634560.0}, {"deepseek-v2-lite", 15706484224.0}, {"deepseek-v3", 671026419200.0}};
  const auto keys = test::catalogue().model_keys();
  CHECK(keys.size() == expected.size());
  for (const auto& key : keys) {
    CAPTURE(key);
    const Model m = test::catalogue().model(key);
    CHECK(m.key == key);
    REQUIRE(expected.count(key) == 1);
    CHECK(m.parameters() == expected.at(key));  // integers in a double: exact
    CHECK(m.heads % m.kv_heads == 0);
  }
}

TEST_CASE("KV bytes per token match reference B.3") {
  // 2 (K, V) x layers x kv heads x head_dim x 2 bytes.
  auto kv = [](const char* key) { return kv_bytes_per_token(test::catalogue().model(key), DType::bf16); };
  CHECK(kv("tinyllama") == 22528.0);   // 2 x 22 x 4 x 64 x 2
  CHECK(kv("llama2-7b") == 524288.0);  // 2 x 32 x 32 x 128 x 2 = 512 KiB
  CHECK(kv("llama3-8b") == 131072.0);  // 2 x 32 x 8 x 128 x 2 = 128 KiB
  CHECK(kv("llama2-13b") == 819200.0); // 2 x 40 x 40 x 128 x 2 = 800 KiB
  CHECK(kv("llama2-70b") == 327680.0); // 2 x 80 x 8 x 128 x 2
  CHECK(kv("qwen2.5-7b") == 57344.0);  // 2 x 28 x 4 x 128 x 2
  CHECK(kv("gpt2") == 36864.0);        // 2 x 12 x 12 x 64 x 2
  CHECK(kv("gemma2-9b") == 344064.0);  // 2 x 42 x 8 x 256 x 2 = 336 KiB
  // In fp8 the cache halves.
  CHECK(kv_bytes_per_token(test::catalogue().model("llama2-7b"), DType::fp8) == 262144.0);
}

TEST_CASE("aliases resolve to catalogue keys that exist") {
  const auto& cat = test::catalogue();
  CHECK(cat.card_key("a100") == "a100-80gb-sxm");
  CHECK(cat.card_key("A100") == "a100-80gb-sxm");  // case-insensitive
  CHECK(cat.card_key("4080") == "rtx-4080");
  CHECK(cat.card_key("tesla-t4") == "t4");
  CHECK(cat.card_key("rtx-4080") == "rtx-4080");
  CHECK(cat.card_key("no-such-card").empty());
  CHECK(cat.model_key("tinyllama") == "tinyllama-1.1b");
  CHECK(cat.model_key("llama-2-7b") == "llama2-7b");
  CHECK(cat.model_key("no-such-model").empty());
  // Every alias in both alias files points at a real entry (the files are flat "alias: key"
  // mappings; read them line by line).
  for (const std::string dir : {"hardware", "models"}) {
    std::ifstream in(test::root() + "/" + dir + "/aliases.yaml");
    REQUIRE(in.good());
    int aliases = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      const size_t colon = line.find(':');
      REQUIRE(colon != std::string::npos);
      std::string alias = line.substr(0, colon);
      if (alias.size() >= 2 && alias.front() == '"') alias = alias.substr(1, alias.size() - 2);
      CAPTURE(alias);
      if (dir == "hardware") {
        const std::string key = cat.card_key(alias);
        CHECK_FALSE(key.empty());
        CHECK(cat.card(alias).key == key);
      } else {
        const std::string key = cat.model_key(alias);
        CHECK_FALSE(key.empty());
        CHECK(cat.model(alias).key == key);
      }
      ++aliases;
    }
    CHECK(aliases > 5);
  }
}

TEST_CASE("unknown names throw InputError listing close names") {
  try {
    (void)test::catalogue().model("llama2-7bb");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(test::contains(e.what(), "unknown model 'llama2-7bb'"));
    CHECK(test::contains(e.what(), "llama2-7b"));
  }
  try {
    (void)test::catalogue().card("h1OO");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(test::contains(e.what(), "unknown card 'h1OO'"));
  }
  CHECK_THROWS_AS((void)test::catalogue().model("models/does-not-exist.yaml"), InputError);
  CHECK_THROWS_AS(Catalogue("/nonexistent/folder"), InputError);
}

TEST_CASE("a Hugging Face repo id names the catalogue's model of that name, whatever the org") {
  const auto& cat = test::catalogue();
  CHECK(cat.model("Qwen/Qwen3-30B-A3B").key == "qwen3-30b-a3b");
  CHECK(cat.model("meta-llama/Meta-Llama-3-8B-Instruct").key == "llama3-8b");  // an alias of the repo name
  CHECK(cat.model("mistralai/Mixtral-8x7B-v0.1").key == "mixtral-8x7b");
  CHECK(cat.model("deepseek-ai/DeepSeek-V3").key == "deepseek-v3");
  // Not in the catalogue: the error names the id and says where the names are listed.
  try {
    (void)cat.model("some-org/not-a-model");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(test::contains(e.what(), "model file 'some-org/not-a-model' does not exist"));
    CHECK(test::contains(e.what(), "no catalogue model or alias is named 'not-a-model'"));
  }
  // Paths stay paths: a missing YAML or a nested folder is not read as a repo id.
  CHECK_THROWS_AS((void)cat.model("models/qwen3-30b-a3b.yaml.missing/x"), InputError);
  CHECK_THROWS_AS((void)cat.model("./qwen3-30b-a3b"), InputError);
}

TEST_CASE("an unknown card suggests the close alias") {
  try {
    (void)test::catalogue().card("a10O");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(test::contains(e.what(), "did you mean"));
    CHECK(test::contains(e.what(), "a100"));
  }
}

TEST_CASE("cards and models load from a path as well as a key") {
  const Card c = test::catalogue().card(test::root() + "/hardware/rtx-4080.yaml");
  CHECK(c.key == "rtx-4080");
  CHECK(c.sm_count == 76);
  const Card direct = load_card_file(test::root() + "/hardware/rtx-4080.yaml");
  CHECK(direct.bandwidth == c.bandwidth);
  const Model m = test::catalogue().model(test::root() + "/models/llama2-7b.yaml");
  CHECK(m.parameters() == 6738415616.0);
}

TEST_CASE("the RTX 4080 card carries seed 000's numbers") {
  const Card c = test::catalogue().card("rtx-4080");
  CHECK(c.sm_count == 76);
  CHECK(c.peak[static_cast<int>(Precision::fp32)] == test::approx(48.7e12));
  CHECK(c.peak[static_cast<int>(Precision::bf16)] == test::approx(97.5e12));
  CHECK(c.peak[static_cast<int>(Precision::tf32)] == test::approx(48.7e12));  // GeForce: TF32 = FP32
  CHECK(c.peak[static_cast<int>(Precision::fp16_acc16)] == test::approx(194.9e12));
  CHECK(c.bandwidth == test::approx(716.8e9));
  CHECK(c.l2_bytes == 64.0 * 1024 * 1024);
  CHECK(c.limits.shared_memory_per_sm == 100.0 * 1024);
  CHECK(c.limits.max_threads_per_sm == 1536);
  CHECK(c.limits.max_warps_per_sm == 48);
  CHECK(c.limits.registers_per_sm == 65536);
  // Ridge = 97.5e12 / 716.8e9 = 136.02 FLOP/B (seed 000).
  CHECK(c.ridge(Precision::bf16) == test::approx(136.0).epsilon(0.001));
  CHECK(std::lround(c.ridge(Precision::bf16)) == 136);
}

TEST_CASE("default_data_root prefers PERFMODEL_DATA_DIR") {
  const char* old = std::getenv("PERFMODEL_DATA_DIR");
  const std::string saved = old ? old : "";
  setenv("PERFMODEL_DATA_DIR", "/some/where", 1);
  CHECK(default_data_root("perfmodel") == "/some/where");
  if (old) setenv("PERFMODEL_DATA_DIR", saved.c_str(), 1);
  else unsetenv("PERFMODEL_DATA_DIR");
}

TEST_CASE("a calibration carries to another card of its die: the SMs' terms as they are, DRAM's as the same share") {
  const Catalogue& cat = test::catalogue();
  const Card h200 = cat.card("h200"), h100 = cat.card("h100-sxm"), h800 = cat.card("h800"), pcie = cat.card("h100-pcie");
  CHECK(same_die(h200, h100));
  CHECK(same_die(h200, h800));
  CHECK(!same_die(h200, pcie));  // 114 SMs
  CHECK(!same_die(h200, cat.card("a100")));
  const Calibration own = load_calibration(cat.calibration_path("h200"));
  const std::optional<Calibration> c = sibling_calibration(cat, h100);
  REQUIRE(c);
  CHECK(c->card_key == "h100-sxm");
  CHECK(c->source_card == "h200");
  // The quantized kernels' stream efficiencies (no die term beside them): the shortfall of the source's carries as time
  // per byte, so at the target's slower read rate the same kernel reaches a larger share of it (_int_mm 0.684 -> 0.756).
  const double read_ratio = *c->read_bandwidth / *own.read_bandwidth;
  const QuantCalibration &to_q = c->quant, &from_q = own.quant;
  for (const auto& [mine, source] :
       {std::pair{to_q.int8_mma_sync.stream_efficiency, from_q.int8_mma_sync.stream_efficiency},
        {to_q.fp8_tensor.stream_efficiency, from_q.fp8_tensor.stream_efficiency},
        {to_q.fp8_block.stream_efficiency, from_q.fp8_block.stream_efficiency}}) {
    REQUIRE(source > 0);
    REQUIRE(source < 1);
    CHECK(1 / mine == test::approx(1 + (1 / source - 1) * read_ratio));
    CHECK(mine > source);
  }
  CHECK(c->quant.int8_mma_sync.stream_efficiency == test::approx(0.756).epsilon(0.005));
  // fused_moe's L2 tile rate goes with the L2's size (its slices sit with the memory partitions): 60 -> 50 MB.
  const auto fused_of = [](const Calibration& cal) -> const ProfileCalibration& {
    for (const ProfileCalibration& p : cal.profiles)
      if (p.name == "fused") return p;
    FAIL("no fused profile");
    return cal.profiles.front();
  };
  REQUIRE(fused_of(own).fused_moe.l2_tile_rate);
  CHECK(*fused_of(*c).fused_moe.l2_tile_rate == test::approx(*fused_of(own).fused_moe.l2_tile_rate * 50.0 / 60.0));
  CHECK(h100.l2_bytes / h200.l2_bytes == test::approx(50.0 / 60.0));
  // Its error bands: the H100's own where the file holds them (sibling_error_bands: h100-sxm, measured on H100 leases
  // with this file carried), set by set; the rest are the H200's, and where they are shown they say so.
  REQUIRE(!c->error_bands.empty());
  REQUIRE(own.sibling_error_bands.count("h100-sxm"));
  CHECK(c->sibling_error_bands.empty());  // spent: the carried file prices one card
  const auto& measured = own.sibling_error_bands.at("h100-sxm");
  for (const auto& [profile, bands] : c->error_bands) {
    CAPTURE(profile);
    CHECK(bands.sets.size() == own.error_bands.at(profile).sets.size());
    const auto mine = measured.find(profile);
    if (mine == measured.end()) {  // backend: no H100 measurement
      CHECK(test::contains(bands.source, "measured on h200, none on h100-sxm"));
      continue;
    }
    CHECK(test::contains(bands.source, "measured on h100-sxm, calibration carried from h200"));
    for (const auto& [set, q] : bands.sets) {
      CAPTURE(set);
      if (mine->second.sets.count(set)) {
        CHECK(q.p10 == mine->second.sets.at(set).p10);
        CHECK(q.p90 == mine->second.sets.at(set).p90);
      } else {  // the eager step (transformers walls): the H200 leases'
        CHECK(q.p10 == own.error_bands.at(profile).sets.at(set).p10);
        CHECK(test::contains(bands.source, set + ": measured on h200, none on h100-sxm"));
      }
    }
  }
  CHECK(measured.count("backend") == 0);
  CHECK(measured.at("fused").sets.count("step"));
  CHECK(!measured.at("eager").sets.count("step"));
  // The H800 (same die, no measurement of its own) keeps the H200's bands whole.
  const Calibration on_h800 = *sibling_calibration(cat, h800);
  for (const auto& [profile, bands] : on_h800.error_bands) {
    CAPTURE(profile);
    CHECK(bands.sets.at("gemm").p90 == own.error_bands.at(profile).sets.at("gemm").p90);
    CHECK(test::contains(bands.source, "measured on h200, none on h800"));
  }
  // The copy is the card's: the default share of its datasheet rate, writes unmeasured; a read
  // stream, and every kernel stream, keeps the source's share of the datasheet rate.
  CHECK(c->dram_bandwidth == test::approx(3350e9 * DefaultEfficiency::memory));
  CHECK(*c->read_bandwidth == test::approx(*own.read_bandwidth * 3350.0 / 4800.0));
  CHECK(!c->write_bandwidth);
  const double dram = 3350.0 / 4800.0;
  CHECK(*c->l2_cyclic_capacity == test::approx(*own.l2_cyclic_capacity * 50.0 / 60.0));
  const auto bf16 = static_cast<size_t>(Precision::bf16);
  CHECK(*c->gemm_peak[bf16] == test::approx(*own.gemm_peak[bf16]));
  CHECK(*c->host_launch_s == test::approx(*own.host_launch_s));
  for (size_t i = 0; i < c->profiles.size(); ++i) {
    CHECK(c->profiles[i].attention_peak == own.profiles[i].attention_peak);
    CHECK(c->profiles[i].cudnn_decode.stream_bandwidth == test::approx(own.profiles[i].cudnn_decode.stream_bandwidth * dram));
  }
  // NCCL's figures belong to the NVLink: the H100 SXM's is the H200's (900 GB/s), the H800's is not (400).
  CHECK(c->collectives.gpus == own.collectives.gpus);
  CHECK(sibling_calibration(cat, h800)->collectives.gpus == 0);
  CHECK(!sibling_calibration(cat, pcie));
  CHECK_THROWS_AS(transfer_calibration(own, h200, pcie), InputError);
  // Anchor (gpus-and-models.md Part C row 11, never fitted): torch bf16 matmul 8192^3 on an H100 SXM,
  // 797.5 TFLOP/s. The datasheet roofs price it at the 989 TFLOP/s peak.
  const Op mm = ops::gemm("mm", 8192, 8192, 8192, DType::bf16, DType::bf16, Precision::bf16);
  const double carried = mm.flops / price(mm, make_roofs(h100, &*c, Impl::fused), Impl::fused).time_s;
  const double datasheet = mm.flops / price(mm, make_roofs(h100, nullptr, Impl::fused), Impl::fused).time_s;
  CAPTURE(carried);
  CAPTURE(datasheet);
  CHECK(std::abs(carried / 797.5e12 - 1) < 0.05);
  CHECK(std::abs(carried / 797.5e12 - 1) < std::abs(datasheet / 797.5e12 - 1));
}
