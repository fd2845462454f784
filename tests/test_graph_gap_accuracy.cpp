// Issue 10, task graph: time between kernels in CUDA-graph steps.
// - validation/results/h200-compiled2/compiled2.jsonl: 9 torch.compile (reduce-overhead) decode steps
//   of Hugging Face models at 8-32 layers (TinyLlama-1.1B full depth, Llama-3-8B full depth,
//   Qwen2.5-7B 16, Llama-2-7B 8 and 12, Mistral-7B 8), measured by compiled_gaps.py. No perfmodel
//   value was fitted on any of them (graph_kernel_gap: h200-host-probe; graph_call_host: steps 0, 2,
//   4, 6 of h200-compiled; cudnn_decode: kernel cases). Compared on the wall time per step (what a
//   user waits), as compare_compiled.py does.
// - the per-boundary gaps of their profiled replays: what sets the gap (fit_graph_gap.py).
// - the fused profile's graph_kernel_gap, fitted on the even decode points of h200-fused-step; every
//   step of h200-fused-step-cudnn (the engine's GQA-packed decode) held out
//   (tests/test_fused_step_accuracy.cpp guards them too; here the fit itself).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
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

Evaluation price(const YAML::Node& r, Impl impl, int64_t ctx) {
  Model m = test::catalogue().model(r["model"].as<std::string>());
  if (r["layers"] && impl == Impl::compiled) m.layers = r["layers"].as<int64_t>();
  m.max_positions = std::max(m.max_positions, ctx);  // fused_step.py ran TinyLlama past its 2048 positions
  Workload w;
  w.phase = r["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
  w.batch = r["batch"].as<int64_t>();
  w.ctx = ctx;
  w.impl = impl;
  return evaluate(m, w, test::catalogue().card("h200"), &h200());
}

int64_t launches(const Evaluation& e) {
  int64_t n = 0;
  for (const Op& op : e.step.ops) n += op.launches * op.count;
  return n;
}

}  // namespace

TEST_CASE("compiled decode steps at 8-32 layers (h200-compiled2), all held out: wall per step") {
  std::vector<double> wall, kernels;
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
  }
  REQUIRE(wall.size() == 9);
  CAPTURE(quantile(wall, 0.5));
  CAPTURE(quantile(kernels, 0.5));
  CHECK(quantile(wall, 0.5) <= 0.04);     // 3.2 % (issue 10's target: 10 %)
  CHECK(quantile(kernels, 0.5) <= 0.01);  // 0.8 %
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
  CHECK(quantile(plain, 0.5) == doctest::Approx(0.42).epsilon(0.1));
  CHECK(std::fabs(quantile(large_grid, 0.5) - quantile(small_grid, 0.5)) < 0.1);
  // ...and twice that before a kernel reading what the whole previous grid wrote.
  CHECK(quantile(reduce, 0.5) > 1.8 * quantile(plain, 0.5));
}

TEST_CASE("fused graph_kernel_gap: fitted on the even decode steps of h200-fused-step, h200-fused-step-cudnn held out") {
  // The fit: the even decode points of h200-fused-step (its decode attention was PyTorch's
  // FlashAttention-2; the gap is measured times over predicted launches, whatever the kernels).
  std::vector<double> fit_gaps, held;
  int decode = 0;
  for (const YAML::Node& r : jsonl("/validation/results/h200-fused-step/results.jsonl")) {
    if (r["kind"].as<std::string>() != "point" || r["phase"].as<std::string>() != "decode") continue;
    const Evaluation e = price(r, Impl::fused, r["ctx"].as<int64_t>());
    if (decode++ % 2 == 0)
      fit_gaps.push_back((r["device_s"].as<double>() - r["kernel_s"].as<double>()) / static_cast<double>(launches(e)));
  }
  REQUIRE(fit_gaps.size() == 24);
  CHECK(quantile(fit_gaps, 0.5) * 1e6 == doctest::Approx(0.891).epsilon(0.002));  // what the calibration holds (0.971 while decode rotary was one launch)
  // Held out: every step of h200-fused-step-cudnn, the engine's GQA-packed decode (cuDNN's kernel),
  // measured after the fit.
  for (const YAML::Node& r : jsonl("/validation/results/h200-fused-step-cudnn/results.jsonl")) {
    if (r["kind"].as<std::string>() != "point") continue;
    const Evaluation e = price(r, Impl::fused, r["ctx"].as<int64_t>());
    held.push_back(std::fabs(e.cost.time_s / r["device_s"].as<double>() - 1));
    // The gap is wall time inside the replay: the kernel sum stays the ops' device time.
    CHECK(e.cost.time_s - e.cost.device_time_s ==
          doctest::Approx(0.891e-6 * static_cast<double>(launches(e))).epsilon(1e-6));
  }
  REQUIRE(held.size() == 72);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.034);  // 3.3 % (h200-fused-step's held-out 36: 3.7 %)
  CHECK(quantile(held, 0.9) <= 0.076);  // 7.5 % (5.9 %; the b1-b8 steps over-priced 7-9 %, +18 % at TinyLlama b1 ctx512)
}
