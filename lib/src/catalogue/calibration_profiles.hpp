#pragma once
// The `profiles:` section of a calibration file (calibration_profiles.cpp).
#include <ostream>
#include <vector>

#include "perfmodel/profile_calibration.hpp"
#include "catalogue/yaml_reader.hpp"

namespace perfmodel::detail {

// Reads `profiles:` of a calibration mapping (absent: none). Throws ConfigError.
std::vector<ProfileCalibration> read_profiles(MapReader& calibration);
void write_profiles(std::ostream& o, const std::vector<ProfileCalibration>& profiles);

}  // namespace perfmodel::detail
