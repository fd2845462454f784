// The Predictor (the sweep hot path) gives the same step time as build_step + price_step.
#include <doctest/doctest.h>

#include "perfmodel/analysis.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/predictor.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("Predictor::predict equals the full path over a (batch, ctx) sweep, cached or not") {
  for (const char* name : {"llama2-7b", "llama3-8b", "mistral-7b", "gemma2-9b"}) {
    const Model m = test::catalogue().model(name);
    const Card card = test::catalogue().card("h100");
    Predictor p(m, card, nullptr);
    const Roofs roofs = make_roofs(card, nullptr);
    for (int pass = 0; pass < 2; ++pass)  // the second pass hits the batch cache
      for (int64_t b : {1, 7, 32})
        for (int64_t ctx : {128, 2048, 8000}) {
          if (ctx > m.max_positions) continue;
          Workload w;
          w.batch = b;
          w.ctx = ctx;
          CAPTURE(name);
          CAPTURE(b);
          CAPTURE(ctx);
          const Step step = build_step(m, w);
          const StepCost full = price_step(step, roofs, w.impl);
          const Prediction fast = p.predict(w);
          CHECK(fast.time_s == test::approx(full.time_s).epsilon(1e-12));
          CHECK(fast.roofline_time_s == test::approx(full.roofline_time_s).epsilon(1e-12));
          const Analysis a = analyze(m, w, step, full.time_s, 0, card, kDefaultMemoryUtilization);
          CHECK(fast.ai == test::approx(a.ai));
          CHECK(fast.max_batch == a.memory.max_batch);
          CHECK(fast.fits == a.memory.fits);
        }
    CHECK(p.cached_batches() == 3);
  }
}

TEST_CASE("Predictor falls back to the full path for prefill and eager") {
  const Model m = test::catalogue().model("tinyllama");
  const Card card = test::catalogue().card("a100");
  Predictor p(m, card, nullptr);
  for (Impl impl : {Impl::fused, Impl::eager}) {
    // The profile's own roofs, as the Predictor and evaluate() take them (the fused prefill's
    // rotary is priced as its Inductor stand-in's waves only there: branch rope10).
    const Roofs roofs = make_roofs(card, nullptr, impl);
    Workload w;
    w.phase = Phase::prefill;
    w.batch = 2;
    w.ctx = 512;
    w.impl = impl;
    CHECK(p.predict(w).time_s == test::approx(price_step(build_step(m, w), roofs, impl).time_s));
  }
}

TEST_CASE("Predictor equals evaluate() exactly on the calibrated H200, where kernel switch and power cap act") {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs roofs = make_roofs(card, &cal);
  REQUIRE(roofs.kernel_switch_s > 0);
  REQUIRE(roofs.power.known());
  bool capped = false;
  for (const char* name : {"llama3-8b", "mistral-7b", "gemma2-9b", "gpt2"}) {
    const Model m = test::catalogue().model(name);
    Predictor p(m, card, &cal);
    for (Phase phase : {Phase::decode, Phase::prefill})
      for (int pass = 0; pass < 2; ++pass)
        for (int64_t b : {1, 16, 64})
          for (int64_t ctx : {256, 1024, 6000}) {
            if (ctx > m.max_positions) continue;
            Workload w;
            w.phase = phase;
            w.batch = b;
            w.ctx = ctx;
            CAPTURE(name);
            CAPTURE(b);
            CAPTURE(ctx);
            const Evaluation e = evaluate(m, w, card, &cal);
            capped = capped || e.cost.clock_scale < 1;
            const Prediction fast = p.predict(w);
            CHECK(fast.time_s == e.cost.time_s);
            CHECK(fast.roofline_time_s == e.cost.roofline_time_s);
            CHECK(fast.max_batch == e.analysis.memory.max_batch);
            CHECK(fast.fits == e.status.fits);
            CHECK(e.status.fits == e.status.reason.empty());
          }
  }
  CHECK(capped);  // some of these steps run at the power cap's clock
}
