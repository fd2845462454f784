// libFuzzer target: a measurement file (validation/results/*/kernels.json or a step file).
#include "fuzz_support.hpp"
#include "perfmodel/accuracy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_input(data, size, ".json");
  fuzz::expect_clean([&] {
    perfmodel::Measurements m;
    perfmodel::load_measurements(path, m);
  });
  return 0;
}
