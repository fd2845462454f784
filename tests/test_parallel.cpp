// Tensor, pipeline and data parallelism (parallel.hpp, parallel_step.hpp): per-GPU shapes and
// collective bytes against hand computation, memory per GPU, the pipeline's bubble and TPOT, the
// overlap flag, refused combinations (library and CLI: exit 2, one line naming the flag).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "cli_support.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/collective.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/parallel_step.hpp"
#include "perfmodel/predictor.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const Card& h200() {
  static const Card c = test::catalogue().card("h200");
  return c;
}
const Calibration& h200_cal() {
  static const Calibration c = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return c;
}

Workload decode(int64_t batch, int64_t ctx, int tp, int pp = 1, int dp = 1) {
  Workload w;
  w.batch = batch;
  w.ctx = ctx;
  w.parallel.tp = tp;
  w.parallel.pp = pp;
  w.parallel.dp = dp;
  return w;
}

const Op& op_named(const Step& s, const std::string& name) {
  for (const Op& op : s.ops)
    if (op.name == name) return op;
  FAIL("no op " << name);
  return s.ops.front();
}

int64_t count_of(const Step& s, OpKind kind) {
  int64_t n = 0;
  for (const Op& op : s.ops)
    if (op.kind == kind) n += op.count;
  return n;
}

}  // namespace

TEST_CASE("TP=2 Llama-3-8B decode: column- and row-parallel GEMMs, heads and KV heads split (hand-computed)") {
  const Model m = test::catalogue().model("llama3-8b");  // hidden 4096, 32 heads, 8 KV heads, FFN 14336
  const Step s = build_step(m, decode(4, 1024, 2));
  // Column-parallel: q, k, v outputs split: (32/2 + 2 x 8/2) x 128 = 3072; gate/up 2 x 14336 / 2.
  const Op& qkv = op_named(s, "qkv_proj");
  CHECK(qkv.gemm.m == 4);
  CHECK(qkv.gemm.n == 3072);
  CHECK(qkv.gemm.k == 4096);
  CHECK(op_named(s, "gate_up_proj").gemm.n == 14336);
  // Row-parallel: inputs split, outputs whole.
  CHECK(op_named(s, "o_proj").gemm.n == 4096);
  CHECK(op_named(s, "o_proj").gemm.k == 2048);
  CHECK(op_named(s, "down_proj").gemm.k == 7168);
  CHECK(op_named(s, "lm_head").gemm.n == 64128);  // vocabulary-parallel head: 128256 / 2
  const Op& attn = op_named(s, "attention");
  CHECK(attn.attention.heads == 16);
  CHECK(attn.attention.kv_heads == 4);
  CHECK(op_named(s, "kv_write").attention.kv_heads == 4);
}

TEST_CASE("TP all-reduce bytes and count: one after attention and one after the MLP per layer (hand-computed)") {
  const Model m = test::catalogue().model("llama3-8b");
  const Step s = build_step(m, decode(4, 1024, 2));
  const Op& ar = op_named(s, "o_proj.all_reduce");
  CHECK(ar.kind == OpKind::collective);
  CHECK(ar.collective == CollectiveOp::all_reduce);
  CHECK(ar.collective_gpus == 2);
  CHECK(ar.collective_bytes == 4.0 * 4096 * 2);  // batch x hidden x bf16
  CHECK(ar.count == 32);
  CHECK_FALSE(ar.overlaps);  // serving engines keep it on the path in decode
  CHECK(op_named(s, "down_proj.all_reduce").collective_bytes == 4.0 * 4096 * 2);
  // 2 per layer + the vocabulary-parallel embedding's, and the logits' all-gather.
  CHECK(count_of(s, OpKind::collective) == 2 * 32 + 1 + 1);
  const Op& ag = op_named(s, "lm_head.all_gather");
  CHECK(ag.collective == CollectiveOp::all_gather);
  CHECK(ag.collective_bytes == 4.0 * 128256 * 2);  // the gathered logits
  // Priced by the collective model on the card's interconnect, calibrated.
  const Roofs r = make_roofs(h200(), &h200_cal(), Impl::fused);
  const OpCost c = price(ar, r, Impl::fused);
  CHECK(c.time_s == test::approx(estimate_collective(h200(), CollectiveOp::all_reduce, 2, 32768.0, &h200_cal().collectives).time_s));
  CHECK(c.time_s > 5e-6);  // NVLink all-reduces of a few KiB take ~10 us on the H200 pair
  CHECK(c.time_s < 20e-6);
  // TP=1 has none.
  CHECK(count_of(build_step(m, decode(4, 1024, 1)), OpKind::collective) == 0);
  // Every profile keeps them (the compiled one dropped them once, silently).
  for (Impl impl : {Impl::eager, Impl::compiled}) {
    Workload w = decode(4, 1024, 2);
    w.impl = impl;
    CAPTURE(to_string(impl));
    CHECK(count_of(build_step(m, w), OpKind::collective) == 2 * 32 + 1 + 1);
  }
}

