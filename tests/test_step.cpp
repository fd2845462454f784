// build_step: the ops of one forward step, against hand totals (FLOPs ≈ 2 x matmul parameters
// + attention; bytes ≈ weights read + KV read), GQA, prefill's lm_head, sliding windows,
// the eager profile, and the workload's checks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>

#include "perfmodel/analysis.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

Workload decode(int64_t batch, int64_t ctx) {
  Workload w;
  w.phase = Phase::decode;
  w.batch = batch;
  w.ctx = ctx;
  return w;
}

Workload prefill(int64_t batch, int64_t ctx) {
  Workload w = decode(batch, ctx);
  w.phase = Phase::prefill;
  return w;
}

const Op& find(const Step& s, const std::string& name) {
  auto it = std::find_if(s.ops.begin(), s.ops.end(), [&](const Op& o) { return o.name == name; });
  REQUIRE_MESSAGE(it != s.ops.end(), "no op named " << name);
  return *it;
}

std::vector<const Op*> of_kind(const Step& s, OpKind k) {
  std::vector<const Op*> out;
  for (const Op& o : s.ops)
    if (o.kind == k) out.push_back(&o);
  return out;
}

}  // namespace

TEST_CASE("Llama-2-7B decode, batch 1: every op kind is there, per-layer ops count 32") {
  const Model m = test::catalogue().model("llama2-7b");
  const Step s = build_step(m, decode(1, 2048));
  std::set<OpKind> kinds;
  for (const Op& o : s.ops) kinds.insert(o.kind);
  for (OpKind k : {OpKind::embedding, OpKind::norm, OpKind::gemm, OpKind::attention, OpKind::kv_cache,
                   OpKind::elementwise}) {
    CAPTURE(to_string(k));
    CHECK(kinds.count(k) == 1);
  }
  // Per-layer ops run 32 times; embedding, final norm and lm_head once.
  for (const Op& o : s.ops) {
    CAPTURE(o.name);
    const bool once = o.kind == OpKind::embedding || o.name == "lm_head" || o.name == "final_norm";
    CHECK(o.count == (once ? 1 : 32));
  }
  CHECK(of_kind(s, OpKind::attention).size() == 1);
  CHECK(of_kind(s, OpKind::embedding).size() == 1);
  // Every GEMM of a decode step has M = batch = 1.
  for (const Op* g : of_kind(s, OpKind::gemm)) CHECK(g->gemm.m == 1);
  // The fused profile: q/k/v one GEMM of N = 3 x 4096, gate/up one of N = 2 x 11008.
  int64_t gemm_weights = 0;
  for (const Op* g : of_kind(s, OpKind::gemm)) gemm_weights += g->gemm.n * g->gemm.k * g->count;
  // 32 x (4096·12288 + 4096·4096 + 4096·22016 + 11008·4096) + 32000·4096 = 6,607,077,376.
  CHECK(gemm_weights == 6607077376LL);
}

TEST_CASE("Llama-2-7B decode: step FLOPs ≈ 2 x matmul parameters + attention FLOPs") {
  const Model m = test::catalogue().model("llama2-7b");
  const Step s = build_step(m, decode(1, 2048));
  // matmul_parameters = 6,738,415,616 - the gathered input table 32000·4096 = 6,607,343,616
  // (the GEMM weights 6,607,077,376 plus 266,240 norm weights).
  CHECK(m.matmul_parameters() == 6607343616.0);
  // Attention: 4 b h L d x layers = 4·1·32·2048·128·32 = 1,073,741,824.
  const double attention = 4.0 * 1 * 32 * 2048 * 128 * 32;
  // GEMM + attention FLOPs are exactly the MFU numerator: 2 x 6,607,077,376 + attention.
  CHECK(s.model_flops() == 2.0 * 6607077376.0 + attention);
  // All FLOPs add norms, rotary and the activation (a few MFLOP): within 0.1 %.
  CHECK(s.flops() == test::approx(2 * m.matmul_parameters() + attention).epsilon(0.001));
  CHECK(s.flops() >= s.model_flops());
}

