#pragma once
// Overflow-checked products of user-given sizes (ARCHITECTURE.md: "check products of
// user-given sizes for overflow").
#include <cstdint>
#include <initializer_list>
#include <string>

#include "perfmodel/errors.hpp"

namespace perfmodel {

// Product of non-negative factors; throws InputError naming `what` if it exceeds int64.
inline int64_t checked_mul(std::initializer_list<int64_t> factors, const std::string& what) {
  int64_t p = 1;
  for (int64_t f : factors) {
    if (f < 0) throw InputError(what + ": negative size " + std::to_string(f));
    if (__builtin_mul_overflow(p, f, &p))
      throw InputError(what + ": the product of the sizes overflows 64 bits");
  }
  return p;
}

}  // namespace perfmodel