TEST_CASE("KV heads are replicated when tp exceeds them; heads that tp does not divide are refused") {
  const Model m = test::catalogue().model("llama3-70b");  // 64 heads, 8 KV heads
  const Model s16 = shard_model(m, {.tp = 16});
  CHECK(s16.heads == 4);
  CHECK(s16.kv_heads == 1);
  CHECK(s16.intermediate == 28672 / 16);
  CHECK_THROWS_WITH_AS(shard_model(m, {.tp = 3}), doctest::Contains("--tp 3 does not divide"), InputError);
  CHECK_THROWS_WITH_AS(shard_model(m, {.pp = 81}), doctest::Contains("--pp 81"), InputError);
  CHECK_THROWS_WITH_AS(shard_model(m, {.ep = 2}), doctest::Contains("is dense"), InputError);
  const Model mixtral = test::catalogue().model("mixtral-8x7b");  // 8 experts, top-2
  CHECK_THROWS_WITH_AS(shard_model(mixtral, {.ep = 8}), doctest::Contains("top_k (2)"), InputError);
  // More GPUs than one node on a card with no NIC (the A100 states none), and on one with a NIC.
  CHECK_THROWS_WITH_AS(validate_parallelism(test::catalogue().card("a100"), Parallelism{.tp = 8, .pp = 2}),
                       doctest::Contains("16 GPUs"), InputError);
  CHECK_NOTHROW(validate_parallelism(h200(), Parallelism{.tp = 8, .pp = 2}));
}

TEST_CASE("memory per GPU: the shard's weights and KV cache (hand-computed)") {
  const Model m = test::catalogue().model("llama3-8b");
  const Evaluation e = evaluate(m, decode(8, 4096, 2), h200(), &h200_cal());
  // Per layer on one GPU: q (4096 x 2048), k and v (4096 x 512 each), o (2048 x 4096), gate/up/down
  // 3 x 4096 x 7168, two norms of 4096; the vocabulary tables split: 2 x 64128 x 4096; final norm.
  const double layer = 4096.0 * 2048 + 2 * 4096.0 * 512 + 2048.0 * 4096 + 3 * 4096.0 * 7168 + 2 * 4096.0;
  const double params = 32 * layer + 2 * 64128.0 * 4096 + 4096;
  CHECK(e.analysis.parameters == test::approx(params));
  CHECK(e.analysis.memory.weights == test::approx(2 * params));
  // KV per token per GPU: K and V x 32 layers x 4 KV heads x 128 x 2 bytes.
  CHECK(e.analysis.kv_bytes_per_token == test::approx(2.0 * 32 * 4 * 128 * 2));
  CHECK(e.analysis.memory.kv == test::approx(8 * 4096 * 2.0 * 32 * 4 * 128 * 2));
  // Pipeline stages: 80 layers in 4 stages hold 20 each and one vocabulary table.
  const Model m70 = test::catalogue().model("llama3-70b");
  const Model st = shard_model(m70, {.tp = 2, .pp = 4});
  CHECK(st.layers == 20);
  CHECK(st.parameters() == test::approx(20 * (8192.0 * 4096 + 2 * 8192.0 * 512 + 4096.0 * 8192 + 3 * 8192.0 * 14336 +
                                              2 * 8192.0) +
                                        64128.0 * 8192 + 8192));
}