TEST_CASE("Llama-2-7B decode: step bytes ≈ weight bytes read + KV bytes (within 1 %)") {
  const Model m = test::catalogue().model("llama2-7b");
  for (int64_t batch : {1, 8}) {
    CAPTURE(batch);
    const Step s = build_step(m, decode(batch, 2048));
    // Weights read per step: every matmul weight once, in bf16 (the embedding table is gathered,
    // one row per token, not read whole): 2 x 6,607,343,616 = 13,214,687,232 B.
    const double weights = 2 * m.matmul_parameters();
    // KV read: batch x 2048 tokens x 524,288 B.
    const double kv = static_cast<double>(batch) * 2048 * kv_bytes_per_token(m, DType::bf16);
    CHECK(s.bytes() == test::approx(weights + kv).epsilon(0.01));
    // And the attention op alone reads the whole cache once: 32 x b x 2 x 32 x 2048 x 128 x 2 B.
    const Op& a = *of_kind(s, OpKind::attention).front();
    CHECK(a.bytes_read * a.count == test::approx(kv).epsilon(0.001));
  }
}

TEST_CASE("prefill: lm_head has M = batch (last position only) unless all positions are asked") {
  const Model m = test::catalogue().model("llama2-7b");
  const Step s = build_step(m, prefill(4, 128));
  const Op& head = find(s, "lm_head");
  CHECK(head.gemm.m == 4);
  CHECK(head.gemm.n == 32000);
  CHECK(head.gemm.k == 4096);
  // Other GEMMs see every token: 4 x 128 = 512 rows.
  CHECK(find(s, "qkv_proj").gemm.m == 512);
  Workload all = prefill(4, 128);
  all.lm_head_all_positions = true;
  CHECK(find(build_step(m, all), "lm_head").gemm.m == 512);
  // Prefill attention is causal over the prompt: 4 b h d s(s+1)/2 per layer.
  const Op& a = *of_kind(s, OpKind::attention).front();
  CHECK(a.attention.causal);
  CHECK(a.flops == 4.0 * 4 * 32 * 128 * (128.0 * 129 / 2));
}

TEST_CASE("GQA: Llama-3-8B decode attention reads 2·b·kv_heads·L·d·2 bytes of cache + q") {
  const Model m = test::catalogue().model("llama3-8b");
  REQUIRE(m.kv_heads == 8);
  REQUIRE(m.heads == 32);
  const Step s = build_step(m, decode(4, 2048));
  const Op& a = *of_kind(s, OpKind::attention).front();
  // Cache: 2 (K, V) x 4 x 8 x 2048 x 128 x 2 B = 33,554,432; q: 4 x 32 x 128 x 2 = 32,768.
  CHECK(a.bytes_read == 2.0 * 4 * 8 * 2048 * 128 * 2 + 4.0 * 32 * 128 * 2);
  CHECK(a.bytes_read == 33587200.0);
  CHECK(a.flops == 4.0 * 4 * 32 * 2048 * 128);
  // The q/k/v GEMM is narrower than MHA's: N = 4096 + 2 x 1024.
  CHECK(find(s, "qkv_proj").gemm.n == 6144);
}

