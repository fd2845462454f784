#pragma once
// The document printers (printer.hpp): pages and charts drawn from a command's Report tree and
// written to a file, next to the table/csv/json a command prints.
#include <cstddef>
#include <string>

#include "printer.hpp"

namespace perfmodel::cli {

// `roofline --svg`: a log-log chart of a roofline Report (inputs.card/model/workload, roofs,
// points[].name/intensity/predicted_flops): the nominal roof dashed, the measured one solid.
struct RooflineSvg : Printer {
  std::string print(const Report& r) const override;
};

// `accuracy --markdown` (docs/accuracy.md): of an accuracy Report (inputs, sets, cases) the data
// set, card, date, commit, the error table, the worst cases and the error by kernel; then the
// notes. What the tree does not hold is given here.
struct AccuracyMarkdown : Printer {
  std::string date;         // YYYY-MM-DD
  size_t kernel_cases = 0;  // measured kernel cases loaded (some may be unpriceable)
  size_t steps = 0;         // measured whole steps loaded
  std::string notes;        // appended as it is (cmd_accuracy puts a newline before --notes)
  std::string print(const Report& r) const override;
};

}  // namespace perfmodel::cli
