// Issue 10, the compiled profile's whole decode steps: Hugging Face models under torch.compile
// (reduce-overhead, StaticCache) cut to 4 layers, validation/results/h200-compiled/hf.json, re-run
// here as compare_compiled.py runs them (perfmodel at --ctx kv_len: the static cache attends over all
// its slots). What was fitted where:
// - cuDNN's decode SDPA (cudnn_decode:) on the even torch.sdpa.cudnn decode cases of
//   validation/results/h200-production/kernels.json; no step was used, the odd cases are held out;
// - graph_call_host on steps 0, 2, 4, 6 of hf.json (fit_compiled.py); steps 1, 3, 5 are held out.
// The figures are those the results README and docs/accuracy.md report; a change that moves them
// past these bounds fails here.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "cudnn_decode_law.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct StepError {
  int index = 0;
  bool fitted = false;  // graph_call_host was fitted on it
  double graph = 0;     // step.time_s / device_s - 1 (the graph replay, CUDA events around a call)
  double predicted_s = 0, measured_s = 0;  // step.time_s and device_s
  double kernels = 0;   // step.device_time_s / kernel_s - 1 (the profiler's kernel sum)
  double sdpa = 0;      // the SDPA op against cuDNN's SDPA (+ lean_reduction) kernels of the step
  int64_t launches = 0;
  double measured_kernels = 0;
};

const Calibration& h200_calibration() {
  static const Calibration c = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return c;
}

double named_kernels_s(const YAML::Node& top, const std::string& prefix) {
  double t = 0;
  for (const auto& k : top)
    if (k.first.as<std::string>().rfind(prefix, 0) == 0) t += k.second.as<double>();
  return t;
}

// Every step of a compare_compiled.py file (hf.json's format), priced as the cut model at --ctx kv_len.
std::vector<StepError> errors_of(const std::string& file) {
  std::vector<StepError> out;
  const YAML::Node root = YAML::LoadFile(test::root() + file);
  const Card card = test::catalogue().card("h200");
  int index = -1;
  for (const auto& s : root["steps"]) {
    if (!s["ok"].as<bool>()) continue;
    ++index;
    Model m = test::catalogue().model(s["model"].as<std::string>());
    m.layers = s["layers"].as<int64_t>();
    Workload w;
    w.phase = Phase::decode;
    w.batch = s["batch"].as<int64_t>();
    w.ctx = s["kv_len"].as<int64_t>();
    w.impl = Impl::compiled;
    const Evaluation e = evaluate(m, w, card, &h200_calibration());
    StepError r;
    r.index = index;
    r.fitted = index % 2 == 0;
    r.predicted_s = e.cost.time_s;
    r.measured_s = s["device_s"].as<double>();
    r.graph = r.predicted_s / r.measured_s - 1;
    r.kernels = e.cost.device_time_s / s["kernel_s"].as<double>() - 1;
    double sdpa = 0;
    for (size_t i = 0; i < e.step.ops.size(); ++i) {
      const Op& op = e.step.ops[i];
      r.launches += op.launches * op.count;
      if (op.kernel == KernelId::attention_decode_cudnn) sdpa += static_cast<double>(op.count) * e.cost.ops[i].device_time_s;  // kernel time, no in-graph gap
    }
    const YAML::Node top = s["top_kernels_s"];
    const double measured_sdpa = named_kernels_s(top, "cudnn_generated_fort_native_sdpa") +
                                 named_kernels_s(top, "void cudnn::fusion::lean_reduction_kernel");
    r.sdpa = sdpa / measured_sdpa - 1;
    r.measured_kernels = s["kernels_per_step"].as<double>();
    out.push_back(r);
  }
  return out;
}

const std::vector<StepError>& step_errors() {
  static const std::vector<StepError> errors = errors_of("/validation/results/h200-compiled/hf.json");
  return errors;
}

std::vector<double> abs_errors(double StepError::*field, int which) {  // which: 0 fit, 1 held out, 2 all
  std::vector<double> v;
  for (const StepError& e : step_errors())
    if (which == 2 || e.fitted == (which == 0)) v.push_back(std::fabs(e.*field));
  return v;
}

}  // namespace

