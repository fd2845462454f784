#pragma once
// Small helpers the kernel definitions share (internal).
#include <string>

#include "perfmodel/checked.hpp"
#include "perfmodel/kernel.hpp"
#include "perfmodel/ops.hpp"

namespace perfmodel::kernels {

// rows x cols as a double, the product checked for 64-bit overflow.
inline double elems(int64_t rows, int64_t cols, const std::string& name) {
  return static_cast<double>(checked_mul({rows, cols}, name));
}

}  // namespace perfmodel::kernels
