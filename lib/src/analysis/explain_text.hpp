#pragma once
// Numbers as `--explain` writes them inside formulas (explain.hpp).
#include <string>

#include "perfmodel/explain.hpp"

namespace perfmodel::detail {

inline std::string num(double v) { return explain_number(v); }

}  // namespace perfmodel::detail
