#pragma once
// Reads a card's `interconnect:` mapping (internal: the card loader calls it).
#include "perfmodel/interconnect.hpp"
#include "catalogue/yaml_reader.hpp"

namespace perfmodel::detail {

// Throws ConfigError naming file, line and field for a missing, unknown or inconsistent key.
Interconnect parse_interconnect(MapReader ic);

}  // namespace perfmodel::detail
