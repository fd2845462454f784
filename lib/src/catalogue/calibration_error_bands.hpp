#pragma once
// The calibration file's `error_bands:` section (error_band.hpp):
//   error_bands:
//     fused:                      # profile: backend | fused | eager
//       source: "..."             # where the distribution was measured
//       gemm: {p10: -0.12, p90: 0.05, cases: 35}
// and `sibling_error_bands:`, the same per card of the die this calibration is carried to (calibration_transfer.hpp):
//   sibling_error_bands:
//     h100-sxm:                   # a catalogue card of the same die
//       fused: {source: ..., gemm: ..., step: ...}
#include <map>
#include <ostream>
#include <string>

#include "catalogue/yaml_reader.hpp"
#include "perfmodel/error_band.hpp"

namespace perfmodel::detail {

using ErrorBandsByProfile = std::map<std::string, ErrorBands>;
ErrorBandsByProfile read_error_bands(MapReader& calibration);
void write_error_bands(std::ostream& o, const ErrorBandsByProfile& bands);
std::map<std::string, ErrorBandsByProfile> read_sibling_error_bands(MapReader& calibration);
void write_sibling_error_bands(std::ostream& o, const std::map<std::string, ErrorBandsByProfile>& bands);

// One set's `{p10: .., p90: .., cases: ..}` (also the collectives' held-out band).
ErrorQuantiles read_error_quantiles(MapReader q);
std::string error_quantiles_yaml(const ErrorQuantiles& q);

}  // namespace perfmodel::detail
