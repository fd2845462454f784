// validate / calibrate in a build without the CUDA backend: the flags are parsed as in a CUDA
// build (so --help is the same), then the command says how to get the backend.
#include "commands.hpp"
#include "perfmodel/calibration_fit.hpp"

namespace perfmodel::cli {

namespace {
int no_cuda(const std::string& name, const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  d.add_options()("on-gpu", po::bool_switch(), "run on the CUDA device (required)");
  const std::string usage = "perfmodel " + name +
                            " --on-gpu: needs the CUDA validation backend, which this build lacks "
                            "(rebuild with -DPERFMODEL_CUDA=ON on a machine with nvcc).";
  const std::string example = name == "validate"
                                  ? "perfmodel validate --on-gpu --model llama2-7b --phase decode --batch 16 --ctx 2048"
                                  : "perfmodel calibrate --on-gpu";
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      *ctx.out << usage << "\n\n" << d << "\nExample:\n  " << example << "\n";
      return 0;
    }
  throw UsageError("built without CUDA; rebuild with -DPERFMODEL_CUDA=ON");
}
}  // namespace

int cmd_validate(const std::vector<std::string>& a, Context& c) { return no_cuda("validate", a, c); }
RawCalibration measure_calibration(Context&, std::string&, const std::string&, const std::vector<std::string>&) {
  throw UsageError("built without CUDA; rebuild with -DPERFMODEL_CUDA=ON (or refit with --from-raw FILE)");
}

}  // namespace perfmodel::cli
