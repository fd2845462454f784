// validate / calibrate in a build without the CUDA backend.
#include "commands.hpp"

namespace perfmodel::cli {

namespace {
int no_cuda(const std::string& name, const std::vector<std::string>& args, Context& ctx) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      *ctx.out << "perfmodel " << name << " --on-gpu: needs the CUDA validation backend, which this build lacks.\n";
      return 0;
    }
  throw UsageError("built without CUDA; rebuild with -DPERFMODEL_CUDA=ON");
}
}  // namespace

int cmd_validate(const std::vector<std::string>& a, Context& c) { return no_cuda("validate", a, c); }
int cmd_calibrate(const std::vector<std::string>& a, Context& c) { return no_cuda("calibrate", a, c); }

}  // namespace perfmodel::cli
