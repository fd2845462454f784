#pragma once
// Calibration points from measurement to fit in memory (issue 9 item 4): perfmodel-gpu keeps what
// it measures as the library's RawCalibration, and writes the backend's raw JSON only when
// `calibrate --raw FILE` asks for it, in the format load_raw_calibration reads
// (validation/results/*/calibration-raw.json).
#include <string>

#include "perfmodel/calibration_fit.hpp"
#include "perfmodel/validation/validation.hpp"

namespace perfmodel::cli {

// collect_calibration's points, device, kernel floor and launch overhead. Points without a time
// (a failed measurement) are dropped, as load_raw_calibration drops them.
RawCalibration raw_from_backend(const validation::CalibrationData& d);
// The case a thread_chain / l2_residency point launched, as the library names it.
KernelCase raw_kernel_case(const std::string& what, const validation::Case& c, double rotated_bytes);
// One point calibrate adds beyond collect_calibration, as one JSON object of the raw file (the
// keys its `what` has always written).
std::string raw_point_json(const RawPoint& p);

}  // namespace perfmodel::cli