TEST_CASE("compiled decode steps: 7 measured, graph replay and kernel sum within the achieved error") {
  REQUIRE(step_errors().size() == 7);
  const std::vector<double> graph_fit = abs_errors(&StepError::graph, 0), graph_held = abs_errors(&StepError::graph, 1);
  const std::vector<double> kernels = abs_errors(&StepError::kernels, 2);
  REQUIRE(graph_fit.size() == 4);
  REQUIRE(graph_held.size() == 3);
  CAPTURE(quantile(graph_fit, 0.5));
  CAPTURE(quantile(graph_held, 0.5));
  CAPTURE(quantile(kernels, 0.5));
  CAPTURE(quantile(kernels, 0.9));
  // Before this model: graph replay 16.1 % median, kernel sum 21.9 % (all over). The fit steps'
  // median moved 7.0 -> 7.3 % when cudnn_decode was refitted on 60 cases with cta_latency (its
  // held-out error 3.1 / 26.2 % and 6.1 / 28.5 % -> 4.4 / 13 % over both sets).
  CHECK(quantile(graph_fit, 0.5) <= 0.075);
  // The held-out steps' graph replay against the mean of this run and h200-freshhost's re-measurement of
  // the same points (branch compdef). Their kernels repeat within 2 %, the host before the replay does not:
  // the median held-out step, Llama-2-7B L4 b1, 1.152 ms here and 0.941 ms there, 18 % apart. This run alone:
  // 14.2 % before branch compdef, 16.2 % after it (its kernel sum +1.5 -> -1.7 %, the host's 469 us against
  // the law's 264 no longer offset); h200-freshhost alone 4.5 -> 4.5 %; the two runs' mean 6.0 -> 7.7 %.
  const std::vector<StepError> fresh = errors_of("/validation/results/h200-freshhost/hf.json");
  REQUIRE(fresh.size() == step_errors().size());
  std::vector<double> graph_held_two_runs;
  for (size_t i = 0; i < fresh.size(); ++i)
    if (!step_errors()[i].fitted)
      graph_held_two_runs.push_back(std::fabs(step_errors()[i].predicted_s / (0.5 * (step_errors()[i].measured_s + fresh[i].measured_s)) - 1));
  CAPTURE(quantile(graph_held_two_runs, 0.5));
  MESSAGE("compiled held-out graph median: this run " << 100 * quantile(graph_held, 0.5) << " %, two runs' mean "
                                                       << 100 * quantile(graph_held_two_runs, 0.5) << " %");
  CHECK(quantile(graph_held_two_runs, 0.5) <= 0.15);
  CHECK(quantile(kernels, 0.5) <= 0.03);
  CHECK(quantile(kernels, 0.9) <= 0.04);
  for (const StepError& e : step_errors()) {
    CAPTURE(e.index);
    CHECK(std::isfinite(e.graph));
    CHECK(std::fabs(e.graph) <= 0.21);
  }
}

// The same seven steps measured again on another lease, each in a fresh Python process
// (validation/results/h200-freshhost, 2026-12-03; nothing fitted on this run). The kernel sums moved
// within 2 % of h200-compiled's; the graph replay's host part did not: graph - kernel sum per step
// 199 / 285 / 335 / 469 / 260 / 651 / 695 us there, 480 / 465 / 487 / 246 / 207 / 523 / 550 us here (the
// two Llama-3-8B and Qwen2.5-7B GQA models twice Llama-2-7B's in fresh processes; not the process's
// history of earlier compiles, which the first run's rising order had suggested). Figures: graph 5.9 %
// median, 12.7 % p90 (held-out 1, 3, 5: 4.5 %), kernels 1.9 / 3.3 % when measured; since branch compdef
// (the compiled GEMM block and lowering) graph 4.8 / 12.6 % (held out 4.5 %), kernels 2.3 / 3.8 %.
TEST_CASE("compiled decode steps re-measured in fresh processes (h200-freshhost): graph replay and kernel sum") {
  const std::vector<StepError> e = errors_of("/validation/results/h200-freshhost/hf.json");
  REQUIRE(e.size() == 7);
  std::vector<double> graph, kernels;
  for (const StepError& s : e) {
    CAPTURE(s.index);
    REQUIRE(std::isfinite(s.graph));
    REQUIRE(std::isfinite(s.kernels));
    CHECK(std::fabs(s.graph) <= 0.15);    // worst -13.5 % (Qwen2.5-7B b8: its host 523 us against the law's 272)
    CHECK(std::fabs(s.kernels) <= 0.05);  // worst +4.3 % (since branch compdef: -4.2 %)
    graph.push_back(std::fabs(s.graph));
    kernels.push_back(std::fabs(s.kernels));
  }
  CAPTURE(quantile(graph, 0.5));
  CAPTURE(quantile(kernels, 0.5));
  CHECK(quantile(graph, 0.5) <= 0.07);
  CHECK(quantile(kernels, 0.5) <= 0.025);
}

