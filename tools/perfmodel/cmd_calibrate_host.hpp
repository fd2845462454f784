#pragma once
// `calibrate --profile eager --only host`: the host that issues transformers' eager step, probed with
// validation/scripts/production/profile_host.py in --probe-processes processes (or read from --from-probe records),
// each depth's median taken (host_probe_set.hpp), the eager host rates refitted (eager_host_fit.hpp).
#include <string>

#include "commands.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/report.hpp"

namespace perfmodel::cli {

// Refits host_per_aten (or host_per_kernel), host_per_aten_view and host_per_step in `text` (the calibration file's
// text, edited and returned).
std::string refit_host(const ProfileCalibrateArgs& a, Context& ctx, const Catalogue& cat, const Card& card,
                       const std::string& base, const std::string& out_path, std::string text, Report& r);

}  // namespace perfmodel::cli
