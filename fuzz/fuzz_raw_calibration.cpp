// libFuzzer target: a raw calibration file (calibration-raw.json), loaded and fitted for the H200.
#include "fuzz_support.hpp"
#include "perfmodel/calibration_fit.hpp"
#include "perfmodel/catalogue.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_input(data, size, ".json");
  static const perfmodel::Card card = perfmodel::Catalogue(PERFMODEL_FUZZ_ROOT).card("h200");
  fuzz::expect_clean([&] {
    const perfmodel::RawCalibration raw = perfmodel::load_raw_calibration(path);
    (void)perfmodel::fit_calibration(raw, card);
  });
  return 0;
}
