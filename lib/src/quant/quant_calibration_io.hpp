#pragma once
// The calibration file's `quant:` section <-> QuantCalibration (docs/calibration.md).
#include <string>

#include "catalogue/yaml_reader.hpp"
#include "perfmodel/quant_calibration.hpp"

namespace perfmodel::detail {

QuantCalibration parse_quant_calibration(MapReader m);
// "quant:\n  ..." (empty when nothing is measured).
std::string quant_calibration_yaml(const QuantCalibration& c);

}  // namespace perfmodel::detail