TEST_CASE("compiled decode SDPA is cuDNN's 16-row-tile kernel: memory-bound, held out on every step") {
  // No step was used to fit cudnn_decode: each step's SDPA (4 layers, + lean_reduction at batch 1)
  // against the kernel names of its profile.
  const std::vector<double> sdpa = abs_errors(&StepError::sdpa, 2);
  REQUIRE(sdpa.size() == 7);
  CAPTURE(quantile(sdpa, 0.5));
  CAPTURE(quantile(sdpa, 0.9));
  CHECK(quantile(sdpa, 0.5) <= 0.08);
  CHECK(quantile(sdpa, 0.9) <= 0.13);
  // Llama-3-8B b64 over 1064 slots: the expanded K/V (1.115 GB a layer) streams; the padded
  // 16-row tiles' MMA work is far below it.
  const Roofs r = make_roofs(test::catalogue().card("h200"), &h200_calibration(), Impl::compiled);
  const OpCost big = price(ops::attention_decode_cudnn("a", 64, 32, 32, 1064, 128, DType::bf16, DType::bf16), r, Impl::fused);
  CHECK(big.bound == Bound::memory);
  CHECK(big.compute_time_s < 0.2 * big.memory_time_s);
  // 2048 CTAs, one per SM at a time with the StaticCache's mask: 16 waves of 132, the last one 68 % full.
  const Op big_op = ops::attention_decode_cudnn("a", 64, 32, 32, 1064, 128, DType::bf16, DType::bf16);
  CHECK(big_op.bytes() == test::approx(2.0 * 64 * 32 * 1064 * 128 * 2 + 2.0 * 64 * 32 * 128 * 2));  // K, V; q, o
  CHECK(big.memory_time_s == test::approx(big_op.bytes() / (4293.2e9 * 2048 / (16 * 132))).epsilon(1e-6));
  // Without a mask (the eager profile, the harness cases; the fused profile keeps the old rule): two CTAs resident an
  // SM (183 registers a thread and 84 KiB of shared memory, Nsight Compute, validation/results/h200-decodeocc; three
  // from the shared memory alone before branch decodeocc): 7 waves of 264, then 200 CTAs, each wave two CTAs on
  // some SMs, so its CTAs' walks (9 tiles) and the card's stream join (branch decodeknee).
  const Roofs eager = make_roofs(test::catalogue().card("h200"), &h200_calibration(), Impl::eager);
  const double per_cta = big_op.bytes() / 2048;
  const double big_walk = cudnn_law::walk(per_cta, 9);
  CHECK(big_walk < 200 * per_cta / cudnn_law::kStream);
  CHECK(price(big_op, eager, Impl::fused).memory_time_s ==
        test::approx(7 * cudnn_law::joined(264 * per_cta / cudnn_law::kStream, big_walk) +
                     cudnn_law::joined(200 * per_cta / cudnn_law::kStream, big_walk)).epsilon(1e-6));
  // 272 CTAs: a full wave of 264 and 8 CTAs, one an SM, that each walk at their own rate (the sweep's step from 68 to
  // 85 us): the tail's walk alone, its 16 whole tiles.
  const Op tail_op = ops::attention_decode_cudnn("t", 34, 32, 8, 2048, 128, DType::bf16, DType::bf16);
  const double tail_cta = tail_op.bytes() / 272, tail_walk = cudnn_law::walk(tail_cta, 16);
  CHECK(price(tail_op, eager, Impl::fused).memory_time_s ==
        test::approx(cudnn_law::joined(264 * tail_cta / cudnn_law::kStream, tail_walk) + tail_walk).epsilon(1e-6));
  // Batch 1: 32 CTAs leave most of the 132 SMs idle, so cuDNN splits the keys (by the key
  // count: 17 tiles, 8 ways, 256 CTAs in two waves of one an SM; branch cudnnsplit) and the
  // lean_reduction kernel merges them; batch 8 x 28 heads (224 CTAs) runs one kernel. The split
  // kernel's fitted floor (a single-call harness time) less the idle after it where the profile
  // prices kernels alone (harness_idle; 0 without the key); the merge at its in-graph time (1.92 us,
  // h200-graphroles) plus the graph's gap before it (the op counts one launch).
  const double idle = r.harness_idle_s;
  const OpCost b1 = price(ops::attention_decode_cudnn("a", 1, 32, 32, 2088, 128, DType::bf16, DType::bf16), r, Impl::fused);
  CHECK(b1.time_s - b1.memory_time_s == test::approx(4.398e-6 - idle + 1.92e-6 + r.graph_kernel_gap_s).epsilon(1e-3));
  const Op b1_op = ops::attention_decode_cudnn("a", 1, 32, 32, 2088, 128, DType::bf16, DType::bf16);
  CHECK(b1.memory_time_s == test::approx(b1_op.bytes() / (4293.2e9 * 256 / 264)).epsilon(1e-6));
  const OpCost b8 = price(ops::attention_decode_cudnn("a", 8, 28, 28, 1064, 128, DType::bf16, DType::bf16), r, Impl::fused);
  CHECK(b8.time_s - b8.memory_time_s == test::approx(4.398e-6 - idle).epsilon(1e-3));
  // 112 CTAs (Qwen2.5 b4) fill 112 of 132 SMs: masked, they stream at that share of the rate;
  // unmasked each could read 45.8 GB/s, 5.1 TB/s together, so the card's rate binds.
  const Op q4 = ops::attention_decode_cudnn("a", 4, 28, 28, 4136, 128, DType::bf16, DType::bf16);
  CHECK(price(q4, r, Impl::fused).memory_time_s == test::approx(q4.bytes() / (4293.2e9 * 112 / 132)).epsilon(1e-6));
  CHECK(price(q4, eager, Impl::fused).memory_time_s == test::approx(q4.bytes() / cudnn_law::kStream).epsilon(1e-6));
  // 24 CTAs over 40 key tiles split 8 ways (cuDNN's count: the largest power of two within the whole tiles and two
  // CTAs an SM, at most 64; branch splitgrid, validation/results/h200-splitgrid): 192 CTAs, each walking 640 keys
  // (5 tiles), at head dim 128 one wave of the 264 slots, walk and stream joined (two CTAs on some SMs); at head dim
  // 256 the same 192 split units (two CTAs each) run in two waves of the 132 unit slots, their tile's work unhidden:
  // 264 CTAs, two on every SM (joined), then 120, one an SM (the larger).
  const Op w128 = ops::attention_decode_cudnn("a", 3, 16, 8, 5120, 128, DType::bf16, DType::bf16);
  CHECK(price(w128, eager, Impl::fused).memory_time_s ==
        test::approx(cudnn_law::joined(w128.bytes() / cudnn_law::kStream, cudnn_law::walk(w128.bytes() / 192, 5)))
            .epsilon(1e-6));
  CHECK(192 * cudnn_law::rate(128) > 1.9 * cudnn_law::kStream);
  const Op w256 = ops::attention_decode_cudnn("a", 3, 16, 8, 5120, 256, DType::bf16, DType::bf16);
  const double unit256 = w256.bytes() / 192, walk256 = cudnn_law::walk(unit256, 5, true);
  CHECK(price(w256, eager, Impl::fused).memory_time_s ==
        test::approx(cudnn_law::joined(132 * unit256 / cudnn_law::kStream, walk256) +
                     std::max(60 * unit256 / cudnn_law::kStream, walk256)).epsilon(1e-6));
  // A walk of one key tile at 1024 CTAs (8 waves of 132): each wave waits on a CTA's first tile,
  // at least cta_latency (2.71 us at head dim 128, half at 64); 512 keys do not split even at 32 CTAs.
  const OpCost short_walk = price(ops::attention_decode_cudnn("a", 128, 32, 8, 128, 128, DType::bf16, DType::bf16), r, Impl::fused);
  CHECK(short_walk.memory_time_s == test::approx(8 * 2.71e-6).epsilon(1e-6));
  const OpCost d64 = price(ops::attention_decode_cudnn("a", 256, 16, 4, 128, 64, DType::bf16, DType::bf16), r, Impl::fused);
  CHECK(d64.memory_time_s == test::approx(8 * 2.71e-6 / 2).epsilon(1e-6));
  const OpCost unsplit = price(ops::attention_decode_cudnn("a", 8, 28, 4, 512, 128, DType::bf16, DType::bf16), r, Impl::fused);
  CHECK(unsplit.time_s - unsplit.memory_time_s == test::approx(4.398e-6 - idle).epsilon(1e-3));
}

