// MoE and MLA steps (issue 11): the expected experts touched, the grouped GEMM's and the absorbed
// MLA decode's FLOPs and bytes by hand, the fused and eager lowerings, the analyses with the
// weight bytes a decode step really reads, and the Predictor's fast path on these families.
#include <doctest/doctest.h>

#include <cmath>

#include "perfmodel/analysis.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/predictor.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {
const Op* find_op(const Step& s, const std::string& name) {
  for (const Op& op : s.ops)
    if (op.name == name) return &op;
  return nullptr;
}
// FLOPs of the step's matrix products (GEMMs, grouped GEMMs), per token.
double matmul_flops(const Step& s) {
  double f = 0;
  for (const Op& op : s.ops)
    if (op.kind == OpKind::gemm) f += op.flops * static_cast<double>(op.count);
  return f;
}
}  // namespace

TEST_CASE("expected experts touched: E (1 - (1 - k/E)^T), fewer with a skewed router") {
  CHECK(ops::experts_touched(8, 2, 1) == test::approx(2.0));        // one token: exactly its k
  CHECK(ops::experts_touched(8, 2, 2) == test::approx(8 * (1 - 0.75 * 0.75)));  // 3.5
  CHECK(ops::experts_touched(256, 8, 64) == test::approx(256 * (1 - std::pow(1 - 8.0 / 256, 64))));  // 224.7
  CHECK(ops::experts_touched(8, 2, 4096) == test::approx(8.0));
  // Skew 0 is the uniform formula; a skewed router concentrates tokens on fewer experts.
  CHECK(ops::experts_touched(128, 8, 16, 0.0) == test::approx(128 * (1 - std::pow(1 - 8.0 / 128, 16))));
  CHECK(ops::experts_touched(128, 8, 16, 1.0) < ops::experts_touched(128, 8, 16, 0.0));
  CHECK(ops::experts_touched(128, 8, 1, 1.0) <= 8.0 + 1e-9);  // still at most k for one token
}

TEST_CASE("expected row blocks: each expert's rows padded to the block, under the same routing") {
  // Rows at most a block: one block an expert touched.
  CHECK(ops::expected_row_blocks(8, 2, 1, 64) == test::approx(2.0));
  CHECK(ops::expected_row_blocks(8, 2, 2, 64) == test::approx(ops::experts_touched(8, 2, 2)));
  CHECK(ops::expected_row_blocks(2, 2, 100, 64) == test::approx(4.0));  // every expert takes every token: ceil(100/64)
  // Many rows: T k / block plus about half a block an expert (the last one's fill).
  const double mixtral = ops::expected_row_blocks(8, 2, 2048, 64);
  CHECK(mixtral > 64.0);
  CHECK(mixtral < 72.0);
  CHECK(mixtral == test::approx(64.0 + 8 * 63.0 / 128).epsilon(0.01));
  // The normal branch (sigma past 200) against the same limit.
  CHECK(ops::expected_row_blocks(8, 2, 10'000'000, 64) == test::approx(2.0 * 10'000'000 / 64 + 8 * 63.0 / 128).epsilon(1e-5));
  // Qwen3-30B's 2048-token prefill: h200-moe-fused2's probe padded 20480 rows (320 blocks); T k / 64 alone is 256.
  CHECK(ops::expected_row_blocks(128, 8, 2048, 64) == test::approx(320.0).epsilon(0.02));
  // A skewed router concentrates the rows: fewer blocks than uniform at few tokens.
  CHECK(ops::expected_row_blocks(128, 8, 16, 16, 1.0) < ops::expected_row_blocks(128, 8, 16, 16, 0.0));
  CHECK(ops::expected_row_blocks(0, 8, 16, 16) == 0.0);
}

