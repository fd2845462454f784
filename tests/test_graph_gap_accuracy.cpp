// Issue 10, task graph: time between kernels in CUDA-graph steps.
// - validation/results/h200-compiled2/compiled2.jsonl: 9 torch.compile (reduce-overhead) decode steps
//   of Hugging Face models at 8-32 layers (TinyLlama-1.1B full depth, Llama-3-8B full depth,
//   Qwen2.5-7B 16, Llama-2-7B 8 and 12, Mistral-7B 8), measured by compiled_gaps.py. No perfmodel
//   value was fitted on any of them (graph_kernel_gap: h200-host-probe; graph_call_host: steps 0, 2,
//   4, 6 of h200-compiled; cudnn_decode: kernel cases). Compared on the wall time per step (what a
//   user waits), as compare_compiled.py does.
// - the per-boundary gaps of their profiled replays: what sets the gap (fit_graph_gap.py).
// - the fused step as the GPU-alone replay (kernels + graph_kernel_gap per launch, fitted on
//   h200-fused-step-alone's replays behind a GPU spin) plus the host's cudaGraphLaunch as host time
//   (graph_launch_per_node), fitted and held out there (branch graphhost11); every step of
//   h200-fused-step-cudnn held out of both (tests/test_fused_step_accuracy.cpp guards them too; here
//   the fit itself).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const Calibration& h200() {
  static const Calibration c = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return c;
}

std::vector<YAML::Node> jsonl(const std::string& path) {
  std::ifstream in(test::root() + path);
  std::vector<YAML::Node> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(YAML::Load(line));  // one JSON record a line
  return out;
}

// rest_s: the seconds the GPU rested before each timed replay (Workload::gpu_rest_s; the power cap).
Evaluation price(const YAML::Node& r, Impl impl, int64_t ctx, double rest_s = 0) {
  Model m = test::catalogue().model(r["model"].as<std::string>());
  if (r["layers"] && impl == Impl::compiled) m.layers = r["layers"].as<int64_t>();
  m.max_positions = std::max(m.max_positions, ctx);  // fused_step.py ran TinyLlama past its 2048 positions
  Workload w;
  w.phase = r["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
  w.batch = r["batch"].as<int64_t>();
  w.ctx = ctx;
  w.impl = impl;
  w.gpu_rest_s = rest_s;
  return evaluate(m, w, test::catalogue().card("h200"), &h200());
}

int64_t launches(const Evaluation& e) {
  int64_t n = 0;
  for (const Op& op : e.step.ops) n += op.launches * op.count;
  return n;
}

}  // namespace

TEST_CASE("compiled decode steps at 8-32 layers (h200-compiled2), all held out: wall per step") {
  std::vector<double> wall, kernels, alone;
  for (const YAML::Node& r : jsonl("/validation/results/h200-compiled2/compiled2.jsonl")) {
    REQUIRE(r["ok"].as<bool>());
    CAPTURE(r["model"].as<std::string>());
    CAPTURE(r["layers"].as<int>());
    CAPTURE(r["batch"].as<int>());
    const Evaluation e = price(r, Impl::compiled, r["kv_len"].as<int64_t>());
    const double we = e.cost.time_s / r["wall_s"].as<double>() - 1;
    const double ke = e.cost.device_time_s / r["kernel_s"].as<double>() - 1;
    CHECK(std::isfinite(we));
    // The worst: Llama-3-8B at 32 layers (-14.3 %: its host before the replay, 1852 us, is 7x the
    // fitted graph_call_host) and Llama-2-7B L12 b32, the second shape of its process (-14.3 %).
    CHECK(std::fabs(we) <= 0.15);
    CHECK(std::fabs(ke) <= 0.045);  // the kernels: -4.0 to +2.3 %
    wall.push_back(std::fabs(we));
    kernels.push_back(std::fabs(ke));
    // The device claim like with like (branch graphhost11): the replay with the host kept out (a GPU
    // spin queued first, graph_pure_s) against the step less its host time (graph_call_host): the
    // kernels and graph_kernel_gap per launch. -5.2 to +3.1 %: the wall's misses are the host's.
    const double ae = (e.cost.time_s - e.cost.host_time_s) / r["graph_pure_s"].as<double>() - 1;
    if (std::getenv("GAP_DEBUG")) std::printf("%-16s L%2d b%2d wall %+6.2f kern %+6.2f alone %+6.2f\n", r["model"].as<std::string>().c_str(), r["layers"].as<int>(), r["batch"].as<int>(), 100*we, 100*ke, 100*ae);
    CHECK(std::fabs(ae) <= 0.055);
    alone.push_back(std::fabs(ae));
  }
  REQUIRE(wall.size() == 9);
  CAPTURE(quantile(alone, 0.5));
  // Branch cudnnsplit (the b1 steps' cuDNN split priced by its key-count grid, the merge at its
  // in-graph time): GPU-alone median 0.63 -> 0.88 %, kernels 0.89 -> 0.60 %; under compblock's
  // opt-in 1.80 -> 1.43 % and 1.38 -> 0.99 % (docs/accuracy-notes.md, "Branch cudnnsplit").
  // Branch graphgap (TinyLlama's one-row add+RMSNorm, one 512-thread CTA: its chain under 8 elements
  // a thread, inductor_one_row.cpp): GPU-alone 0.88 -> 0.64 %, kernels 0.60 -> 0.96 % (TinyLlama's
  // -0.60 % was its GEMMs' -8.9 % under its norms' +54 %: now -1.37 %); under compblock's opt-in
  // 1.43 -> 0.89 % and 0.99 -> 0.71 % (the median TinyLlama +0.89 %, then Qwen2.5-7B b1 -1.43 %).
  CHECK(quantile(alone, 0.5) <= 0.011);  // 0.64 %
  CAPTURE(quantile(wall, 0.5));
  CAPTURE(quantile(kernels, 0.5));
  CHECK(quantile(wall, 0.5) <= 0.04);     // 3.2 % (issue 10's target: 10 %)
  CHECK(quantile(kernels, 0.5) <= 0.01);  // 0.96 %
}