TEST_CASE("cuDNN decode kernel cases: fitted on the even ones of two sets, the odd ones held out") {
  // validation/results/h200-production (20 cuDNN decode cases, long walks and few CTAs) and
  // h200-cudnn-decode (100, batch 8-256 x 128-2048 keys): fit_compiled.py fits the four
  // cudnn_decode terms on the even cases of both. Before cta_latency and the split rule's key
  // count, the odd cases were 3.1 % / 26.2 % (h200-production) and 6.1 % / 28.5 % (the grid) off,
  // median / p90: the grid's short walks at many CTAs ran 25-35 % slower than priced.
  // Single-call harness times: the floors as fitted on them (harness_idle_s off: a floor priced
  // alone gets the idle after its kernel back, as profile_accuracy.cpp compares).
  // The harness calls pass no mask: the eager profile's roofs (the same cudnn_decode block).
  Roofs r = make_roofs(test::catalogue().card("h200"), &h200_calibration(), Impl::eager);
  r.harness_idle_s = 0;
  std::vector<double> held, fit;
  for (const char* set : {"h200-production", "h200-cudnn-decode"}) {
    Measurements m;
    load_measurements(test::root() + "/validation/results/" + set + "/kernels.json", m);
    for (const MeasuredCase& c : m.cases) {
      if (c.implementation != "torch.sdpa.cudnn" || c.kernel.kernel != KernelId::attention_decode) continue;
      const KernelCase& k = c.kernel;
      const Op op = ops::attention_decode_cudnn(k.name, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim, k.dtype, k.dtype);
      const double e = std::fabs(price(op, r, Impl::fused).time_s / c.measured_s - 1);
      (c.index % 2 == 1 ? held : fit).push_back(e);
    }
  }
  REQUIRE(held.size() == 60);
  REQUIRE(fit.size() == 60);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.05);
  CHECK(quantile(held, 0.9) <= 0.14);
  CHECK(quantile(fit, 0.5) <= 0.05);
}

