// Issue 11: whole MoE/MLA steps of transformers 5 eager on the H200 (Qwen3-30B-A3B,
// DeepSeek-V2-Lite, Mixtral-8x7B; validation/results/h200-moe-contiguous, the cache kept
// contiguous between decode steps) against `--impl eager --eager-cache contiguous`, what
// validation/scripts/moe/compare_moe.py prints. Fit set: Qwen3 and DeepSeek decode (the op list was
// read off them; torch._grouped_mm's parameters were fitted on Qwen3's kernel cases). Held out:
// Mixtral and every prefill. Branch moe2 fitted one more number (generic_operand_elements_per_s)
// on Qwen3's and DeepSeek's prefill b1 only. The bounds are the achieved medians (docs/accuracy.md)
// with a little room; a change that moves them past these bounds fails here. Wall time is also
// checked on validation/results/h200-moe (cropped cache): the contiguous run's timed steps
// include the asynchronous cache copies made between them (h200-moe-contiguous/README.md).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Errors {
  std::vector<double> kernel, wall, launches;
};

struct MoeSteps {
  Errors fit, held_out, prefill, mixtral_decode;
  explicit MoeSteps(const std::string& folder) {
    const Card card = test::catalogue().card("h200");
    const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/" + folder + "/hf.json");
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
      const double kernel = std::fabs(e.cost.device_time_s / s["kernel_s"].as<double>() - 1);
      const double wall = std::fabs(e.cost.time_s / s["wall_s"].as<double>() - 1);
      const double launches = static_cast<double>(e.step.launches()) / s["kernels_per_step"].as<double>() - 1;
      std::vector<Errors*> sets{model == "mixtral-8x7b" || w.phase == Phase::prefill ? &held_out : &fit};
      if (w.phase == Phase::prefill) sets.push_back(&prefill);
      if (model == "mixtral-8x7b" && w.phase == Phase::decode) sets.push_back(&mixtral_decode);
      for (Errors* set : sets) {
        set->kernel.push_back(kernel);
        set->wall.push_back(wall);
        set->launches.push_back(launches);
      }
    }
  }
};

const MoeSteps& steps() {
  static const MoeSteps s("h200-moe-contiguous");
  return s;
}

const MoeSteps& cropped_steps() {
  static const MoeSteps s("h200-moe");
  return s;
}

const MoeSteps& synchronized_steps() {
  static const MoeSteps s("h200-moe-sync");
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
  // Achieved: kernel 4.0 % median, 6.9 % p90 (3.2 % / 8.4 % before moe2: the glue moe2 added
  // at decode, two masked_fill clones and generic-path act kernels, uncovered attention's
  // over-prediction; the MLA key cat no longer counted twice took it back); wall 23.9 %
  // (the contiguous run's timed steps carry the cache copies: see the cropped check below).
  CHECK(quantile(f.kernel, 0.5) <= 0.04);
  CHECK(quantile(f.kernel, 0.9) <= 0.075);
  CHECK(quantile(f.wall, 0.5) <= 0.25);
}

TEST_CASE("MoE/MLA eager steps, held out (Mixtral, every prefill): kernel and wall medians") {
  const Errors& h = steps().held_out;
  REQUIRE(h.kernel.size() == 9);
  CAPTURE(quantile(h.kernel, 0.5));
  CAPTURE(quantile(h.kernel, 0.9));
  CAPTURE(quantile(h.wall, 0.5));
  CAPTURE(quantile(h.wall, 0.9));
  // Achieved: kernel 9.7 % median, 14.8 % p90 (22.2 % / 32.8 % before moe2: the masked_fill
  // clones over T k (hidden + I) and the generic path priced per operand element); wall 7.7 %
  // (28.0 %). Branch moe3 (torch._grouped_mm's per-CTA + shared stream, fitted on Qwen3 and
  // Mixtral kernel cases): kernel 4.6 % median, 11.3 % p90.
  CHECK(quantile(h.kernel, 0.5) <= 0.05);
  CHECK(quantile(h.kernel, 0.9) <= 0.12);
  CHECK(quantile(h.wall, 0.5) <= 0.08);
}

TEST_CASE("MoE/MLA eager prefill (6 steps): GPU kernel time within the issue's 10 % median") {
  const Errors& p = steps().prefill;
  REQUIRE(p.kernel.size() == 6);
  CAPTURE(quantile(p.kernel, 0.5));
  CAPTURE(quantile(p.wall, 0.5));
  // Achieved: kernel 7.8 % median (27.0 % before moe2), 6.7 % after moe3; wall 7.5 % (27.1 %).
  CHECK(quantile(p.kernel, 0.5) <= 0.07);
  CHECK(quantile(p.wall, 0.5) <= 0.08);
  // Every prefill step still launches fewer kernels than measured, within 10 % (cub's radix
  // sort past 4096 routed rows: 24 kernels for the two argsorts).
  for (double l : p.launches) {
    CHECK(l < 0);
    CHECK(l > -0.10);  // Mixtral b1 -9.3 %: 4096 routed rows, the in-place sort
  }
}

TEST_CASE("Mixtral decode (3 steps): torch._grouped_mm at Mixtral's shapes priced") {
  const Errors& m = steps().mixtral_decode;
  REQUIRE(m.kernel.size() == 3);
  CAPTURE(quantile(m.kernel, 0.5));
  // Achieved: kernel 10.3 % median before moe3 (-16 % and -10 % at b16 and b64: one per-CTA
  // rate for every K and CTA count); 1.1 % after (-2 %, -4 %, +0 % on h200-moe-sync), the
  // grouped_mm parameters fitted on kernel cases (Mixtral's T = 1 and 64 among them), no step.
  CHECK(quantile(m.kernel, 0.5) <= 0.03);
}