TEST_CASE("grouped GEMM: FLOPs of the routed rows, weights of the touched experts, tiles per expert") {
  // Mixtral's w13 at 4 tokens: 8 routed rows, 2 x 14336 outputs, K 4096.
  const Op g = ops::grouped_gemm("w13", 4, 2, 8, 28672, 4096, DType::bf16, DType::bf16, Precision::bf16);
  const double touched = 8 * (1 - std::pow(0.75, 4));  // 5.46875
  CHECK(g.kernel == KernelId::grouped_gemm);
  CHECK(g.flops == test::approx(2.0 * 8 * 28672 * 4096));
  CHECK(g.bytes_read == test::approx(8.0 * 4096 * 2 + touched * 28672 * 4096 * 2));
  CHECK(g.bytes_written == test::approx(8.0 * 28672 * 2));
  CHECK(g.moe.experts_touched == test::approx(touched));
  CHECK(g.gemm.batch == 6);  // ceil(5.47) experts
  CHECK(g.gemm.m == 2);      // ceil(8 / 6) rows each
  // Priced through the GEMM cost family: positive, finite, and more tokens cost more.
  const Roofs roofs = make_roofs(test::catalogue().card("h200"), nullptr);
  const Op big = ops::grouped_gemm("w13", 4096, 2, 8, 28672, 4096, DType::bf16, DType::bf16, Precision::bf16);
  const double t4 = price(g, roofs, Impl::fused).time_s, t4096 = price(big, roofs, Impl::fused).time_s;
  CHECK(std::isfinite(t4));
  CHECK(t4 > 0);
  CHECK(t4096 > t4);
}

TEST_CASE("absorbed MLA decode: the latent read once for all heads, scores over 576 dims, values over 512") {
  const Op a = ops::attention_mla_decode("mla", 2, 128, 1000, 512, 64, DType::bf16, DType::bf16);
  CHECK(a.kernel == KernelId::attention_mla_decode);
  CHECK(a.flops == test::approx(2.0 * 2 * 128 * 1000 * 576 + 2.0 * 2 * 128 * 1000 * 512));
  CHECK(a.bytes_read == test::approx(2.0 * 1000 * 576 * 2 + 2.0 * 128 * 576 * 2));
  CHECK(a.bytes_written == test::approx(2.0 * 128 * 512 * 2));
  const Roofs roofs = make_roofs(test::catalogue().card("h200"), nullptr);
  const OpCost c = price(a, roofs, Impl::fused);
  CHECK(std::isfinite(c.time_s));
  // At least the cache stream at the card's bandwidth.
  CHECK(c.time_s >= 2.0 * 1000 * 576 * 2 / roofs.card.bandwidth);
}

TEST_CASE("absorbed MLA decode on the calibrated fused profile: FlashMLA's scheduler splits at every batch") {
  // FlashAttention-2's split rule stops splitting at 0.8 x SMs of CTAs; FlashMLA spreads the key
  // blocks over the SMs whatever the batch, so a step's time grows with the batch and no faster
  // than the work (DeepSeek-V3's 128 heads: compute-bound, linear in the batch).
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::catalogue().calibration_path("h200"));
  const Roofs r = make_roofs(card, &cal, Impl::fused);
  auto t = [&](int64_t b) {
    return price(ops::attention_mla_decode("mla", b, 128, 32768, 512, 64, DType::bf16, DType::bf16), r, Impl::fused).time_s;
  };
  double last = 0;
  for (int64_t b : {16, 64, 96, 112, 128, 192, 256}) {
    CAPTURE(b);
    CHECK(t(b) > last);
    last = t(b);
  }
  CHECK(t(128) < 1.5 * t(96));  // was 4.7x
  CHECK(t(256) == test::approx(2 * t(128)).epsilon(0.05));
}

TEST_CASE("Mixtral decode, fused: router, grouped experts; the products are 2 x active matmul weights") {
  const Model m = test::catalogue().model("mixtral-8x7b");
  Workload w;
  w.batch = 1;
  w.ctx = 1024;
  const Step s = build_step(m, w);
  REQUIRE(find_op(s, "router.gate"));
  CHECK(find_op(s, "router.gate")->count == 32);
  REQUIRE(find_op(s, "experts.w13"));
  CHECK(find_op(s, "experts.w13")->kernel == KernelId::grouped_gemm);
  REQUIRE(find_op(s, "router.topk"));
  CHECK(find_op(s, "router.topk")->kernel == KernelId::moe_topk);
  REQUIRE(find_op(s, "experts.sum"));
  CHECK(find_op(s, "experts.sum")->kernel == KernelId::moe_unpermute);
  CHECK(find_op(s, "gate_up_proj") == nullptr);  // no dense MLP left
  // One token: every matmul weight it uses once, 2 FLOPs each: active parameters less the input
  // embedding table (gathered) and the 65 RMSNorm weight vectors.
  const double d = 4096;
  CHECK(matmul_flops(s) == test::approx(2.0 * (m.active_parameters() - 32000 * d - 65 * d)));
  // The experts' weights read at batch 1: the two experts of each layer.
  const Op& w13 = *find_op(s, "experts.w13");
  CHECK(w13.bytes_read == test::approx(2 * 4096.0 * 2 + 2.0 * 28672 * 4096 * 2));
}

