#pragma once
// Inductor's one-warp persistent reductions (inductor_one_warp.cpp): the launch shape Inductor gives a
// row reduction of 256-1024 columns over many rows.
#include <optional>

#include "perfmodel/card.hpp"
#include "perfmodel/op.hpp"

namespace perfmodel {

struct OneWarpLaunch {
  double rows_per_cta = 1;         // XBLOCK
  double elements_per_thread = 0;  // the padded row(s) of a CTA over its 32 lanes
  double warps_per_sm = 0;         // one-warp CTAs on the busiest SM, over the whole launch
};

// The launch of Inductor's persistent row reduction when its config is one warp a CTA; nullopt for
// any other shape (the caller has already decided the op is Inductor's persistent reduction).
std::optional<OneWarpLaunch> inductor_one_warp(const Op& op, const Card& card);

}  // namespace perfmodel