TEST_CASE("pipeline: GPipe's bubble (pp-1)/(m+pp-1) in prefill, and decode TPOT = max(m x stage, latency)") {
  // A stage of 20 identical layers (no once-per-step ops) priced at 1 ms, sends of 0.1 ms.
  Step stage;
  Op layer;
  layer.name = "layer";
  layer.count = 20;
  stage.ops.push_back(layer);
  StepCost cost;
  OpCost c;
  c.time_s = 0.05e-3;
  cost.ops.push_back(c);
  cost.time_s = 1e-3;
  const Model m = shard_model(test::catalogue().model("llama3-70b"), {});
  Workload w = decode(8, 4096, 1, 4);
  w.phase = Phase::prefill;
  const ParallelAnalysis pre = analyze_parallel(m, w, stage, cost, 0);
  CHECK(pre.micro_batches == 4);  // min(batch, pp)
  CHECK(pre.step_time_s == test::approx((4 + 4 - 1) * 1e-3));
  CHECK(pre.bubble == test::approx(3.0 / 7.0));
  w.phase = Phase::decode;
  const ParallelAnalysis dec = analyze_parallel(m, w, stage, cost, 0.1e-3);
  CHECK(dec.latency_s == test::approx(4 * 1e-3 + 3 * 0.1e-3));
  CHECK(dec.step_time_s == test::approx(4.3e-3));  // the round trip beats 4 micro-batches x 1 ms
  CHECK(dec.tokens_per_s_replica == test::approx(8 / 4.3e-3));
  CHECK(dec.tokens_per_s_per_gpu == test::approx(8 / 4.3e-3 / 4));
  w.parallel.micro_batches = 8;  // more micro-batches than stages: the stage is the bottleneck
  CHECK(analyze_parallel(m, w, stage, cost, 0.1e-3).step_time_s == test::approx(8e-3));
}

TEST_CASE("a pipeline stage's send overlaps: in the op list, not in the stage time") {
  const Model m = test::catalogue().model("llama3-70b");
  const Evaluation e = evaluate(m, decode(8, 4096, 2, 2), h200(), &h200_cal());
  REQUIRE(e.parallel);
  double path = 0;
  bool saw_send = false;
  for (size_t i = 0; i < e.step.ops.size(); ++i) {
    if (e.step.ops[i].overlaps) {
      saw_send = true;
      CHECK(e.step.ops[i].collective == CollectiveOp::send_recv);
      CHECK(e.step.ops[i].collective_bytes == 4.0 * 2 * 8192 * 2);  // micro-batch 4: hidden states + residual
      continue;
    }
    path += static_cast<double>(e.step.ops[i].count) * e.cost.ops[i].time_s;
  }
  CHECK(saw_send);
  // The path, and the host's launch of the stage's graph beside it (graph_launch_per_node).
  CHECK(e.cost.host_time_s > 0);
  CHECK(e.cost.time_s == test::approx(path + e.cost.host_time_s));
  CHECK(e.parallel->p2p_time_s > 0);
  CHECK(e.parallel->micro_batches == 2);
  CHECK(e.parallel->micro_batch == 4);
  CHECK(e.parallel->layers_per_stage == 40);
}

TEST_CASE("data parallelism: replicas multiply tokens and GPUs alike; TP=2 is faster per step than TP=1") {
  const Model m = test::catalogue().model("llama3-8b");
  const Evaluation one = evaluate(m, decode(16, 2048, 2, 1, 1), h200(), &h200_cal());
  const Evaluation four = evaluate(m, decode(16, 2048, 2, 1, 4), h200(), &h200_cal());
  CHECK(four.parallel->gpus == 8);
  CHECK(four.parallel->tokens_per_s == test::approx(4 * one.parallel->tokens_per_s));
  CHECK(four.parallel->tokens_per_s_per_gpu == test::approx(one.parallel->tokens_per_s_per_gpu));
  const Evaluation tp1 = evaluate(m, decode(16, 2048, 1), h200(), &h200_cal());
  CHECK(one.analysis.step_time_s < tp1.analysis.step_time_s);
  CHECK(one.analysis.step_time_s > tp1.analysis.step_time_s / 2);  // collectives and what does not shard
  // tp = 1, pp = 1, dp = 1 is the single-GPU path, unchanged.
  CHECK_FALSE(tp1.parallel);
}