TEST_CASE("DeepSeek-V3 decode, fused: absorbed MLA; the products are 2 x active matmul weights") {
  const Model m = test::catalogue().model("deepseek-v3");
  Workload w;
  w.batch = 4;
  w.ctx = 2048;
  const Step s = build_step(m, w);
  REQUIRE(find_op(s, "attention"));
  CHECK(find_op(s, "attention")->kernel == KernelId::attention_mla_decode);
  CHECK(find_op(s, "attention")->count == 61);
  REQUIRE(find_op(s, "q_absorb"));
  REQUIRE(find_op(s, "v_up"));
  CHECK(find_op(s, "kv_b_proj") == nullptr);  // absorbed, not expanded
  REQUIRE(find_op(s, "gate_up_proj"));
  CHECK(find_op(s, "gate_up_proj")->count == 3);  // the dense leading layers
  CHECK(find_op(s, "shared_gate_up_proj")->count == 58);
  // The cache write: 576 values per token and layer.
  CHECK(find_op(s, "kv_write")->bytes_written == test::approx(4.0 * 576 * 2));
  // Absorbed W_UK (128 x 128 x 512) and W_UV (128 x 512 x 128) are kv_b_proj's weights, so the
  // per-token products are the active parameters less the input table, the norms (2 per layer,
  // the final one, the latent norms 1536 + 512 per layer) and the correction biases (58 x 256);
  // the routed experts at batch 4 do 4 x 8 expert passes whatever they touch.
  const double d = 7168;
  const double not_multiplied = 129280 * d + 123 * d + 61.0 * (1536 + 512) + 58.0 * 256;
  CHECK(matmul_flops(s) == test::approx(2.0 * 4 * (m.active_parameters() - not_multiplied)));
}

TEST_CASE("DeepSeek prefill, fused: kv_b_proj expands the latent, flash attention at q/k 192, v 128") {
  const Model m = test::catalogue().model("deepseek-v2-lite");
  Workload w;
  w.phase = Phase::prefill;
  w.batch = 1;
  w.ctx = 512;
  const Step s = build_step(m, w);
  REQUIRE(find_op(s, "kv_b_proj"));
  CHECK(find_op(s, "kv_b_proj")->gemm.n == 16 * 256);
  const Op& a = *find_op(s, "attention");
  CHECK(a.kernel == KernelId::attention_prefill_fused);
  // 2 pairs x (192 + 128) per head: the FLOPs of heads of 160.
  CHECK(a.flops == test::approx(2.0 * 16 * (192 + 128) * ops::attention_pairs(512, 512, true)));
  // Q and K of 192, V and O of 128 per head and token.
  CHECK(a.bytes() == test::approx(512.0 * 16 * (192 + 192 + 128 + 128) * 2));
  CHECK(find_op(s, "q_kv_a_proj"));  // no q_lora_rank: q_proj beside kv_a_proj_with_mqa
}

TEST_CASE("eager (HF transformers): latent MLA cache, expanded attention, grouped_mm experts") {
  const Model m = test::catalogue().model("deepseek-v2-lite");
  Workload w;
  w.impl = Impl::eager;
  w.batch = 2;
  w.ctx = 1024;
  const Step s = build_step(m, w);
  REQUIRE(find_op(s, "kv_b_proj"));
  const Op& a = *find_op(s, "attention.sdpa");
  // transformers' SDPA call runs cuDNN's decode kernel (h200-moe-sync: ..._16x128x256 for this model)
  CHECK(a.kernel == KernelId::attention_decode_cudnn);
  CHECK(a.attention.head_dim == 160);
  CHECK(find_op(s, "repeat_kv") == nullptr);  // keys and values per head already
  REQUIRE(find_op(s, "experts._grouped_mm_gate_up"));
  CHECK(find_op(s, "experts._grouped_mm_gate_up")->kernel == KernelId::grouped_gemm);
  CHECK(find_op(s, "experts.sort_gather")->bytes_written > 2.0 * 6 * 2048 * 2);  // the rows gathered
  const Evaluation e = evaluate(m, w, test::catalogue().card("h200"), nullptr);
  CHECK(std::isfinite(e.cost.time_s));
  // transformers 5.17 caches the latent, as a serving engine does: 27 layers x 576 x 2 bytes per
  // token (31,104 B), not the 27 x 16 x (192 + 128) x 2 = 276,480 B of expanded keys and values.
  CHECK(e.analysis.kv_bytes_per_token == 31104.0);
  CHECK(e.analysis.memory.kv == test::approx(2.0 * 1024 * 31104));
  // Eager launches far more kernels than fused.
  Workload f = w;
  f.impl = Impl::fused;
  CHECK(s.launches() > 2 * build_step(m, f).launches());
}