TEST_CASE("MoE/MLA eager wall time on the cropped-cache run (h200-moe): host-bound steps priced") {
  const MoeSteps& c = cropped_steps();
  std::vector<double> wall = c.fit.wall;
  wall.insert(wall.end(), c.held_out.wall.begin(), c.held_out.wall.end());
  REQUIRE(wall.size() == 21);
  CAPTURE(quantile(wall, 0.5));
  CAPTURE(quantile(wall, 0.9));
  // Achieved: 9.1 % median, 16.2 % p90 over the 21 steps (host 20.9-22.5 us per kernel measured
  // on the host-bound steps, the profile's 20.63; the rest is the launch deficit, -3 to -11 %).
  CHECK(quantile(wall, 0.5) <= 0.10);
  CHECK(quantile(wall, 0.9) <= 0.17);
}

TEST_CASE("MoE/MLA eager steps re-measured with a synchronized wall (h200-moe-sync, nothing fitted on it)") {
  const MoeSteps& r = synchronized_steps();
  std::vector<double> wall = r.fit.wall, kernel = r.fit.kernel;
  wall.insert(wall.end(), r.held_out.wall.begin(), r.held_out.wall.end());
  kernel.insert(kernel.end(), r.held_out.kernel.begin(), r.held_out.kernel.end());
  REQUIRE(wall.size() == 23);
  CAPTURE(quantile(wall, 0.5));
  CAPTURE(quantile(wall, 0.9));
  CAPTURE(quantile(kernel, 0.5));
  // Achieved: wall 7.0 % median / 20.2 % p90 (two host-noise outliers, README), kernel time 5.4 %
  // median / 10.2 % p90 over 23 steps of a later lease (h200-moe-sync/README.md); kernel time
  // 3.6 % / 7.8 % after moe3 (its grouped_mm fit used 4 Mixtral and 4 Qwen3 kernel cases of this
  // run, none of its steps).
  CHECK(quantile(wall, 0.5) <= 0.075);
  CHECK(quantile(kernel, 0.5) <= 0.04);
  CHECK(quantile(kernel, 0.9) <= 0.085);
}

namespace {

// torch._grouped_mm's kernel cases (h200-moe, h200-moe-sync, h200-moe-fused's routing sweep)
// against the eager profile's grouped_gemm price: |predicted / measured - 1|, split as
// validation/scripts/moe/fit_grouped_mm.py fits (h200-moe-sync's Qwen3 and Mixtral T = 1, 64).
struct GroupedCases {
  std::vector<double> fit, held, mixtral_held, sweep;
  GroupedCases() {
    const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    const Roofs r = make_roofs(test::catalogue().card("h200"), &cal, Impl::eager);
    for (const char* run : {"h200-moe", "h200-moe-sync", "h200-moe-fused"}) {
      YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/" + run + "/hf.json");
      for (const auto& c : root["kernel_cases"]) {
        if (c["kernel"].as<std::string>() != "grouped_gemm" || !c["ok"].as<bool>()) continue;
        const std::string name = c["name"].as<std::string>();
        const int64_t n = c["n"].as<int64_t>(), k = c["k"].as<int64_t>();
        // The sweep sets its routing by hand: g experts with r rows each is r tokens picking all g.
        const bool by_hand = static_cast<bool>(c["rows_per_expert"]);
        const int64_t tokens = by_hand ? c["rows_per_expert"].as<int64_t>() : c["tokens"].as<int64_t>();
        const int64_t top_k = by_hand ? c["experts_touched"].as<int64_t>() : c["top_k"].as<int64_t>();
        const int64_t experts = by_hand ? top_k : c["experts"].as<int64_t>();
        const Op op = ops::grouped_gemm(name, tokens, top_k, experts, n, k, DType::bf16, DType::bf16, Precision::bf16);
        const double err = std::fabs(price(op, r, Impl::eager).device_time_s / c["median_s"].as<double>() - 1);
        const bool in_fit = std::string(run) == "h200-moe-sync" && (tokens == 1 || tokens == 64);
        (in_fit ? fit : held).push_back(err);
        if (!in_fit && name.find("mixtral") != std::string::npos) mixtral_held.push_back(err);
        if (by_hand) sweep.push_back(err);
      }
    }
  }
};

}  // namespace

TEST_CASE("torch._grouped_mm kernel cases: fit on Qwen3 + Mixtral, 37 held out (DeepSeek, K and rows sweep)") {
  const GroupedCases g;
  REQUIRE(g.fit.size() == 8);
  REQUIRE(g.held.size() == 37);
  REQUIRE(g.sweep.size() == 13);
  CAPTURE(quantile(g.fit, 0.5));
  CAPTURE(quantile(g.held, 0.5));
  CAPTURE(quantile(g.held, 0.9));
  CAPTURE(quantile(g.sweep, 0.5));
  CAPTURE(quantile(g.mixtral_held, 0.5));
  // Achieved (fit_grouped_mm.py): fit 4.1 % median, 13.1 % max; held out 7.4 % median, 17.4 %
  // p90 (interpolated; 16.7 % nearest rank); the sweep 6.3 % (the model before moe3: 43.8 %,
  // its K = 14336 and 32-CTA cases +50 .. +111 %);
  // Mixtral's held-out T = 8 and 256 12.4 % (routing variance at T = 8 and 256 not modelled).
  CHECK(quantile(g.fit, 0.5) <= 0.045);
  CHECK(quantile(g.held, 0.5) <= 0.08);
  CHECK(quantile(g.held, 0.9) <= 0.18);
  CHECK(quantile(g.sweep, 0.5) <= 0.07);
  CHECK(quantile(g.mixtral_held, 0.5) <= 0.13);
}
