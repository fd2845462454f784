// Branch hostaten: the eager host per ATen op, the ATen calls that launch a kernel and those that
// launch none (views, reshapes, transposes, expands, slices) apart. Three things the split rests on:
// - the lowering's launching / non-launching counts are the probe's (validation/results/h200-hostmod2
//   counts.jsonl, `aten_top_launching` of `aten_top`): per decoder layer and for the whole step;
// - price.cpp's eager_host_time prices them at host_per_aten and host_per_aten_view (and without
//   host_per_aten_view every ATen call at host_per_aten, branch hostmod2's form);
// - on ONE lease and process (the probe, per decoder layer), a call that launches nothing costs
//   about half a launching one in transformers' eager decode, not the ~2.4 us of a bare view
//   (the card's eager_view): the Python around each call is most of the host's time.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "perfmodel/step.hpp"
#include "hf_wall_errors.hpp"
#include "host_probe_step.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Record {
  int64_t launching = 0, other = 0;
  double wall_s = 0;
};

std::map<std::string, Record> probe() {
  std::map<std::string, Record> out;
  std::ifstream in(test::root() + "/validation/results/h200-hostmod2/counts.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    const YAML::Node r = YAML::Load(line);
    const std::string key = r["model"].as<std::string>() + "/" + std::to_string(r["layers"].as<int>()) + "/" +
                            r["phase"].as<std::string>();
    const int64_t launching = r["aten_top_launching"].as<int64_t>();
    out[key] = {launching, r["aten_top"].as<int64_t>() - launching, r["wall_s"].as<double>()};
  }
  return out;
}

Record lowered(const std::string& model, int64_t layers, Phase phase) {
  const Step s = test::host_probe_step(model, layers, phase);
  Record c;
  for (const Op& op : s.ops) {
    c.launching += op.aten_launching_calls() * op.count;
    c.other += op.aten_other_calls() * op.count;
  }
  return c;
}

const char* const kModels[] = {"llama2-7b", "mistral-7b", "qwen2.5-7b", "gpt2", "qwen3-30b-a3b", "mixtral-8x7b",
                               "deepseek-v2-lite"};

}  // namespace

TEST_CASE("eager host split: the lowering's launching and non-launching ATen calls are the probe's") {
  const std::map<std::string, Record> p = probe();
  REQUIRE(p.size() == 28);
  for (const char* model : kModels) {
    for (const Phase phase : {Phase::decode, Phase::prefill}) {
      const std::string ph = phase == Phase::decode ? "decode" : "prefill";
      const std::string model_name = model;
      CAPTURE(model_name);
      CAPTURE(ph);
      const Record m2 = p.at(model_name + "/2/" + ph), m3 = p.at(model_name + "/3/" + ph);
      const Record l2 = lowered(model, 2, phase), l3 = lowered(model, 3, phase);
      // Per decoder layer, each kind within one call (the experts' one extra call in Mixtral and
      // DeepSeek, test_eager_host.cpp).
      CHECK(std::abs((l3.launching - l2.launching) - (m3.launching - m2.launching)) <= 1);
      CHECK(std::abs((l3.other - l2.other) - (m3.other - m2.other)) <= 1);
      // The whole 2-layer step, each kind within four calls.
      CHECK(std::abs(l2.launching - m2.launching) <= 4);
      CHECK(std::abs(l2.other - m2.other) <= 4);
    }
  }
}

TEST_CASE("eager host split: launching calls at host_per_aten, the others at host_per_aten_view") {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  Calibration one = cal, split = cal;
  for (ProfileCalibration& pc : one.profiles)
    if (pc.name == "eager") {
      pc.host_per_aten_s = Measured(10e-6);
      pc.host_per_module_s = Measured(5e-6);
      pc.host_per_aten_view_s.reset();
    }
  for (ProfileCalibration& pc : split.profiles)
    if (pc.name == "eager") {
      pc.host_per_aten_s = Measured(10e-6);
      pc.host_per_aten_view_s = Measured(4e-6);
      pc.host_per_module_s = Measured(5e-6);
    }
  const Roofs r1 = make_roofs(card, &one, Impl::eager), r2 = make_roofs(card, &split, Impl::eager);
  Op topk;  // torch.topk: one launching call (two kernels), two views, one module
  topk.launches = 2;
  topk.aten_launching = 1;
  topk.aten_other = 2;
  topk.module_calls = 1;
  CHECK(eager_host_time(topk, r1) == doctest::Approx(3 * 10e-6 + 5e-6));
  CHECK(eager_host_time(topk, r2) == doctest::Approx(1 * 10e-6 + 2 * 4e-6 + 5e-6));
  // Counts left at -1 follow the kernels and the framework calls.
  Op plain;
  plain.launches = 2;
  plain.framework_calls = 3;
  CHECK(plain.aten_launching_calls() == 2);
  CHECK(plain.aten_other_calls() == 3);
  CHECK(eager_host_time(plain, r2) == doctest::Approx(2 * 10e-6 + 3 * 4e-6));
  // The key is written back and read again.
  const std::string text = to_yaml(split);
  CHECK(text.find("host_per_aten_view: 4 us") != std::string::npos);
  const std::string path = PERFMODEL_TEST_TMP "/hostaten.calibration.yaml";
  {
    std::ofstream out(path);
    out << text;
  }
  const Calibration back = load_calibration(path);
  bool seen = false;
  for (const ProfileCalibration& pc : back.profiles)
    if (pc.name == "eager") {
      REQUIRE(pc.host_per_aten_view_s);
      CHECK(*pc.host_per_aten_view_s == doctest::Approx(4e-6));
      seen = true;
    }
  CHECK(seen);
}

