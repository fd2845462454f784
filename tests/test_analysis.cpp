// analysis.hpp: the seed's formulas on plain numbers, the memory plan, and analyze() on a priced
// step.
#include <doctest/doctest.h>

#include <cmath>

#include "perfmodel/analysis.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("AI(b), AI_max and b* on small numbers") {
  // N = 100 parameters, W = 200 B, n = 10 tokens, kv = 2 B per token.
  // AI(b) = 2Nb / (W + b n kv): b = 1 -> 200 / 220; b = 10 -> 2000 / 400 = 5.
  CHECK(decode_ai(100, 200, 1, 10, 2) == test::approx(200.0 / 220.0));
  CHECK(decode_ai(100, 200, 10, 10, 2) == test::approx(5.0));
  // AI_max = 2N / (n kv) = 200 / 20 = 10; AI(b) approaches it from below.
  CHECK(decode_ai_max(100, 10, 2) == test::approx(10.0));
  CHECK(decode_ai(100, 200, 1e9, 10, 2) == test::approx(10.0).epsilon(1e-6));
  // b* = ridge W / (2N - ridge n kv): ridge 5 -> 1000 / (200 - 100) = 10, where AI(10) = 5.
  REQUIRE(decode_b_star(5, 100, 200, 10, 2).has_value());
  CHECK(*decode_b_star(5, 100, 200, 10, 2) == test::approx(10.0));
  // A ridge at or above AI_max is never reached.
  CHECK_FALSE(decode_b_star(10, 100, 200, 10, 2).has_value());
  CHECK_FALSE(decode_b_star(11, 100, 200, 10, 2).has_value());
  // Without KV (W1's approximation, n kv -> 0), AI = b and b* = ridge.
  CHECK(decode_ai(100, 200, 7, 0, 0) == test::approx(7.0));
  CHECK(*decode_b_star(153, 100, 200, 0, 0) == test::approx(153.0));
}

TEST_CASE("activation bytes per sequence") {
  const Model m = test::catalogue().model("llama2-7b");
  Workload w;
  w.phase = Phase::decode;
  // decode: 1 token x (2 x 4096 + 3 x 11008) x 2 B + 1 x 32000 logits x 4 B = 82,432 + 128,000.
  CHECK(activation_bytes_per_sequence(m, w) == 210432.0);
  // prefill of 128 tokens: 128 x 41,216 x 2 B + one row of fp32 logits.
  w.phase = Phase::prefill;
  w.ctx = 128;
  CHECK(activation_bytes_per_sequence(m, w) == 128.0 * 41216 * 2 + 128000.0);
}

TEST_CASE("plan_memory: footprint, fits and the largest batch") {
  const Model m = test::catalogue().model("llama2-7b");
  const Card a100 = test::catalogue().card("a100");
  Workload w;
  w.batch = 32;
  w.ctx = 2048;
  const MemoryPlan p = plan_memory(m, w, a100, 0.9);
  CHECK(p.capacity == 80.0 * 1073741824.0);
  CHECK(p.weights == 13476831232.0);
  CHECK(p.kv == 32.0 * 2048 * 524288);                 // 34.4 GB
  CHECK(p.activations == 32.0 * 210432);
  CHECK(p.total == test::approx(p.weights + p.kv + p.activations));
  CHECK(p.fits);
  CHECK(p.max_batch == 59);
  // Batch 60 does not fit: 13.48 + 60 x 1.074 = 77.91 GB > 77.31 GB usable.
  w.batch = 60;
  CHECK_FALSE(plan_memory(m, w, a100, 0.9).fits);
  w.batch = 59;
  CHECK(plan_memory(m, w, a100, 0.9).fits);
  // The whole memory (utilization 1): (85.90 - 13.48) / 1.074 = 67.4 -> 67.
  CHECK(plan_memory(m, w, a100, 1.0).max_batch == 67);
  // Llama-2-70B in bf16 does not fit a 16 GiB T4 at all.
  const MemoryPlan none = plan_memory(test::catalogue().model("llama2-70b"), w, test::catalogue().card("t4"), 0.9);
  CHECK_FALSE(none.fits);
  CHECK(none.max_batch == 0);
}

TEST_CASE("analyze(): ridge, AI, AI_max, b*, TPOT floor, tokens/s, MFU for Llama-2-7B on A100") {
  const Model m = test::catalogue().model("llama2-7b");
  const Card a100 = test::catalogue().card("a100");
  Workload w;
  w.batch = 1;
  w.ctx = 2048;
  const Step step = build_step(m, w);
  const double t = 8e-3;  // a given step time: analyze() only divides by it
  const Analysis a = analyze(m, w, step, t, 0.1, a100, 0.9);
  CHECK(a.parameters == 6738415616.0);
  CHECK(a.weight_bytes == 13476831232.0);
  CHECK(a.kv_bytes_per_token == 524288.0);
  CHECK(a.ridge == test::approx(312e12 / a100.bandwidth));
  CHECK(a.ai == test::approx(decode_ai(a.parameters, a.weight_bytes, 1, 2048, 524288)));
  CHECK(a.ai_max == test::approx(12.551).epsilon(0.0005));
  CHECK_FALSE(a.b_star.has_value());  // seed 004: "永远 memory-bound"
  CHECK(a.memory.max_batch == 59);
  CHECK(a.step_time_s == t);
  CHECK(a.tpot_s == t);
  CHECK(a.ttft_s == 0.1);
  // TPOT floor = (weights + b n kv) / nominal bandwidth = (13,476,831,232 + 1,073,741,824) / 2039.04e9
  //            = 7.136 ms.
  CHECK(a.tpot_floor_s == test::approx((13476831232.0 + 1073741824.0) / a100.bandwidth));
  CHECK(a.tpot_floor_s * 1e3 == test::approx(7.136).epsilon(0.001));
  CHECK(a.tokens_per_s == test::approx(1 / t));
  // MFU = model FLOPs / time / nominal peak; HFU counts all FLOPs.
  CHECK(a.mfu == test::approx(step.model_flops() / t / 312e12));
  CHECK(a.hfu == test::approx(step.flops() / t / 312e12));
  CHECK(a.hfu >= a.mfu);
  // Seed 004 Day 17: decode at batch 1 has MFU ≈ AI / ridge on the slanted roof, under 1 %.
  CHECK(a.mfu < 0.01);
}