TEST_CASE("the compiled decode lowers to Inductor's kernels around the attention (h200-compiled2's traces)") {
  // Per layer, the small Inductor kernels between the k / v GEMMs and cuDNN's SDPA, counted off the
  // nine traces by name: k's rotary with the K index_copy_ (`..._cos_index_copy_...`), the V write
  // (`..._index_copy_transpose_view_...`) and the SDPA's inputs (`..._scaled_dot_product_cudnn_
  // attention__to_copy_...`: q's rotary, with GQA repeat_kv's two expands, the mask); and the
  // per-layer `add_copy_` at the step's end. The step prices as many launches of each (branch
  // compfuse; before it, GQA 5 a layer against 6 and one add_copy a step).
  for (const YAML::Node& r : jsonl("/validation/results/h200-compiled2/compiled2.jsonl")) {
    CAPTURE(r["model"].as<std::string>());
    CAPTURE(r["batch"].as<int>());
    const int64_t layers = r["layers"].as<int64_t>();
    int64_t small = 0, add_copy = 0;
    for (const YAML::Node& k : r["trace"]) {
      const std::string name = k[0].as<std::string>();
      if (name.find("index_co") != std::string::npos ||  // names cut at 70 characters
          name.find("scaled_dot_product_cudnn_attention__to_copy") != std::string::npos)
        ++small;
      if (name.find("add_copy_") != std::string::npos) ++add_copy;
    }
    const Evaluation e = price(r, Impl::compiled, r["kv_len"].as<int64_t>());
    int64_t priced_small = 0, priced_add_copy = 0;
    for (const Op& op : e.step.ops) {
      const bool prep = op.kernel == KernelId::rotary || op.kernel == KernelId::kv_append ||
                        op.name.ends_with(".mask") || op.name.ends_with(".repeat_kv");
      if (prep) priced_small += op.launches * op.count;
      if (op.name == "add_copy") priced_add_copy += op.launches * op.count;
    }
    const Model m = test::catalogue().model(r["model"].as<std::string>());
    CHECK(small == (m.kv_heads < m.heads ? 6 : 3) * layers);  // what the traces hold...
    CHECK(priced_small == small);                               // ...and what the step prices
    CHECK(add_copy == layers);
    CHECK(priced_add_copy == add_copy);
  }
}

