// Test-only hooks of the validation backend (plain C++).
#pragma once
#include "perfmodel/validation/validation.hpp"

namespace perfmodel::validation::testing {
// Runs the correctness check of a deliberately broken copy kernel (it skips the last element).
// A working harness returns ok=false, correct=false with an error naming the unwritten element.
Result run_broken_copy_check(int64_t rows, int64_t cols);
// Runs the correctness check of a copy kernel that writes a wrong value into one element.
Result run_wrong_value_check(int64_t rows, int64_t cols);
}  // namespace perfmodel::validation::testing
