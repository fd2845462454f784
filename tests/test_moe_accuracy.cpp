// Issue 11: whole MoE/MLA steps of transformers 5 eager on the H200 (Qwen3-30B-A3B,
// DeepSeek-V2-Lite, Mixtral-8x7B; validation/results/h200-moe-contiguous, the cache kept
// contiguous between decode steps) against `--impl eager --eager-cache contiguous`, what
// validation/scripts/moe/compare_moe.py prints. Fit set: Qwen3 and DeepSeek decode (the op list was
// read off them; torch._grouped_mm's parameters were fitted on Qwen3's kernel cases). Held out:
// Mixtral and every prefill. The bounds are the achieved medians (docs/accuracy.md) with a little
// room; a change that moves them past these bounds fails here.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Errors {
  std::vector<double> kernel, wall;
};

struct MoeSteps {
  Errors fit, held_out;
  MoeSteps() {
    const Card card = test::catalogue().card("h200");
    const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-moe-contiguous/hf.json");
    for (const auto& s : root["steps"]) {
      if (!s["ok"].as<bool>()) continue;
      const std::string model = s["model"].as<std::string>();
      Workload w;
      w.phase = s["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
      w.batch = s["batch"].as<int64_t>();
      w.ctx = s["ctx"].as<int64_t>();
      w.impl = Impl::eager;
      w.eager_cache_cropped = !(s["cache_layout"] && s["cache_layout"].as<std::string>() == "contiguous");
      const Evaluation e = evaluate(test::catalogue().model(model), w, card, &cal);
      Errors& set = model == "mixtral-8x7b" || w.phase == Phase::prefill ? held_out : fit;
      set.kernel.push_back(std::fabs(e.cost.device_time_s / s["kernel_s"].as<double>() - 1));
      set.wall.push_back(std::fabs(e.cost.time_s / s["wall_s"].as<double>() - 1));
    }
  }
};

const MoeSteps& steps() {
  static const MoeSteps s;
  return s;
}

}  // namespace

TEST_CASE("MoE/MLA eager steps, fit set (Qwen3 + DeepSeek decode): kernel and wall medians") {
  const Errors& f = steps().fit;
  REQUIRE(f.kernel.size() == 11);
  CAPTURE(quantile(f.kernel, 0.5));
  CAPTURE(quantile(f.kernel, 0.9));
  CAPTURE(quantile(f.wall, 0.5));
  CAPTURE(quantile(f.wall, 0.9));
  // Achieved: kernel 3.2 % median, 8.4 % p90 (the 10 % target met on GPU kernel time);
  // wall 24.7 % (the measured host time per kernel varies 15-33 us between these steps).
  CHECK(quantile(f.kernel, 0.5) <= 0.04);
  CHECK(quantile(f.kernel, 0.9) <= 0.09);
  CHECK(quantile(f.wall, 0.5) <= 0.26);
}

TEST_CASE("MoE/MLA eager steps, held out (Mixtral, every prefill): kernel and wall medians") {
  const Errors& h = steps().held_out;
  REQUIRE(h.kernel.size() == 9);
  CAPTURE(quantile(h.kernel, 0.5));
  CAPTURE(quantile(h.kernel, 0.9));
  CAPTURE(quantile(h.wall, 0.5));
  CAPTURE(quantile(h.wall, 0.9));
  // Achieved: kernel 22.2 % median, 32.8 % p90, every step under-predicted (prefill's unexplained
  // masked_fill and broadcast kernels, Mixtral's grouped GEMM streaming below the card's rate);
  // wall 28.0 %. The 10 % target is not met here.
  CHECK(quantile(h.kernel, 0.5) <= 0.23);
  CHECK(quantile(h.kernel, 0.9) <= 0.34);
  CHECK(quantile(h.wall, 0.5) <= 0.29);
}
