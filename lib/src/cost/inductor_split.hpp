#pragma once
// Inductor's split row reductions (inductor_split.cpp): torch.compile reduces fewer than 2 x SMs rows
// of more than 8192 columns in chunks, as a partial reduction, a combine and a pointwise normalize.
#include <cstdint>
#include <optional>

#include "perfmodel/op.hpp"
#include "perfmodel/kernel.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

// The chunks a row is reduced in (Inductor's num_splits); 1 where the op does not split.
int64_t inductor_splits(const Op& op, const Roofs& r);

// The split's kernels one after another; empty where the op does not split.
std::optional<KernelTimes> inductor_split_cost(const Op& op, const Roofs& r);

}  // namespace perfmodel
