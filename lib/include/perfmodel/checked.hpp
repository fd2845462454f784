#pragma once
// Overflow-checked products of user-given sizes (ARCHITECTURE.md: "check products of
// user-given sizes for overflow").
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "perfmodel/errors.hpp"

namespace perfmodel {

// Product of non-negative factors; throws InputError naming `what` (and `detail`) if it
// exceeds int64. The message is built only when it throws: this runs in every prediction.
inline int64_t checked_mul(std::initializer_list<int64_t> factors, std::string_view what,
                           std::string_view detail = {}) {
  int64_t p = 1;
  for (int64_t f : factors) {
    const bool negative = f < 0;
    if (negative || __builtin_mul_overflow(p, f, &p)) {
      std::string msg(what);
      if (!detail.empty()) msg.append(" ").append(detail);
      msg.append(negative ? ": negative size " + std::to_string(f) : ": the product of the sizes overflows 64 bits");
      throw InputError(msg);
    }
  }
  return p;
}

}  // namespace perfmodel