TEST_CASE("cuDNN decode kernel at shapes measured after every fit (h200-heldout16): odd cases held out") {
  // validation/results/h200-heldout16: 12 cuDNN decode cases at head dims 64 / 128 / 256, GQA
  // groups 1-8, 8-1600 CTAs, measured after the old model. Branch decode16 fitted the cudnn_decode
  // block on its 6 even cases too (with the even ones of the two sets above); the odd ones are held
  // out. Before (the one-CTA-per-SM fill rule, fitted without this set): 4.2 / 37.6 % over all 12,
  // 22.3 / 41.5 % over the odd 6 (b160 kv1 +41 %, b24 group 7 +24 %, b48 d64 +21 %, d256 split -38 %).
  // The power-of-two split count was chosen after seeing the two d256 split cases (#25 here,
  // h200-production #97), both held out: #25 is -28 % with every SM splitting instead.
  Roofs r = make_roofs(test::catalogue().card("h200"), &h200_calibration(), Impl::eager);  // no mask
  r.harness_idle_s = 0;  // single-call harness times, as the floors were fitted
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-heldout16/kernels.json", m);
  std::vector<double> held, all;
  for (const MeasuredCase& c : m.cases) {
    if (c.implementation != "torch.sdpa.cudnn" || c.kernel.kernel != KernelId::attention_decode) continue;
    const KernelCase& k = c.kernel;
    const Op op = ops::attention_decode_cudnn(k.name, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim, k.dtype, k.dtype);
    const double e = std::fabs(price(op, r, Impl::fused).time_s / c.measured_s - 1);
    CAPTURE(k.name);
    CHECK(e <= 0.06);  // every case: 4.6 % the worst
    all.push_back(e);
    if (c.index % 2 == 1) held.push_back(e);
  }
  REQUIRE(all.size() == 12);
  REQUIRE(held.size() == 6);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(all, 0.5));
  CAPTURE(quantile(all, 0.9));
  CHECK(quantile(held, 0.5) <= 0.045);  // 3.7 %
  CHECK(quantile(all, 0.5) <= 0.035);   // 2.6 %
  CHECK(quantile(all, 0.9) <= 0.05);    // 4.2-4.6 % (quantile rule)
}