TEST_CASE("sliding windows cap the KV length of local layers") {
  // Mistral-7B: window 4096 on every layer. At ctx 8192 attention reads 4096 tokens.
  const Model mistral = test::catalogue().model("mistral-7b");
  const Step s = build_step(mistral, decode(1, 8192));
  const auto att = of_kind(s, OpKind::attention);
  int64_t layers = 0;
  for (const Op* a : att) {
    layers += a->count;
    CHECK(a->attention.kv_len == 4096);
  }
  CHECK(layers == 32);
  // KV held per sequence: 32 x 4096 tokens x 2 x 8 x 128 x 2 B = 536,870,912.
  CHECK(kv_bytes_per_sequence(mistral, DType::bf16, 8192) == 536870912.0);
  // Gemma-2-9B: every other layer local. 21 layers at 4096 and 21 at 8192.
  const Model gemma = test::catalogue().model("gemma2-9b");
  const Step g = build_step(gemma, decode(1, 8192));
  int64_t local = 0, global = 0;
  for (const Op* a : of_kind(g, OpKind::attention)) {
    if (a->attention.kv_len == 4096) local += a->count;
    if (a->attention.kv_len == 8192) global += a->count;
  }
  CHECK(local == 21);
  CHECK(global == 21);
  // KV: (21 x 4096 + 21 x 8192) x 2 x 8 x 256 x 2 B = 2,113,929,216.
  CHECK(kv_bytes_per_sequence(gemma, DType::bf16, 8192) == 2113929216.0);
  // Below the window nothing is capped.
  CHECK(kv_bytes_per_sequence(gemma, DType::bf16, 2048) == 2048.0 * 344064);
  // Gemma-2 has 4 norms per layer.
  int64_t norms = 0;
  for (const Op* n : of_kind(g, OpKind::norm)) norms += n->count;
  CHECK(norms == 4 * 42 + 1);
}

TEST_CASE("GPT-2-style models: learned positions, plain GELU MLP, LayerNorm") {
  const Model m = test::catalogue().model("baby-gpt");
  Workload w = prefill(64, 256);
  w.lm_head_all_positions = true;  // training-style, as in seed 000
  const Step s = build_step(m, w);
  bool positions = false;
  for (const Op& o : s.ops) positions = positions || o.name == "embed_positions";
  CHECK(positions);
  // The q/k/v GEMM of seed 000: 16384 x 1152 x 384.
  const Op& qkv = find(s, "qkv_proj");
  CHECK(qkv.gemm.m == 16384);
  CHECK(qkv.gemm.n == 1152);
  CHECK(qkv.gemm.k == 384);
  CHECK(qkv.intensity() == test::approx(283).epsilon(0.002));  // + the bias read, still 283
  CHECK(find(s, "lm_head").gemm.m == 16384);
  for (const Op* n : of_kind(s, OpKind::norm)) CHECK(n->kernel == KernelId::layernorm);
  CHECK(of_kind(s, OpKind::kv_cache).size() == 1);
}

TEST_CASE("the eager profile: more launches, the same GEMM FLOPs") {
  const Model m = test::catalogue().model("llama3-8b");
  Workload f = decode(2, 1024);
  Workload e = f;
  e.impl = Impl::eager;
  const Step fused = build_step(m, f);
  const Step eager = build_step(m, e);
  CHECK(eager.launches() > 2 * fused.launches());
  double gf = 0, ge = 0;
  for (const Op* g : of_kind(fused, OpKind::gemm)) gf += g->flops * g->count;
  for (const Op* g : of_kind(eager, OpKind::gemm)) ge += g->flops * g->count;
  CHECK(ge == test::approx(gf));
  // Eager moves more bytes: fp32 norm passes, repeat_kv, separate activation kernels.
  CHECK(eager.bytes() > fused.bytes());
}

TEST_CASE("Step totals are count-weighted sums") {
  Step s;
  Op a;
  a.flops = 10;
  a.model_flops = 4;
  a.bytes_read = 3;
  a.bytes_written = 2;
  a.launches = 2;
  a.count = 5;
  s.ops = {a, a};
  CHECK(s.flops() == 100.0);
  CHECK(s.model_flops() == 40.0);
  CHECK(s.bytes() == 50.0);
  CHECK(s.launches() == 20);
}

