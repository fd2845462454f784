// libFuzzer target: a model YAML (models/*.yaml), loaded and then priced on the A100.
#include "fuzz_support.hpp"
#include "perfmodel/analysis.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"

#ifndef PERFMODEL_FUZZ_EXT
#define PERFMODEL_FUZZ_EXT ".yaml"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_input(data, size, PERFMODEL_FUZZ_EXT);
  static const perfmodel::Card card = perfmodel::Catalogue(PERFMODEL_FUZZ_ROOT).card("a100");
  fuzz::expect_clean([&] {
    const perfmodel::Model m = perfmodel::load_model_file(path);
    perfmodel::Workload w;
    w.batch = 2;
    w.ctx = 1000;
    const perfmodel::Step step = perfmodel::build_step(m, w);
    const perfmodel::StepCost c = perfmodel::price_step(step, perfmodel::make_roofs(card, nullptr), w.impl);
    (void)perfmodel::analyze(m, w, step, c.time_s, 0, card, perfmodel::kDefaultMemoryUtilization);
  });
  return 0;
}
