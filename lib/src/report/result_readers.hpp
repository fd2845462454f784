#pragma once
// The readers of results.hpp on a file already parsed, so a caller that first asks which kind
// a file is (load_measurements walks a folder) parses it once.
#include <optional>

#include "perfmodel/results.hpp"
#include "result_record.hpp"

namespace perfmodel::detail {

ResultKind result_kind(const Record& root);
// nullopt for a JSON object of none of the kinds (a folder's other data: versions, fits).
std::optional<ResultKind> try_result_kind(const Record& root);
KernelSuite kernel_suite_from(const Record& root);
StepValidation step_validation_from(const Record& root);
// The shape fields of a KernelCase (m, n, k, rows, ..., l2_resident, rotated_bytes).
void read_kernel_shape(const Record& r, KernelCase& c);
RawCalibration raw_calibration_from(const Record& root);

}  // namespace perfmodel::detail