TEST_CASE("MoE analyses: AI(b) with the experts a batch touches, AI_max and b* on active parameters") {
  const Model m = test::catalogue().model("mixtral-8x7b");
  const double kv = 131072, n = 2048, bpw = 2;
  // Batch 1 reads exactly the active weights: AI(1) = 2 N_a / (2 N_a + n kv).
  CHECK(decode_weight_parameters(m, 1) == test::approx(m.active_parameters()));
  CHECK(moe_decode_ai(m, bpw, 1, n, kv) ==
        test::approx(2 * m.active_parameters() / (2 * m.active_parameters() + n * kv)));
  // Batch 2: 3.5 experts of 8 per layer.
  CHECK(decode_weight_parameters(m, 2) ==
        test::approx(m.parameters() - 32 * (8 - 3.5) * 3.0 * 4096 * 14336));
  // Large batches read every expert.
  CHECK(decode_weight_parameters(m, 4096) == test::approx(m.parameters()));
  const Card h200 = test::catalogue().card("h200");
  const double ridge = h200.peak_flops(Precision::bf16) / h200.bandwidth;
  const auto b = moe_decode_b_star(m, ridge, bpw, 256, kv);
  REQUIRE(b);
  CHECK(moe_decode_ai(m, bpw, *b, 256, kv) >= ridge);
  CHECK(moe_decode_ai(m, bpw, *b - 1, 256, kv) < ridge);
  // At n = 2048 AI_max = 2 N_a / (n kv) = 96 < ridge: never.
  CHECK(decode_ai_max(m.active_parameters(), 2048, kv) < ridge);
  CHECK_FALSE(moe_decode_b_star(m, ridge, bpw, 2048, kv));

  Workload w;
  w.batch = 8;
  w.ctx = 2048;
  const Evaluation e = evaluate(m, w, h200, nullptr);
  CHECK(e.analysis.moe);
  CHECK(e.analysis.active_parameters == m.active_parameters());
  CHECK(e.analysis.parameters == 46702792704.0);
  // Resident: every expert, 93.4 GB; read by this step: the touched experts only.
  CHECK(e.analysis.memory.weights == test::approx(46702792704.0 * 2));
  CHECK(e.analysis.decode_weight_bytes == test::approx(decode_weight_parameters(m, 8) * 2));
  CHECK(e.analysis.decode_weight_bytes < e.analysis.weight_bytes);
  CHECK(e.analysis.ai == test::approx(moe_decode_ai(m, 2, 8, 2048, kv)));
  CHECK(e.status.fits);
}

TEST_CASE("DeepSeek-V3 on one H200 does not fit (671 B parameters), and says so") {
  const Model m = test::catalogue().model("deepseek-v3");
  Workload w;
  w.weight_dtype = DType::fp8;
  const Evaluation e = evaluate(m, w, test::catalogue().card("h200"), nullptr);
  CHECK_FALSE(e.status.fits);
  CHECK(test::contains(e.status.reason, "the weights alone need"));
  CHECK(e.analysis.memory.weights == test::approx(671026419200.0));
  CHECK(e.analysis.memory.max_batch == 0);
}

TEST_CASE("the Predictor's fast path equals evaluate on MoE and MLA models") {
  for (const char* name : {"mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v2-lite"}) {
    const Model m = test::catalogue().model(name);
    const Card card = test::catalogue().card("h200");
    Predictor p(m, card, nullptr);
    const Roofs roofs = make_roofs(card, nullptr);
    for (int64_t b : {1, 16})
      for (int64_t ctx : {512, 4096}) {
        Workload w;
        w.batch = b;
        w.ctx = ctx;
        CAPTURE(name);
        CAPTURE(b);
        CAPTURE(ctx);
        const StepCost full = price_step(build_step(m, w), roofs, w.impl);
        const Prediction fast = p.predict(w);
        CHECK(fast.time_s == test::approx(full.time_s).epsilon(1e-12));
        CHECK(fast.ai == test::approx(evaluate(m, w, roofs).analysis.ai));
      }
  }
}