TEST_CASE("compiled steps count the per-step kernels Inductor and the cudagraph tree launch") {
  for (const StepError& e : step_errors()) {
    CAPTURE(e.index);
    // Still fewer than measured: cuBLAS's splitKreduce kernels, cuDNN's lean_reduction and the
    // profiler's memcpy/memset records are priced in time or not modelled (README).
    CHECK(e.launches < e.measured_kernels);
    CHECK(e.launches >= 0.7 * e.measured_kernels);
  }
}

namespace {

// validation/results/h200-host-probe/probe.jsonl: one JSON record a line.
std::vector<YAML::Node> probe_records(const std::string& mode) {
  std::ifstream in(test::root() + "/validation/results/h200-host-probe/probe.jsonl");
  std::vector<YAML::Node> out;
  for (std::string line; std::getline(in, line);) {
    const YAML::Node r = YAML::Load(line);
    if (r["mode"].as<std::string>() == mode) out.push_back(r);
  }
  return out;
}

Evaluation compiled_step(const YAML::Node& r, Phase phase, int64_t ctx) {
  Model m = test::catalogue().model(r["model"].as<std::string>());
  m.layers = r["layers"].as<int64_t>();
  Workload w;
  w.phase = phase;
  w.batch = r["batch"].as<int64_t>();
  w.ctx = ctx;
  w.impl = Impl::compiled;
  return evaluate(m, w, test::catalogue().card("h200"), &h200_calibration());
}

}  // namespace

TEST_CASE("compiled: the graph replay's own gaps and the host before it, measured apart (h200-host-probe)") {
  const std::vector<YAML::Node> points = probe_records("compiled");
  REQUIRE(points.size() == 4);
  for (const YAML::Node& r : points) {
    CAPTURE(r["layers"].as<int>());
    CAPTURE(r["batch"].as<int>());
    const double kernels = r["kernel_s"].as<double>(), alone = r["graph_pure_s"].as<double>();
    const double host = r["pre_replay_s"].as<double>(), replay = r["device_s"].as<double>();
    // With the GPU's queue full, the replay runs within 0.3-0.7 us per kernel of its kernel sum;
    // the host's time before CUDAGraph.replay is most of what the unfilled events add.
    CHECK(alone - kernels < 0.7e-6 * r["kernels_per_step"].as<double>());
    CHECK(replay - alone > 0.5 * host);
    CHECK(host > 0.2e-3);
    // Priced: kernel sum + graph_kernel_gap x launches + graph_call_host (graph_kernel_gap fitted on
    // these 4 points, graph_call_host on 4 other steps). Before the gap was priced: +9.1 %, -9.3 %,
    // -4.5 %, -20.0 %; now +7.4 %, -7.6 %, -3.7 %, -19.9 % (the Qwen point's host, 936 us, is
    // 3.6 x the fitted one).
    const Evaluation e = compiled_step(r, Phase::decode, r["kv_len"].as<int64_t>());
    const double err = e.cost.time_s / replay - 1;
    CHECK(std::fabs(err) <= (r["model"].as<std::string>() == "qwen2.5-7b" ? 0.20 : 0.08));
    CHECK(std::fabs(e.cost.device_time_s / kernels - 1) <= 0.05);  // 4.5 -> 4.6 % after the cudnn_decode refit
  }
}

