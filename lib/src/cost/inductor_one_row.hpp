#pragma once
// Inductor's add+RMSNorm at one row: one 512-thread CTA walks the row, each thread a chain of its
// elements, so its dependent chain grows with the row where the calibrated thread chain (one
// iteration of 8 elements) does not (inductor_one_row.cpp).
#include "perfmodel/op.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

// Seconds the one-row CTA's chain differs from the calibrated 8-element iteration (negative under 8
// elements a thread); 0 for every op but a compiled-profile rms_norm of one row and 1025-2048 columns.
double inductor_one_row_chain_s(const Op& op, const Roofs& r);

}  // namespace perfmodel
