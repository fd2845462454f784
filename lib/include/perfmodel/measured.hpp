#pragma once
// A calibrated value, or empty: not measured. A measured 0 is a value; make_roofs (roofs.cpp)
// replaces only an empty one, by a documented default, and records which it used.
#include <optional>

namespace perfmodel {

using Measured = std::optional<double>;

}  // namespace perfmodel