TEST_CASE("CLI: --tp on decode, prefill, ops and sweep-batch; bad combinations exit 2 naming the flag") {
  using cli_test::cli;
  const auto j = cli_test::json_of(cli("decode --model llama3-8b --card h200 --tp 2 --ctx 1024 --format json"));
  REQUIRE(j.at("parallel.tp"));
  CHECK(j.at("parallel.tp")->num == 2);
  CHECK(j.at("parallel.gpus")->num == 2);
  REQUIRE(j.at("ops"));
  int collectives = 0;
  for (const auto& op : j.at("ops")->arr) {
    REQUIRE(op.get("overlaps"));
    CHECK(op.get("overlaps")->type == test::Json::Type::boolean);
    collectives += op.get("kind")->str == "collective";
  }
  CHECK(collectives == 4);  // embedding, o_proj and down_proj all-reduces, the logits' all-gather
  CHECK(cli("prefill --model llama3-8b --card h200 --tp 2 --pp 2 --batch 4 --ctx 512").rc == 0);
  CHECK(cli("ops --model llama3-8b --card h200 --tp 4").rc == 0);
  CHECK(cli("sweep-batch --model llama3-8b --card h200 --tp 2 --max-batch 8").rc == 0);
  cli_test::expect_input_error(cli("decode --model llama3-8b --card h200 --tp 3"), {"--tp 3"});
  cli_test::expect_input_error(cli("decode --model llama3-8b --card h200 --tp 0"), {"--tp"});
  cli_test::expect_input_error(cli("decode --model llama3-8b --card h200 --ep 2"), {"--ep 2", "dense"});
  cli_test::expect_input_error(cli("decode --model llama3-8b --card a100 --tp 8 --dp 2"), {"16 GPUs", "NIC"});
  cli_test::expect_input_error(cli("decode --model llama3-8b --card h200 --micro-batches -1"), {"--micro-batches"});
}

TEST_CASE("the Predictor prices a parallel workload as evaluate() does") {
  const Model m = test::catalogue().model("llama3-70b");
  Predictor pred(m, h200(), &h200_cal());
  for (int pp : {1, 2}) {
    const Workload w = decode(32, 4096, 4, pp, 2);
    const Prediction p = pred.predict(w);
    EvaluateOptions o;
    o.with_ttft = false;
    const Evaluation e = evaluate(m, w, h200(), &h200_cal(), o);
    CHECK(p.time_s == test::approx(e.parallel->step_time_s));
    CHECK(p.tokens_per_s == test::approx(e.parallel->tokens_per_s));
    CHECK(p.max_batch == e.analysis.memory.max_batch);
    CHECK(p.fits);
  }
}

TEST_CASE("expert parallelism: experts split, attention data-parallel, all-to-all dispatch and combine (hand-computed)") {
  const Model m = test::catalogue().model("mixtral-8x7b");  // 32 layers, hidden 4096, 8 experts, top-2, FFN 14336
  const Model s = shard_model(m, {.tp = 2, .ep = 2});
  CHECK(s.moe.experts == 4);
  CHECK(s.moe.expert_intermediate == 7168);
  const Evaluation e = evaluate(m, decode(16, 2048, 2, 1, 1), h200(), &h200_cal());  // tp 2, no ep
  // TP on a MoE layer: one all-reduce after the experts (routed + shared summed), none after down_proj.
  CHECK(op_named(e.step, "experts.all_reduce").collective_bytes == 16.0 * 4096 * 2);
  Workload w = decode(16, 2048, 1);
  w.parallel.ep = 2;
  const Evaluation x = evaluate(m, w, h200(), &h200_cal());
  REQUIRE(x.parallel);
  // Each GPU attends for 16 / 2 sequences and sends their 8 x top-2 rows of 4096 bf16 each way.
  CHECK(op_named(x.step, "attention").attention.batch == 8);
  const Op& dispatch = op_named(x.step, "experts.dispatch");
  CHECK(dispatch.collective == CollectiveOp::all_to_all);
  CHECK(dispatch.collective_gpus == 2);
  CHECK(dispatch.collective_bytes == 8.0 * 2 * 4096 * 2);
  CHECK(op_named(x.step, "experts.combine").collective_bytes == dispatch.collective_bytes);
  CHECK(x.parallel->gpus == 2);
  CHECK(x.parallel->tokens_per_s == test::approx(16 / x.parallel->step_time_s));
  // Per GPU: half the experts' weights, the attention's whole; the KV cache of 8 sequences.
  const Evaluation one = evaluate(m, decode(16, 2048, 1), h200(), &h200_cal());
  const double expert_bytes = 32 * 8 * 3.0 * 4096 * 14336 * 2;
  // The router is counted over the GPU's 4 experts (shard.cpp: a d x E/ep router, the known
  // undercount of half of 32 x 8 x 4096 bf16 = 1 MiB).
  const double router_bytes = 32 * 8 * 4096.0 * 2;
  CHECK(x.analysis.memory.weights == test::approx(one.analysis.memory.weights - expert_bytes / 2 - router_bytes / 2));
  CHECK(x.analysis.memory.kv == test::approx(one.analysis.memory.kv / 2));
}
