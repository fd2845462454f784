#pragma once
// validate --on-gpu --impl fused|eager|compiled: the step in that profile's production kernels
// (cmd_gpu_profile.cpp).
#include "cli.hpp"
#include "step_report.hpp"

namespace perfmodel::cli {

int validate_profile_step(const Model& m, const Workload& w, const Loaded& l, const PricedStep& p, Context& ctx,
                          const std::string& format);

}  // namespace perfmodel::cli
