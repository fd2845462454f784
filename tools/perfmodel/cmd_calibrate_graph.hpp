#pragma once
// `calibrate --profile fused --only graph`: the fused profile's graph keys (graph_gap_fit.hpp) measured with
// validation/scripts/production/fused_step_alone.py or read from its recorded results.jsonl.
#include <string>

#include "commands.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/report.hpp"

namespace perfmodel::cli {

// Refits graph_kernel_gap and graph_launch_per_node in `text` (the calibration file's text, edited and returned).
std::string refit_graph(const ProfileCalibrateArgs& a, Context& ctx, const Catalogue& cat, const Card& card,
                        const std::string& base, const std::string& out_path, std::string text, Report& r);

}  // namespace perfmodel::cli