TEST_CASE("the compiled SiLU*mul: up just written, gate only as far as up's weight stream leaves it") {
  // Every layer of the nine traces runs norm, gate GEMM, up GEMM, SiLU*mul (branch graphroles). The
  // kernel's median over the step's layers against the act_mul op (device time, no in-graph gap): with
  // both inputs priced L2-warm (branch compfuse) the 7-8B models' -8 to -23 %, TinyLlama's 0 %.
  std::vector<double> errs;
  for (const YAML::Node& r : jsonl("/validation/results/h200-compiled2/compiled2.jsonl")) {
    CAPTURE(r["model"].as<std::string>());
    CAPTURE(r["batch"].as<int>());
    std::vector<double> silu;
    for (const YAML::Node& k : r["trace"])
      if (k[0].as<std::string>().find("mul_silu") != std::string::npos) silu.push_back(k[1].as<double>() * 1e-6);
    REQUIRE(silu.size() == r["layers"].as<size_t>());
    const Evaluation e = price(r, Impl::compiled, r["kv_len"].as<int64_t>());
    double priced = 0;
    for (size_t i = 0; i < e.step.ops.size(); ++i)
      if (e.step.ops[i].name == "act_mul") {
        const Op& op = e.step.ops[i];
        CHECK(op.l2_older_share == 0.5);  // gate's half
        CHECK(op.l2_older_streamed >= 2.0 * op.bytes_read);  // at least up's weight
        priced = e.cost.ops[i].device_time_s;  // one instance
      }
    const double err = priced / quantile(silu, 0.5) - 1;
    if (std::getenv("GAP_DEBUG")) std::printf("silu %-16s b%2d meas %.3f priced %.3f %+6.2f\n", r["model"].as<std::string>().c_str(), r["batch"].as<int>(), 1e6 * quantile(silu, 0.5), 1e6 * priced, 100 * err);
    errs.push_back(std::fabs(err));
  }
  REQUIRE(errs.size() == 9);
  CAPTURE(quantile(errs, 0.5));
  CAPTURE(quantile(errs, 1.0));
  // Gate's half priced by what up's weight stream leaves (cyclic_l2_hit of its bytes): -8.9 to +2.5 %,
  // median 5.3 %; both halves warm (compfuse): -22.5 to 0 %, median 18.1 %. What is left at 1-16 rows
  // (-5 to -9 %): the round trip priced as the hit-weighted mean of L2's and DRAM's, where every
  // thread waits on gate's line.
  CHECK(quantile(errs, 0.5) <= 0.06);
  CHECK(quantile(errs, 1.0) <= 0.10);
}

TEST_CASE("inside a graph the gap is per kernel, not per CTA; a split-K reduce waits for the drain") {
  // Every boundary of the 9 profiled replays after the graph's first kernel (before it: the host).
  std::vector<double> small_grid, large_grid, plain, reduce;
  for (const YAML::Node& r : jsonl("/validation/results/h200-compiled2/compiled2.jsonl")) {
    const YAML::Node t = r["trace"];
    size_t first = 0;
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i][2].as<double>() > 20) first = i;  // the host's wait before the replay's first kernel
    CHECK(first == 1);                            // only the cudagraph tree's input copy runs before it
    for (size_t i = first + 1; i < t.size(); ++i) {
      const double gap = t[i][2].as<double>();
      const bool is_reduce = t[i][0].as<std::string>().find("splitKreduce") != std::string::npos;
      (is_reduce ? reduce : plain).push_back(gap);
      if (!is_reduce) (t[i][3].as<int64_t>() >= 132 ? large_grid : small_grid).push_back(gap);
    }
  }
  REQUIRE(plain.size() > 2000);
  REQUIRE(reduce.size() > 400);
  // 0.42 us whatever the grid (a full wave or more: 0.39 us; under a wave: 0.42 us)...
  CHECK(quantile(plain, 0.5) == test::approx(0.42).epsilon(0.1));
  CHECK(std::fabs(quantile(large_grid, 0.5) - quantile(small_grid, 0.5)) < 0.1);
  // ...and twice that before a kernel reading what the whole previous grid wrote.
  CHECK(quantile(reduce, 0.5) > 1.8 * quantile(plain, 0.5));
}

