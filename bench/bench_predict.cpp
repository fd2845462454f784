// Speed of the library: full decode-step predictions (build_step + price_step + analyze) per
// second over a (batch, ctx) sweep, on one core. Target >= 1,000,000 per second.
#include <benchmark/benchmark.h>

#include "perfmodel/analysis.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/predictor.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"

namespace {

void BM_DecodeStepPrediction(benchmark::State& state) {
  perfmodel::Catalogue cat(PERFMODEL_BENCH_ROOT);
  const perfmodel::Card card = cat.card("h100");
  const perfmodel::Model model = cat.model("llama2-7b");
  const perfmodel::Roofs roofs = perfmodel::make_roofs(card, nullptr);
  perfmodel::Workload w;
  int64_t i = 0;
  for (auto _ : state) {
    w.batch = 1 + (i & 127);
    w.ctx = 128 + ((i >> 7) % 62) * 64;  // 128 .. 4032, within Llama-2-7B's 4096 positions
    ++i;
    perfmodel::Step step = perfmodel::build_step(model, w);
    perfmodel::StepCost cost = perfmodel::price_step(step, roofs, w.impl);
    perfmodel::Analysis a = perfmodel::analyze(model, w, step, cost.time_s, 0, card, 0.9);
    benchmark::DoNotOptimize(a);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeStepPrediction);

// The same sweep through the library's Predictor, which memoizes op costs by op.
void BM_PredictorSweep(benchmark::State& state) {
  perfmodel::Catalogue cat(PERFMODEL_BENCH_ROOT);
  perfmodel::Predictor predictor(cat.model("llama2-7b"), cat.card("h100"), nullptr);
  perfmodel::Workload w;
  int64_t i = 0;
  for (auto _ : state) {
    w.batch = 1 + (i & 127);
    w.ctx = 128 + ((i >> 7) % 62) * 64;
    ++i;
    benchmark::DoNotOptimize(predictor.predict(w));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PredictorSweep);

// The parts, to see where a prediction's time goes.
void BM_BuildStep(benchmark::State& state) {
  perfmodel::Catalogue cat(PERFMODEL_BENCH_ROOT);
  const perfmodel::Model model = cat.model("llama2-7b");
  perfmodel::Workload w;
  w.batch = 16;
  for (auto _ : state) benchmark::DoNotOptimize(perfmodel::build_step(model, w));
}
BENCHMARK(BM_BuildStep);

void BM_PriceStep(benchmark::State& state) {
  perfmodel::Catalogue cat(PERFMODEL_BENCH_ROOT);
  const perfmodel::Roofs roofs = perfmodel::make_roofs(cat.card("h100"), nullptr);
  perfmodel::Workload w;
  w.batch = 16;
  const perfmodel::Step step = perfmodel::build_step(cat.model("llama2-7b"), w);
  for (auto _ : state) benchmark::DoNotOptimize(perfmodel::price_step(step, roofs, w.impl));
}
BENCHMARK(BM_PriceStep);

}  // namespace

BENCHMARK_MAIN();
