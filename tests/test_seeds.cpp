// The seeds' worked examples, reproduced through the library (seeds 000 and 004; the numbers
// in the comments are the seeds' own, the arithmetic next to them is the hand computation).
#include <doctest/doctest.h>

#include <cmath>

#include "perfmodel/analysis.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("seed 000: RTX 4080 ridge 136 FLOP/B") {
  // P / W = 97.5e12 / 716.8e9 = 136.02.
  const Card c = test::catalogue().card("rtx-4080");
  CHECK(c.ridge(Precision::bf16) == test::approx(97.5e12 / 716.8e9));
  CHECK(std::lround(c.ridge(Precision::bf16)) == 136);
  // FP32 peak: 9728 cores x 2 x 2.505 GHz = 48.7e12.
  CHECK(c.derived_peak[static_cast<int>(Precision::fp32)] == test::approx(9728.0 * 2 * 2.505e9));
}

TEST_CASE("seed 000 example 3: baby GPT matmul intensities 283 / 302 / 100") {
  // Rows = batch 64 x 256 tokens; 256 is baby GPT's block size (max_position_embeddings).
  const Model m = test::catalogue().model("baby-gpt");
  const int64_t rows = 64 * m.max_positions;
  CHECK(rows == 16384);
  CHECK(m.hidden == 384);
  const int64_t qkv = m.q_dim() + 2 * m.kv_dim();
  CHECK(qkv == 1152);
  CHECK(m.intermediate == 1536);
  CHECK(m.vocab == 137);
  // I = 2MKN / (2 (MK + KN + MN)) with M = 16384, K = 384:
  //   c_attn  N = 1152: 14,495,514,624 / 51,216,384 = 283.0
  //   c_fc    N = 1536: 19,327,352,832 / 64,094,208 = 301.5 (seed: "302", %5.0f)
  //   lm_head N = 137:   1,723,858,944 / 17,177,344 = 100.4
  auto I = [&](int64_t n) {
    return ops::gemm("g", rows, n, m.hidden, DType::bf16, DType::bf16, Precision::bf16).intensity();
  };
  CHECK(I(qkv) == test::approx(14495514624.0 / 51216384.0));
  CHECK(std::lround(I(qkv)) == 283);
  CHECK(I(m.intermediate) == test::approx(19327352832.0 / 64094208.0));
  CHECK(I(m.intermediate) == test::approx(302).epsilon(0.002));
  CHECK(I(m.vocab) == test::approx(1723858944.0 / 17177344.0));
  CHECK(std::lround(I(m.vocab)) == 100);
  // The seed's verdicts against the 136 ridge: c_attn and c_fc compute, lm_head memory.
  const double ridge = test::catalogue().card("rtx-4080").ridge(Precision::bf16);
  CHECK(I(qkv) > ridge);
  CHECK(I(m.intermediate) > ridge);
  CHECK(I(m.vocab) < ridge);
}

TEST_CASE("seed 000 example 1: a 64·2^20-element bf16 add on RTX 4080 takes 0.56 ms") {
  const Card c = test::catalogue().card("rtx-4080");
  const Roofs roofs = make_roofs(c, nullptr);
  const int64_t n = 64LL << 20;  // 67,108,864 elements
  const Op add = ops::add("add", 64, int64_t{1} << 20, DType::bf16);
  CHECK(add.flops == static_cast<double>(n));          // one addition per element
  CHECK(add.bytes() == 6.0 * static_cast<double>(n));  // read 2, write 1, 2 bytes each
  CHECK(add.intensity() == test::approx(1.0 / 6));  // 0.17
  const OpCost cost = price(add, roofs, Impl::fused);
  // Memory: 6 x 67.1e6 / 716.8e9 = 0.5617 ms; compute on CUDA cores: 67.1e6 / 48.7e12 = 0.0014 ms.
  CHECK(cost.roofline_time_s == test::approx(6.0 * n / 716.8e9));
  CHECK(cost.roofline_time_s * 1e3 == test::approx(0.56).epsilon(0.01));
  CHECK(cost.nominal_peak == test::approx(48.7e12));  // elementwise runs on CUDA cores
  const double compute_ms = add.flops / c.peak_flops(add.precision) * 1e3;
  CHECK(compute_ms == test::approx(0.0014).epsilon(0.02));
  CHECK(compute_ms == test::approx(n / 48.7e12 * 1e3));
}

