// validate / calibrate --on-gpu in `perfmodel`: the CUDA backend (cuBLAS, cudart) lives in a
// separate executable, perfmodel-gpu, built next to this one when CUDA is built, so that the
// analytic commands load no CUDA library (issue 9 item 6: `perfmodel decode` <= 10 ms, 20 MB).
// A command that needs the GPU replaces this process with perfmodel-gpu, same arguments; without
// it the flags are parsed as in a CUDA build (so --help is the same) and the command says how to
// get the backend.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "perfmodel/calibration_fit.hpp"

namespace perfmodel::cli {

namespace {

namespace fs = std::filesystem;

// perfmodel-gpu beside this very binary (/proc/self/exe, not argv[0]: a PATH lookup or a
// symlink would point elsewhere).
fs::path backend_path() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path() / "perfmodel-gpu";
}

// Runs the command in perfmodel-gpu when it is there (does not return); returns its path
// otherwise, for the message.
std::string exec_backend(const Context& ctx) {
  const fs::path exe = backend_path();
  if (exe.empty() || ::access(exe.c_str(), X_OK) != 0) return exe.empty() ? "perfmodel-gpu" : exe.string();
  // argv[0] stays the user's: result files record the command line as typed.
  std::vector<char*> argv;
  for (const auto& a : ctx.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  ::execv(exe.c_str(), argv.data());
  throw std::runtime_error("cannot run " + exe.string() + ": " + std::strerror(errno));
}

std::string missing(const std::string& exe) {
  return "built without CUDA; rebuild with -DPERFMODEL_CUDA=ON (no GPU backend " + exe + ")";
}

int no_backend(const std::string& name, const std::vector<std::string>& args, Context& ctx) {
  const std::string exe = exec_backend(ctx);
  po::options_description d("Options");
  d.add_options()("on-gpu", po::bool_switch(), "run on the CUDA device (required)");
  const std::string usage = "perfmodel " + name +
                            " --on-gpu: needs the CUDA validation backend, which this build lacks "
                            "(rebuild with -DPERFMODEL_CUDA=ON on a machine with nvcc).";
  const std::string example = "perfmodel validate --on-gpu --model llama2-7b --phase decode --batch 16 --ctx 2048";
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      *ctx.out << usage << "\n\n" << d << "\nExample:\n  " << example << "\n";
      return 0;
    }
  throw UsageError(missing(exe));
}

}  // namespace

int cmd_validate(const std::vector<std::string>& a, Context& c) { return no_backend("validate", a, c); }

// cmd_calibrate has checked its flags; the measurement itself needs the GPU.
RawCalibration measure_calibration(Context& ctx, std::string&, const std::string&, const std::vector<std::string>&) {
  const std::string exe = exec_backend(ctx);
  throw UsageError(missing(exe) + " (or refit with --from-raw FILE)");
}

}  // namespace perfmodel::cli
