#pragma once
// The calibration file's `collectives:` section <-> CollectiveCalibration (docs/calibration.md).
#include <string>

#include "perfmodel/collective.hpp"
#include "catalogue/yaml_reader.hpp"

namespace perfmodel::detail {

CollectiveCalibration parse_collective_calibration(MapReader m);
// "collectives:\n  ..." (empty when nothing is measured).
std::string collective_calibration_yaml(const CollectiveCalibration& c);

}  // namespace perfmodel::detail
