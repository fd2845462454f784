#pragma once
// `--explain` on decode, prefill, ops, gemm and op (issue 14): every printed number expanded into
// its formula, the numbers plugged in and where they come from (perfmodel/explain.hpp). Table
// output prints the explanation after the report; JSON adds `explain`: [{"section", "items":
// [{"name", "formula", "substituted", "value", "unit", "inputs"}]}].
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "perfmodel/explain.hpp"
#include "perfmodel/report.hpp"

namespace perfmodel::cli {

void add_explain(po::options_description& d, bool& explain);

using ExplainSections = std::vector<std::pair<std::string, std::vector<Explained>>>;

void attach_explanation(Report& r, const ExplainSections& sections);

// The step's sections: its totals, its analyses, then each op (per instance).
ExplainSections explain_evaluation(const Model& m, const Evaluation& e, const Roofs& roofs, double utilization);

}  // namespace perfmodel::cli
