#pragma once
// The accuracy report (perfmodel accuracy, and the summary after validate --suite kernels).
#include "cli.hpp"
#include "perfmodel/accuracy.hpp"

namespace perfmodel::cli {

Report accuracy_report(const Context& ctx, const Loaded& card, const Measurements& m,
                       const std::vector<CaseError>& errors);
// docs/accuracy.md: AccuracyMarkdown (documents.hpp) over this report.

}  // namespace perfmodel::cli