TEST_CASE("compiled: TinyLlama's 22-layer graph (h200-validate-impl), held out from every fit") {
  // validate --on-gpu --impl compiled, b8 ctx1024 (+40 static slots): graph replay 2.917 ms.
  // Before the in-graph gap was priced: 2.606 ms (-10.7 %); now -5.5 %.
  Model m = test::catalogue().model("tinyllama");
  Workload w;
  w.batch = 8;
  w.ctx = 1064;
  w.impl = Impl::compiled;
  const Evaluation e = evaluate(m, w, test::catalogue().card("h200"), &h200_calibration());
  CHECK(std::fabs(e.cost.time_s / 2.917e-3 - 1) <= 0.06);
}

TEST_CASE("compiled prefill is the eager step: against the static-cache eager prefill generate() runs") {
  // h200-host-probe: Llama-3-8B cut to 4 layers, one sequence, a StaticCache of ctx + 64 slots,
  // the uncompiled forward (what generate() runs before its compiled decode steps). Kernel sums
  // 2.328 ms and 7.274 ms; the eager lowering prices -4.3 % and +1.6 % (the compiled lowering
  // priced before: -22 % and +3 %; with FlashAttention-2's prefill rates, before the kernel names
  // showed cuDNN's sm90 prefill kernel there: -3.5 % and +2.0 %).
  const std::vector<YAML::Node> points = probe_records("prefill_static_eager");
  REQUIRE(points.size() == 2);
  for (const YAML::Node& r : points) {
    CAPTURE(r["ctx"].as<int>());
    const Evaluation e = compiled_step(r, Phase::prefill, r["ctx"].as<int64_t>());
    CHECK(std::fabs(e.cost.device_time_s / r["kernel_s"].as<double>() - 1) <= 0.045);
  }
}

TEST_CASE("Inductor's decode: the kernels around the attention as h200-compiled2's traces hold them (branch compfuse)") {
  // What the compiled profile's lowering must match (validation/results/h200-compfuse/README.md; the
  // lowering itself is the opt-in compfuse.patch there). Per layer, named by the fused ops Inductor
  // puts in a kernel's name (cut at 70 characters): k's rotary WITH the K index_copy_ into the static
  // cache (`cos_index_co`), the V index_copy_ (`index_copy_transpose_view`), and the SDPA's inputs
  // (`scaled_dot_product_cudnn_attention__to_copy`): q's rotary, the mask and, with GQA, repeat_kv's
  // two expands of the cache. Without GQA (Llama-2-7B) q's and k's rotary and the K write are one
  // SDPA-input kernel. And one `add_copy_` per layer at the step's end (priced once a step by default).
  std::ifstream in(test::root() + "/validation/results/h200-compiled2/compiled2.jsonl");
  int steps = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const YAML::Node r = YAML::Load(line);
    CAPTURE(r["model"].as<std::string>());
    CAPTURE(r["batch"].as<int>());
    const int64_t layers = r["layers"].as<int64_t>();
    const Model m = test::catalogue().model(r["model"].as<std::string>());
    const bool gqa = m.kv_heads < m.heads;
    int64_t rope_k = 0, v_write = 0, sdpa_inputs = 0, big_inputs = 0, add_copy = 0;
    const int64_t cache_threads = r["batch"].as<int64_t>() * r["kv_len"].as<int64_t>() * m.heads * m.head_dim;
    for (const YAML::Node& k : r["trace"]) {
      const std::string name = k[0].as<std::string>();
      const int64_t threads = k[3].as<int64_t>() * k[4].as<int64_t>();
      if (name.find("cos_index_co") != std::string::npos) ++rope_k;
      if (name.find("index_copy_transpose_view") != std::string::npos) ++v_write;
      if (name.find("scaled_dot_product_cudnn_attention__to_copy") != std::string::npos) {
        ++sdpa_inputs;
        if (threads * 16 >= cache_threads) ++big_inputs;  // an expand of the whole cache (8 elements a thread)
      }
      if (name.find("add_copy_") != std::string::npos) ++add_copy;
    }
    CHECK(rope_k == (gqa ? layers : 0));
    CHECK(v_write == layers);
    CHECK(sdpa_inputs == (gqa ? 4 : 2) * layers);
    CHECK(big_inputs == (gqa ? 2 : 0) * layers);
    CHECK(add_copy == layers);
    ++steps;
  }
  CHECK(steps == 9);
}
