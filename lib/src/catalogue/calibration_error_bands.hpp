#pragma once
// The calibration file's `error_bands:` section (error_band.hpp):
//   error_bands:
//     fused:                      # profile: backend | fused | eager
//       source: "..."             # where the distribution was measured
//       gemm: {p10: -0.12, p90: 0.05, cases: 35}
#include <map>
#include <ostream>
#include <string>

#include "catalogue/yaml_reader.hpp"
#include "perfmodel/error_band.hpp"

namespace perfmodel::detail {

std::map<std::string, ErrorBands> read_error_bands(MapReader& calibration);
void write_error_bands(std::ostream& o, const std::map<std::string, ErrorBands>& bands);

// One set's `{p10: .., p90: .., cases: ..}` (also the collectives' held-out band).
ErrorQuantiles read_error_quantiles(MapReader q);
std::string error_quantiles_yaml(const ErrorQuantiles& q);

}  // namespace perfmodel::detail
