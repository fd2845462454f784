#pragma once
// The accuracy report (perfmodel accuracy, and the summary after validate --suite kernels).
#include "cli.hpp"
#include "perfmodel/accuracy.hpp"

namespace perfmodel::cli {

Report accuracy_report(const Context& ctx, const Loaded& card, const Measurements& m,
                       const std::vector<CaseError>& errors);
// docs/accuracy.md: data set, card, date, commit, the table and where the model is weak.
std::string accuracy_markdown(const Loaded& card, const Measurements& m, const std::vector<CaseError>& errors,
                              const std::string& date);

}  // namespace perfmodel::cli
