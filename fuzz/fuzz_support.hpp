#pragma once
// Shared by the libFuzzer targets: the loaders read paths, so each input is written to a file
// first (one per process, rewritten every run), and the library's typed errors are the expected
// outcome of bad input; anything else escaping (another exception, a crash, a sanitizer report)
// is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "perfmodel/errors.hpp"

namespace fuzz {

// Writes the input to /tmp/perfmodel-fuzz-<pid><ext> and returns the path.
inline std::string write_input(const uint8_t* data, size_t size, const std::string& ext) {
  const std::string path = "/tmp/perfmodel-fuzz-" + std::to_string(getpid()) + ext;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                static_cast<std::streamsize>(size));
  return path;
}

// Runs `f`, accepting the library's input errors.
template <typename F>
void expect_clean(F f) {
  try {
    f();
  } catch (const perfmodel::ConfigError&) {
  } catch (const perfmodel::InputError&) {
  }
}

}  // namespace fuzz