TEST_CASE("the workload is checked: positive sizes, and products that overflow int64") {
  const Model m = test::catalogue().model("llama2-7b");
  CHECK_THROWS_AS(build_step(m, decode(0, 2048)), InputError);
  CHECK_THROWS_AS(build_step(m, decode(-4, 2048)), InputError);
  CHECK_THROWS_AS(build_step(m, decode(1, 0)), InputError);
  // batch x ctx x kv_dim x layers x 2 = 2^40 x 2^20 x 4096 x 32 x 2: far past 2^63.
  CHECK_THROWS_AS(build_step(m, decode(int64_t{1} << 40, int64_t{1} << 20)), InputError);
  // A batch that alone fits int64 but whose tokens x vocab product does not.
  CHECK_THROWS_AS(build_step(m, decode(int64_t{1} << 50, 1)), InputError);
  // Prefill: attention scores batch x heads x ctx^2.
  CHECK_THROWS_AS(build_step(m, prefill(1 << 20, 1 << 22)), InputError);
  try {
    build_step(m, decode(int64_t{1} << 40, int64_t{1} << 20));
  } catch (const InputError& e) {
    CHECK(test::contains(e.what(), "overflow"));
  }
}

TEST_CASE("decode ctx beyond max_position_embeddings is refused") {
  const Model m = test::catalogue().model("llama2-7b");
  REQUIRE(m.max_positions == 4096);
  CHECK_NOTHROW(build_step(m, decode(1, 4096)));
  CHECK_THROWS_AS(build_step(m, decode(1, 8192)), InputError);
}

TEST_CASE("sliding-window prefill attention counts every query's window") {
  const Model m = test::catalogue().model("mistral-7b");
  REQUIRE(m.sliding_window == 4096);
  const Step long_prompt = build_step(m, prefill(1, 8192));
  double flops = 0;
  for (const Op* a : of_kind(long_prompt, OpKind::attention)) flops += a->flops * a->count;
  CHECK(flops == 32 * 4.0 * 32 * 128 * 25167872.0);
  // Whatever the window, a longer prompt never costs less attention.
  const Step short_prompt = build_step(m, prefill(1, 4096));
  double shorter = 0;
  for (const Op* a : of_kind(short_prompt, OpKind::attention)) shorter += a->flops * a->count;
  CHECK(shorter == 32 * 4.0 * 32 * 128 * (4096.0 * 4097 / 2));
  CHECK(flops > shorter);
}

TEST_CASE("the eager profile counts HF's framework calls: kernels and the views between them") {
  const Model m = test::catalogue().model("llama3-8b");
  Workload e = decode(1, 1024);
  e.impl = Impl::eager;
  const Step s = build_step(m, e);
  int64_t launches = 0, views = 0;
  for (const Op& op : s.ops) {
    launches += op.launches * op.count;
    views += op.framework_calls * op.count;
  }
  // Per layer: q/k/v view + transpose (6), cos/sin unsqueeze (2), rotate_half's slices (2 x 2),
  // attention's transpose/contiguous/reshape (3): 15 (GQA through SDPA's enable_gqa: no
  // repeat_kv). Per step: the rotary embedding's 6, the mask's 4, the lm_head slice: 11.
  CHECK(views == 15 * 32 + 11);
  // The step-level work HF does once: rotary embedding (6 kernels) and the causal mask (5).
  CHECK(find(s, "rotary_emb").launches == 6);
  CHECK(find(s, "causal_mask").launches == 5);
  CHECK(launches == s.launches());
  // Batch 1 is host-bound: at 12 us per kernel-launching call and 2.4 us per view it costs the
  // host their sum.
  const Card h200 = test::catalogue().card("h200");
  Calibration cal;
  cal.dram_bandwidth = 4e12;
  cal.kernel_floor_s = 0.5e-6;
  cal.eager_dispatch_s = 12e-6;
  cal.eager_view_s = 2.4e-6;
  const Roofs r = make_roofs(h200, &cal);
  const StepCost c = price_step(s, r, Impl::eager);
  CHECK(c.time_s >= static_cast<double>(launches) * 12e-6 + static_cast<double>(views) * 2.4e-6 - 1e-9);
  CHECK(c.bound == Bound::overhead);
}