TEST_CASE("fused graph keys: the GPU's idle per launch and the host's graph launch apart (h200-fused-step-alone)") {
  // The fit (fit_graph_gap.py): graph_kernel_gap = median over the even decode points of
  // h200-fused-step-alone of (GPU-alone replay - kernel sum) / predicted launches (the replay behind a
  // 3 ms GPU spin, the host's launch hidden); graph_launch_per_node = median over its even points of
  // the host's time in graph.replay() / predicted launches. Before (branch graphhost11): one
  // graph_kernel_gap, 0.891 us, fitted on measure()'s replays, whose CUDA events catch both.
  std::vector<YAML::Node> pts;
  for (const YAML::Node& r : jsonl("/validation/results/h200-fused-step-alone/results.jsonl"))
    if (r["kind"].as<std::string>() == "point" && r["ok"].as<bool>()) pts.push_back(r);
  REQUIRE(pts.size() == 72);
  std::vector<double> fit_gaps, fit_host, odd_decode, prefill, odd_wall, odd_host;
  int decode = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    const YAML::Node& r = pts[i];
    const Evaluation e = price(r, Impl::fused, r["ctx"].as<int64_t>());
    const double L = static_cast<double>(launches(e));
    // The step: the kernels and the GPU's idle per launch (GPU time), the host's launch beside them.
    CHECK(e.cost.host_time_s == test::approx(0.474e-6 * L).epsilon(1e-6));
    CHECK(e.cost.time_s - e.cost.host_time_s - e.cost.device_time_s == test::approx(0.356e-6 * L).epsilon(1e-6));
    // The spin-first replay ran behind a 3 ms one-thread spin (fused_replay_probe.py, spin(3e-3)):
    // the power cap averages over it too, so a compute-bound prefill runs at a higher clock than
    // back to back (branch gemmdef). measure()'s replays below are priced back to back (their rest,
    // the host's launch, is ~1 % of a 7-8B prefill).
    const Evaluation rested = price(r, Impl::fused, r["ctx"].as<int64_t>(), 3e-3);
    const double alone = (rested.cost.time_s - rested.cost.host_time_s) / r["spin_first_s"].as<double>() - 1;
    if (i % 2 == 0) {
      fit_host.push_back(r["host_launch_s"].as<double>() / L);
    } else {
      odd_wall.push_back(std::fabs(e.cost.time_s / r["device_s"].as<double>() - 1));
      odd_host.push_back(std::fabs(e.cost.host_time_s / r["host_launch_s"].as<double>() - 1));
    }
    if (r["phase"].as<std::string>() == "prefill") prefill.push_back(std::fabs(alone));
    else if (decode++ % 2 == 0) fit_gaps.push_back((r["spin_first_s"].as<double>() - r["kernel_s"].as<double>()) / L);
    else odd_decode.push_back(std::fabs(alone));
  }
  REQUIRE(fit_gaps.size() == 30);
  REQUIRE(fit_host.size() == 36);
  CHECK(quantile(fit_gaps, 0.5) * 1e6 == test::approx(0.356).epsilon(0.002));  // what the calibration holds
  CHECK(quantile(fit_host, 0.5) * 1e6 == test::approx(0.474).epsilon(0.002));
  // Held out of graph_kernel_gap, the GPU-alone replay (compare_fused_alone.py): odd decode 1.7 / 4.7 %,
  // prefill 0.68 / 1.84 % with the spin's 3 ms rest in the power cap's average (branch gemmdef;
  // priced back to back 2.4 %; 0.891 us per launch: 4.4 / 9.4 % and 3.8 %).
  CAPTURE(quantile(odd_decode, 0.5));
  CAPTURE(quantile(odd_decode, 0.9));
  CAPTURE(quantile(prefill, 0.5));
  CHECK(quantile(odd_decode, 0.5) <= 0.018);
  CHECK(quantile(odd_decode, 0.9) <= 0.048);
  CHECK(quantile(prefill, 0.5) <= 0.025);
  // Held out of graph_launch_per_node, measure()'s replay on an idle GPU: 2.25 / 4.9 % (0.891 us:
  // 2.30 / 4.85 %). The host's launch itself is the least repeatable part: 36 % median, per node or
  // flat alike (fit_graph_gap.py), 55-765 us measured.
  CAPTURE(quantile(odd_wall, 0.5));
  CAPTURE(quantile(odd_wall, 0.9));
  CAPTURE(quantile(odd_host, 0.5));
  CHECK(quantile(odd_wall, 0.5) <= 0.023);
  CHECK(quantile(odd_wall, 0.9) <= 0.050);
  CHECK(quantile(odd_host, 0.5) <= 0.37);
  // Every step of h200-fused-step-cudnn (an earlier lease; fitted on by neither key), measure()'s
  // replay: 2.1 / 4.7 % (0.891 us: 2.2 / 5.2 %); with the fused GEMM block 2.32 / 4.30 %, and with
  // it and the resident decode CTAs past the SM count 1.82 / 4.47 % (branch blockdef,
  // validation/results/h200-blockdef).
  std::vector<double> held;
  for (const YAML::Node& r : jsonl("/validation/results/h200-fused-step-cudnn/results.jsonl"))
    if (r["kind"].as<std::string>() == "point" && r["ok"].as<bool>())
      held.push_back(std::fabs(price(r, Impl::fused, r["ctx"].as<int64_t>()).cost.time_s / r["device_s"].as<double>() - 1));
  REQUIRE(held.size() == 72);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.034);  // the bounds before graphhost11
  CHECK(quantile(held, 0.9) <= 0.076);
  CHECK(quantile(held, 0.5) <= 0.022);
  CHECK(quantile(held, 0.9) <= 0.048);
}
