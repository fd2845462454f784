// Gemma's conventions in the eager profile (issue 10; lib/src/step/eager_ops.cpp eager_gemma_rmsnorm,
// eager_profile.cpp): transformers' GemmaRMSNorm runs ten kernels where LlamaRMSNorm runs eight, GemmaModel
// scales the embeddings, Gemma-2 soft-caps its final logits. validation/results/h200-hfgemma measured
// Gemma-2-9B's decode and prefill steps (never fitted on) and counted each kernel and aten op of a step
// (census.json).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

Evaluation eager_step(const std::string& model, Phase phase, int64_t batch, int64_t ctx) {
  static const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  Workload w;
  w.phase = phase;
  w.batch = batch;
  w.ctx = ctx;
  w.impl = Impl::eager;
  w.eager_cache_cropped = false;
  return evaluate(test::catalogue().model(model), w, test::catalogue().card("h200"), &cal);
}

int64_t launches_named(const Evaluation& e, const std::string& suffix) {
  int64_t n = 0;
  for (const Op& op : e.step.ops)
    if (op.name.size() >= suffix.size() && op.name.compare(op.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      n += op.count * op.launches;
  return n;
}

}  // namespace

TEST_CASE("Gemma-2's norms, embedding scale and soft-cap are kernels of the step; Llama has none") {
  const Evaluation g = eager_step("gemma2-9b", Phase::decode, 1, 1001);
  const Evaluation l = eager_step("llama3-8b", Phase::decode, 1, 1001);
  // census.json: 169 GemmaRMSNorms a step (4 a layer and the final one), each with the weight's + 1.
  CHECK(launches_named(g, ".weight_plus_one") == 4 * 42 + 1);
  CHECK(launches_named(g, ".type_as") == 4 * 42 + 1);
  CHECK(launches_named(g, "embed_scale") == 1);
  CHECK(launches_named(g, "logits_softcap.tanh") == 1);
  CHECK(launches_named(l, ".weight_plus_one") == 0);
  CHECK(launches_named(l, "embed_scale") == 0);
  CHECK(launches_named(l, "logits_softcap.tanh") == 0);
  // Measured 2968 kernels a step, 210 of them cuBLASLt's splitKreduce (not counted as launches here).
  CHECK(g.step.launches() >= 2968 - 210 - 60);
  CHECK(g.step.launches() <= 2968 - 210);
}

TEST_CASE("Gemma-2-9B's eager steps: GPU kernel time within 6 % of h200-hfgemma's two leases") {
  for (const char* file : {"/validation/results/h200-hfgemma/hf.json", "/validation/results/h200-hfgemma/paired/hf.json",
                           "/validation/results/h200-hfgemma/window/hf.json"}) {
    YAML::Node root = YAML::LoadFile(test::root() + file);
    int n = 0;
    for (const auto& s : root["steps"]) {
      if (s["model"].as<std::string>() != "gemma2-9b" || !s["ok"].as<bool>()) continue;
      const bool decode = s["phase"].as<std::string>() == "decode";
      // The decode step attends ctx + 1 keys (the new token counted, as compare_hf.py prices it).
      const Evaluation e = eager_step("gemma2-9b", decode ? Phase::decode : Phase::prefill, s["batch"].as<int64_t>(),
                                      s["ctx"].as<int64_t>() + (decode ? 1 : 0));
      const double err = e.cost.device_time_s / s["kernel_s"].as<double>() - 1;
      CAPTURE(file);
      CAPTURE(s["batch"].as<int64_t>());
      CAPTURE(err);
      // +4.3 % at batch 1 (the norms' small kernels), -0.3..+1.7 % elsewhere; past the window (ctx 6000) +5 / +9 %
      // (repeat_kv's copies at the generic rate; -22 / -52 % before the window's path).
      CHECK(std::fabs(err) <= (s["ctx"].as<int64_t>() > 4096 ? 0.10 : 0.06));
      ++n;
    }
    CHECK(n >= 2);
  }
}

TEST_CASE("past its window Gemma-2's local layers cat, repeat and attend over the window; below it none do") {
  auto count = [](const Evaluation& e, const std::string& name) {
    int64_t n = 0;
    for (const Op& op : e.step.ops)
      if (op.name == name) n += op.count;
    return n;
  };
  const Evaluation past = eager_step("gemma2-9b", Phase::decode, 8, 6001);
  const Evaluation below = eager_step("gemma2-9b", Phase::decode, 8, 3001);
  CHECK(count(past, "attention.sdpa_window") == 21);  // every other of the 42 layers
  CHECK(count(past, "attention.sdpa") == 21);
  CHECK(count(past, "attention.repeat_k") == 21);
  CHECK(count(past, "kv_write.cat_window") == 21);
  CHECK(count(below, "attention.sdpa_window") == 0);
  CHECK(count(below, "attention.sdpa") == 42);
  // Llama-3-8B has no window: its step at 6000 tokens has none of it.
  CHECK(count(eager_step("llama3-8b", Phase::decode, 8, 6001), "attention.sdpa_window") == 0);
}

TEST_CASE("a second windowed model, every layer windowed: Mistral-7B-v0.1 past and below its window (held out)") {
  // h200-hfgemma/mistral: measured after the window's lowering was written, nothing fitted on it.
  YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-hfgemma/mistral/hf.json");
  int n = 0;
  for (const auto& s : root["steps"]) {
    const int64_t ctx = s["ctx"].as<int64_t>();
    const Evaluation e = eager_step("mistral-7b", Phase::decode, s["batch"].as<int64_t>(), ctx + 1);
    const double err = e.cost.device_time_s / s["kernel_s"].as<double>() - 1;
    CAPTURE(ctx);
    CAPTURE(err);
    // Past the window +9 / +17 % (repeat_kv's copies run faster than the generic elementwise rate prices
    // them: 31.7 ms of cat and copies measured at b8 against 38.5 priced); below it +1 %.
    CHECK(std::fabs(err) <= (ctx > 4096 ? 0.20 : 0.05));
    ++n;
  }
  CHECK(n == 3);
}