TEST_CASE("seed 000 example 2: a 4096^3 bf16 matmul has I = 4096 / 3 = 1365") {
  const Op g = ops::gemm("g", 4096, 4096, 4096, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(g.flops == 2.0 * 4096 * 4096 * 4096);               // 2MKN
  CHECK(g.bytes() == 2.0 * 3 * 4096 * 4096);                // 2 (MK + KN + MN)
  CHECK(g.intensity() == test::approx(4096.0 / 3));      // 1365.3
  CHECK(std::lround(g.intensity()) == 1365);
  // Seed 004 Day 14: N = 4096 is 137 GFLOP.
  CHECK(g.flops == test::approx(137.4e9).epsilon(0.001));
}

TEST_CASE("seed 000: GELU unfused (8 kernels, 10 reads + 8 writes) moves 9x the fused bytes") {
  const Op fused = ops::gelu("gelu", 16384, 1536, DType::bf16, true);
  const Op unfused = ops::gelu("gelu", 16384, 1536, DType::bf16, false);
  CHECK(unfused.bytes() / fused.bytes() == test::approx(9.0));
  CHECK(unfused.launches == 8);
  CHECK(fused.launches == 1);
  // On RTX 4080: 18 x 25,165,824 x 2 B / 716.8e9 = 1.26 ms vs 2 x ... = 0.14 ms.
  const Card rtx4080 = test::catalogue().card("rtx-4080");  // Roofs keeps a pointer to the card
  const Roofs roofs = make_roofs(rtx4080, nullptr);
  CHECK(price(unfused, roofs, Impl::fused).roofline_time_s * 1e3 == test::approx(1.26).epsilon(0.005));
  CHECK(price(fused, roofs, Impl::fused).roofline_time_s * 1e3 == test::approx(0.14).epsilon(0.005));
  // The c_fc matmul that made the tensor: 19.33 GFLOP at 97.5 TFLOP/s = 0.20 ms.
  const Op cfc = ops::gemm("c_fc", 16384, 1536, 384, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(price(cfc, roofs, Impl::fused).roofline_time_s * 1e3 == test::approx(0.198).epsilon(0.01));
}

TEST_CASE("seed 000 practice: the tile in 100 KB of shared memory is 128; it cuts loads by t") {
  // 3 t^2 x 2 B <= 102,400: t = 128 uses 98,304 B; t = 256 would need 393,216 B.
  CHECK(max_square_tile(100 * 1024, 2) == 128);
  CHECK(max_square_tile(100 * 1024, 4) == 64);  // fp32: 3 x 128^2 x 4 = 196,608 > 102,400
  // Naive 32 x 32 reads 2 n^3 = 65,536 numbers; tiled with t = 8: 2 n^3 / t = 8,192.
  CHECK(naive_matmul_loads(32) == 65536.0);
  CHECK(tiled_matmul_loads(32, 8) == 8192.0);
  CHECK(naive_matmul_loads(4096) / tiled_matmul_loads(4096, 128) == test::approx(128.0));
}

TEST_CASE("seed 004: the nominal numbers are products of hardware parameters") {
  const Card t4 = test::catalogue().card("t4");
  const Card a100 = test::catalogue().card("a100");
  // 256 bit / 8 x 10 Gbps = 320 GB/s; 5120 / 8 x 3.19 Gbps ≈ 2039 GB/s.
  CHECK(t4.bandwidth == test::approx(320e9));
  CHECK(a100.bandwidth == test::approx(2039e9).epsilon(0.001));
  // 40 x 8 x 64 x 2 x 1.59 GHz ≈ 65 TFLOP/s; 108 x 4 x 256 x 2 x 1.41 GHz ≈ 312 TFLOP/s.
  CHECK(t4.derived_peak[static_cast<int>(Precision::fp16)] == test::approx(65e12).epsilon(0.002));
  CHECK(a100.derived_peak[static_cast<int>(Precision::bf16)] == test::approx(312e12).epsilon(0.001));
  // Ridges 203 and 153.
  CHECK(std::lround(t4.ridge(Precision::fp16)) == 203);
  CHECK(std::lround(a100.ridge(Precision::bf16)) == 153);
  // Day 14: a square matmul's intensity N / 3 passes the ridge at T4 N > 609, A100 N > 459.
  CHECK(609.0 / 3 > t4.ridge(Precision::fp16) - 0.5);
  CHECK(459.0 / 3 > a100.ridge(Precision::bf16) - 0.5);
}

TEST_CASE("seed 004 Day 16: TinyLlama AI_max 382 at n = 256 and 48 at n = 2048") {
  const Model m = test::catalogue().model("tinyllama");
  const double N = m.parameters();                     // 1,100,048,384
  const double kv = kv_bytes_per_token(m, DType::bf16);  // 22,528
  // 2N / (n kv) = 2,200,096,768 / (256 x 22,528 = 5,767,168) = 381.49;
  //             = 2,200,096,768 / (2048 x 22,528 = 46,137,344) = 47.69.
  CHECK(decode_ai_max(N, 256, kv) == test::approx(2200096768.0 / 5767168.0));
  CHECK(decode_ai_max(N, 256, kv) == test::approx(382).epsilon(0.003));
  CHECK(decode_ai_max(N, 2048, kv) == test::approx(2200096768.0 / 46137344.0));
  CHECK(std::lround(decode_ai_max(N, 2048, kv)) == 48);
  // Day 16: at n = 256 and b = 128 the AI is "only 96":
  //   2N·128 / (2N + 128·256·22,528) = 281.6e9 / (2.2e9 + 738.2e6) = 95.8.
  CHECK(decode_ai(N, 2 * N, 128, 256, kv) == test::approx(96).epsilon(0.005));
  // Seed 004 W2: weights 2.2 GB, KV 22.5 KB per token.
  CHECK(2 * N == test::approx(2.2e9).epsilon(0.001));
}

TEST_CASE("seed 004 Day 16: Llama-2-7B AI_max 103 and 12.9 (seed inputs) / 100.4 and 12.55 (exact)") {
  // The seed computes with "13.5 GB" of weights (2N = 13.5e9, so N = 6.75e9) and "512 KB" read as
  // 512,000 bytes per token: 13.5e9 / (256 x 512,000) = 103.0; 13.5e9 / (2048 x 512,000) = 12.87.
  CHECK(decode_ai_max(6.75e9, 256, 512000) == test::approx(103.0).epsilon(0.001));
  CHECK(decode_ai_max(6.75e9, 2048, 512000) == test::approx(12.87).epsilon(0.001));
  CHECK(decode_ai_max(6.75e9, 2048, 512000) == test::approx(12.9).epsilon(0.005));
  // The model-derived inputs are N = 6,738,415,616 and kv = 524,288 B (512 KiB): then
  //   13,476,831,232 / 134,217,728 = 100.41 and / 1,073,741,824 = 12.551.
  // Both are pinned so neither the seed's rounding nor the catalogue can drift silently.
  const Model m = test::catalogue().model("llama2-7b");
  const double kv = kv_bytes_per_token(m, DType::bf16);
  REQUIRE(kv == 524288.0);
  CHECK(decode_ai_max(m.parameters(), 256, kv) == test::approx(13476831232.0 / 134217728.0));
  CHECK(decode_ai_max(m.parameters(), 256, kv) == test::approx(100.41).epsilon(0.0005));
  CHECK(decode_ai_max(m.parameters(), 2048, kv) == test::approx(12.551).epsilon(0.0005));
}

TEST_CASE("seed 004: Llama-3-8B AI_max 61 (seed inputs) and Llama-2-13B 7.9 at 4096") {
  // 16 GB / (2048 x 128 KB) with 128 KB = 128,000: 16e9 / 262,144,000 = 61.0.
  CHECK(decode_ai_max(8e9, 2048, 128000) == test::approx(61.04).epsilon(0.001));
  // Exact: 16,060,522,496 / (2048 x 131,072) = 59.83.
  const Model l3 = test::catalogue().model("llama3-8b");
  CHECK(decode_ai_max(l3.parameters(), 2048, kv_bytes_per_token(l3, DType::bf16)) ==
        test::approx(16060522496.0 / 268435456.0));
  // Llama-2-13B: 26e9 / (4096 x 800e3) = 7.93 ("≈ 7.9"); exact 26,031,728,640 / 3,355,443,200 = 7.758.
  CHECK(decode_ai_max(13e9, 4096, 800e3) == test::approx(7.93).epsilon(0.001));
  const Model l13 = test::catalogue().model("llama2-13b");
  CHECK(decode_ai_max(l13.parameters(), 4096, kv_bytes_per_token(l13, DType::bf16)) ==
        test::approx(26031728640.0 / 3355443200.0));
}

TEST_CASE("seed 004: b* for TinyLlama at n = 256 is about 360; never for Llama-2-7B at 2048 on A100") {
  const Model tl = test::catalogue().model("tinyllama");
  const double N = tl.parameters(), W = 2 * N, kv = kv_bytes_per_token(tl, DType::bf16);
  // b* = ridge W / (2N - ridge n kv) = 185 x 2,200,096,768 / (2,200,096,768 - 185 x 5,767,168)
  //    = 407,017,902,080 / 1,133,170,688 = 359.2 ("碰屋顶要 batch 360 而不是 185").
  const auto b = decode_b_star(185, N, W, 256, kv);
  REQUIRE(b.has_value());
  CHECK(*b == test::approx(407017902080.0 / 1133170688.0));
  CHECK(*b == test::approx(360).epsilon(0.01));
  // At AI(b*) the intensity is the ridge.
  CHECK(decode_ai(N, W, *b, 256, kv) == test::approx(185));
  // Llama-2-7B at 2048 on A100: AI_max 12.55 < ridge 153: never.
  const Model l7 = test::catalogue().model("llama2-7b");
  const double ridge = test::catalogue().card("a100").ridge(Precision::bf16);
  CHECK(ridge == test::approx(153).epsilon(0.003));
  CHECK_FALSE(decode_b_star(ridge, l7.parameters(), 2 * l7.parameters(), 2048,
                            kv_bytes_per_token(l7, DType::bf16))
                  .has_value());
  // And TinyLlama at 2048 on T4 (AI_max 48 < 203): never.
  CHECK_FALSE(decode_b_star(test::catalogue().card("t4").ridge(Precision::fp16), N, W, 2048, kv).has_value());
}

TEST_CASE("seed 004: Llama-2-7B on A100-80GB at 2048 fits about 60 sequences") {
  const Model m = test::catalogue().model("llama2-7b");
  const Card a100 = test::catalogue().card("a100");
  Workload w;
  w.phase = Phase::decode;
  w.batch = 1;
  w.ctx = 2048;
  const MemoryPlan p = plan_memory(m, w, a100, kDefaultMemoryUtilization);
  // Usable 0.9 x 80 GiB = 77,309,411,328 B; weights 2 x 6,738,415,616 = 13,476,831,232 B;
  // room 63,832,580,096 B; per sequence KV 2048 x 524,288 = 1,073,741,824 B (+ ~0.2 MB of
  // activations) -> 59.4 -> 59 sequences (seed: "约 60 个序列").
  CHECK(p.usable == test::approx(0.9 * 80 * 1073741824.0));
  CHECK(p.weights == 13476831232.0);
  CHECK(p.max_batch >= 55);
  CHECK(p.max_batch <= 62);
  CHECK(p.max_batch == 59);
  CHECK(p.fits);
}

TEST_CASE("seed 004 self-test: Llama-2-13B at 4096 on A100 holds only 15 sequences") {
  // 0.9 x 80 GiB - 26.03 GB of weights = 51.28 GB; one sequence's KV = 4096 x 819,200 = 3.36 GB;
  // 51.28 / 3.36 = 15.3 -> 15.
  const Model m = test::catalogue().model("llama2-13b");
  Workload w;
  w.ctx = 4096;
  CHECK(plan_memory(m, w, test::catalogue().card("a100"), 0.9).max_batch == 15);
}

TEST_CASE("seed 004 Day 15: decode at batch 1 has AI ≈ 1 (2N / 2N), independent of the model") {
  for (const char* key : {"tinyllama", "llama2-7b", "llama3-8b"}) {
    CAPTURE(key);
    const Model m = test::catalogue().model(key);
    const double N = m.parameters();
    // AI(1) = 2N / (2N + n kv): close to 1 when the weights dominate (n = 1 token of KV).
    CHECK(decode_ai(N, 2 * N, 1, 1, kv_bytes_per_token(m, DType::bf16)) == test::approx(1.0).epsilon(0.001));
    // One decode GEMM, M = 1: 2·1·d·d / 2(d + d² + d) -> 1.
    const Op g = ops::gemm("g", 1, m.hidden, m.hidden, DType::bf16, DType::bf16, Precision::bf16);
    CHECK(g.intensity() == test::approx(1.0).epsilon(0.001));
  }
}
