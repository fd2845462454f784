#pragma once
// `calibrate --profile fused|compiled --only graph`: a graph profile's graph keys measured or read from recorded steps.
// Fused (cmd_calibrate_graph.cpp, graph_gap_fit.hpp): validation/scripts/production/fused_step_alone.py's results.jsonl.
// Compiled (cmd_calibrate_compiled_graph.cpp, compiled_graph_fit.hpp): compiled_gaps.py's records.
#include <string>
#include <vector>

#include "commands.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/profile_key_fit.hpp"
#include "perfmodel/report.hpp"

namespace perfmodel::cli {

// Fused: refits graph_kernel_gap and graph_launch_per_node in `text` (the calibration file's text, edited and returned).
std::string refit_graph(const ProfileCalibrateArgs& a, Context& ctx, const Catalogue& cat, const Card& card,
                        const std::string& base, const std::string& out_path, std::string text, Report& r);

// Compiled: refits graph_kernel_gap, graph_call_host and graph_call_host_per_input in `text`.
std::string refit_compiled_graph(const ProfileCalibrateArgs& a, Context& ctx, const Catalogue& cat, const Card& card,
                                 const std::string& base, const std::string& out_path, std::string text, Report& r);

// One row of the held-out error table both print, and its columns.
Node graph_error_row(const std::string& what, const ErrorSummary& e);
std::vector<Column> graph_error_columns();

}  // namespace perfmodel::cli
