// libFuzzer target: a card YAML (hardware/*.yaml), loaded and then used to price a decode step.
#include "fuzz_support.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_input(data, size, ".yaml");
  fuzz::expect_clean([&] {
    const perfmodel::Card card = perfmodel::load_card_file(path);
    perfmodel::Model m = perfmodel::Catalogue(PERFMODEL_FUZZ_ROOT).model("tinyllama-1.1b");
    perfmodel::Workload w;
    w.batch = 3;
    w.ctx = 300;
    if (!card.supports(perfmodel::Precision::bf16)) w.weight_dtype = w.act_dtype = w.kv_dtype = perfmodel::DType::fp16;
    (void)perfmodel::price_step(perfmodel::build_step(m, w), perfmodel::make_roofs(card, nullptr), w.impl);
  });
  return 0;
}
