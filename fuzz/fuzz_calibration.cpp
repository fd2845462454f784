// libFuzzer target: a calibration YAML (hardware/<card>.calibration.yaml), loaded, applied to the
// H200's roofs and written back.
#include "fuzz_support.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/price.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_input(data, size, ".calibration.yaml");
  static const perfmodel::Card card = perfmodel::Catalogue(PERFMODEL_FUZZ_ROOT).card("h200");
  fuzz::expect_clean([&] {
    const perfmodel::Calibration c = perfmodel::load_calibration(path);
    (void)perfmodel::make_roofs(card, &c);
    (void)perfmodel::to_yaml(c);
  });
  return 0;
}