// The probe's per-layer walls (3-layer minus 2-layer decode step, b1, 256 tokens, one lease, module
// hooks on): least squares on the relative error, wall = a x launching + v x other, over the models
// whose 3-layer quartiles are tight (Qwen3-30B-A3B's span 0.9 ms: left out). Measured: a 18.7 us,
// v 9.2 us. A view-like call costs half a launching one, four times the card's bare eager_view
// (2.41 us): transformers' Python around the call, not the dispatcher, is what the host spends.
TEST_CASE("eager host split: on one lease a non-launching call costs about half a launching one") {
  const std::map<std::string, Record> p = probe();
  double sll = 0, svv = 0, slv = 0, sl = 0, sv = 0;
  int n = 0;
  for (const char* model : kModels) {
    if (std::string(model) == "qwen3-30b-a3b") continue;
    const Record m2 = p.at(std::string(model) + "/2/decode"), m3 = p.at(std::string(model) + "/3/decode");
    const double w = m3.wall_s - m2.wall_s;
    REQUIRE(w > 0);
    const double l = (m3.launching - m2.launching) / w, v = (m3.other - m2.other) / w;
    sll += l * l, svv += v * v, slv += l * v, sl += l, sv += v;
    ++n;
  }
  REQUIRE(n == 6);
  const double det = sll * svv - slv * slv;
  const double a = (sl * svv - sv * slv) / det, v = (sll * sv - slv * sl) / det;
  CAPTURE(a);
  CAPTURE(v);
  CHECK(a > 15e-6);
  CHECK(a < 22e-6);
  CHECK(v / a > 0.35);
  CHECK(v / a < 0.65);
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs r = make_roofs(test::catalogue().card("h200"), &cal, Impl::eager);
  CHECK(v > 3 * r.eager_view_s);
}


// The opt-in file (validation/results/h200-hostaten/hostaten.calibration.yaml): host_per_aten_view
// held at the probe's 0.490 of host_per_aten, the scale fitted on the tests' fit halves
// (fit_host_aten.py --model=ratio). Not the default (docs/accuracy-notes.md, branch hostaten:
// test_profile_accuracy's hf.json held-out wall median 12.7 % > 10 %, test_moe_accuracy's three
// h200-moe-contiguous wall medians fail). What it does better: h200-moe-sync (23 steps, a later
// lease, nothing fitted) 5.8 / 21.2 % -> 3.3 / 19.7 %, the MoE prefill's host no longer priced as
// heavy as its decode's (Qwen3 b1 prefill +23.8 % -> +5.9 %).
TEST_CASE("eager host split (opt-in): the probe's ratio, and the synchronized MoE set's wall") {
  const Calibration def = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Calibration opt = load_calibration(test::root() + "/validation/results/h200-hostaten/hostaten.calibration.yaml");
  bool seen = false;
  for (const ProfileCalibration& pc : opt.profiles)
    if (pc.name == "eager") {
      REQUIRE(pc.host_per_aten_s);
      REQUIRE(pc.host_per_aten_view_s);
      CHECK(*pc.host_per_aten_view_s / *pc.host_per_aten_s == doctest::Approx(0.490).epsilon(0.01));
      seen = true;
    }
  CHECK(seen);
  const std::vector<double> d = test::hf_wall_errors("h200-moe-sync/hf.json", def), o = test::hf_wall_errors("h200-moe-sync/hf.json", opt);
  REQUIRE(o.size() == 23);
  CAPTURE(quantile(d, 0.5));
  CAPTURE(quantile(o, 0.5));
  CAPTURE(quantile(o, 0.9));
  CHECK(quantile(o, 0.5) <= 0.04);
  CHECK(quantile(o, 0.5) < quantile(d, 0.5));
  CHECK(quantile(o, 0.9) <= 0.20);
}