TEST_CASE("analyze() on TinyLlama at n = 256 on T4 (fp16): the seed's b* against the nominal ridge") {
  const Model m = test::catalogue().model("tinyllama");
  const Card t4 = test::catalogue().card("t4");
  Workload w;
  w.batch = 1;
  w.ctx = 256;
  w.weight_dtype = w.act_dtype = w.kv_dtype = DType::fp16;
  const Analysis a = analyze(m, w, build_step(m, w), 1e-2, 0, t4, 0.9);
  // Nominal ridge 65e12 / 320e9 = 203.1; b* = 203.1 x 2N / (2N - 203.1 x 256 x 22,528).
  const double ridge = 65e12 / 320e9, N = 1100048384.0;
  CHECK(a.ridge == test::approx(ridge));
  REQUIRE(a.b_star.has_value());
  CHECK(*a.b_star == test::approx(ridge * 2 * N / (2 * N - ridge * 256 * 22528)));
  CHECK(a.ai_max == test::approx(381.49).epsilon(0.0005));
}

TEST_CASE("prefill: TTFT is the step itself when no separate prefill time is given") {
  const Model m = test::catalogue().model("tinyllama");
  Workload w;
  w.phase = Phase::prefill;
  w.batch = 2;
  w.ctx = 128;
  const Analysis a = analyze(m, w, build_step(m, w), 0.02, 0, test::catalogue().card("a100"), 0.9);
  CHECK(a.ttft_s == 0.02);
  CHECK(a.tpot_s == 0);
  CHECK(a.tokens_per_s == test::approx(256 / 0.02));
}

TEST_CASE("sliding windows: AI(b), AI_max and b* use the window-capped KV of the memory plan") {
  const Model m = test::catalogue().model("gemma2-9b");  // every other layer local, window 4096
  const Card h200 = test::catalogue().card("h200");
  Workload w;
  w.batch = 8;
  w.ctx = 8192;
  const Analysis a = analyze(m, w, build_step(m, w), 1e-2, 0, h200, 0.9);
  // kv per token 2 x 42 x 8 x 256 x 2 = 344,064 B; one sequence at 8192 holds 21 local layers
  // x 4096 + 21 global x 8192 tokens of 8,192 B each = 2,113,929,216 B (docs/model.md, section 6).
  CHECK(a.kv_bytes_per_token == 344064.0);
  CHECK(a.kv_bytes_per_sequence == 2113929216.0);
  CHECK(a.kv_bytes_per_sequence == kv_bytes_per_sequence(m, w.kv_dtype, w.ctx));
  CHECK(a.memory.kv == 8 * a.kv_bytes_per_sequence);  // the memory plan's figure
  const double N = m.parameters();
  CHECK(a.ai_max == test::approx(2 * N / 2113929216.0));
  CHECK(a.ai_max == test::approx(8.744).epsilon(0.0005));
  CHECK(a.ai == test::approx(2 * N * 8 / (a.weight_bytes + 8 * 2113929216.0)));
  CHECK_FALSE(a.b_star.has_value());  // 8.7 is far below the H200's ridge
  // A ridge under AI_max: b* = ridge W / (2N - ridge n kv) with the same n kv.
  const auto b = decode_b_star(5, N, a.weight_bytes, 8192, 2113929216.0 / 8192);
  REQUIRE(b.has_value());
  CHECK(decode_ai(N, a.weight_bytes, *b, 8192, 2113929216.0 / 8192) == test::approx(5.0));
  // Inside the window nothing is capped: the plain n x kv per token.
  w.ctx = 2048;
  const Analysis in = analyze(m, w, build_step(m, w), 1e-2, 0, h200, 0.9);
  CHECK(in.kv_bytes_per_sequence == 2048 * 344064.0);
  CHECK(in.ai_max == test::approx(2 * N / (2048 * 344064.0)));
  // Mistral-style: every layer windowed; past the window AI_max stops falling with n.
  Model mistral = test::catalogue().model("mistral-7b");
  mistral.sliding_window = 4096;
  mistral.window_pattern = WindowPattern::all;
  w.ctx = 16384;
  const Analysis far = analyze(mistral, w, build_step(mistral, w), 1e-2, 0, h200, 0.9);
  w.ctx = 4096;
  const Analysis at_window = analyze(mistral, w, build_step(mistral, w), 1e-2, 0, h200, 0.9);
  CHECK(far.ai_max == test::approx(at_window.ai_max));
  CHECK(far.kv_bytes_per_sequence == at_window.kv_bytes_per_sequence);
}
