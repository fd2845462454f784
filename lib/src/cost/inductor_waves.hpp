#pragma once
// Inductor's pointwise kernels compiled with a small block: a grid of many short CTAs whose time
// is their waves of dependent latency, not their bytes (inductor_waves.cpp).
#include <optional>

#include "perfmodel/op.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

// The waves beyond the first (which the kernel's fixed cost holds) times `wave_s`, one CTA's
// dependent chain; nullopt where the op carries no Inductor block (op.inductor_block).
std::optional<double> inductor_block_waves_s(const Op& op, const Roofs& r, double wave_s);

}  // namespace perfmodel
