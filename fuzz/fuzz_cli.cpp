// libFuzzer target: the CLI's argument parsing and commands. The input is the command line, one
// argument per line. Commands and flags that write files are skipped (a fuzzer must not write
// into the catalogue), as are the GPU commands.
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* banned : {"calibrate", "validate", "output", "svg", "raw"})
    if (text.find(banned) != std::string::npos) return 0;
  std::vector<std::string> argv{"perfmodel"};
  std::istringstream in(text);
  std::string arg;
  while (std::getline(in, arg)) argv.push_back(arg);
  if (argv.size() > 64) return 0;
  std::ostringstream out, err;
  const int rc = perfmodel::cli::run_cli(argv, out, err);
  // Exit 1 is a runtime failure, never bad input: an escaped error is a finding.
  if (rc == 1) {
    fprintf(stderr, "exit 1: %s\n", err.str().c_str());
    __builtin_trap();
  }
  return 0;
}
