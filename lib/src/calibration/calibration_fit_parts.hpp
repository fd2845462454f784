#pragma once
// Parts of fit_calibration (calibration_fit.cpp), one term each, in calibration_fit_parts.cpp.
// Each reads its raw points and the terms already fitted into `c`, and sets its own.
#include "perfmodel/calibration_fit.hpp"

namespace perfmodel {

// attention_peak, attention_softmax_share, attention_cta_fixed (docs/calibration.md).
void fit_prefill_attention(const RawCalibration& raw, const Card& card, Calibration& c);
// thread_chain, per kernel.
void fit_thread_chains(const RawCalibration& raw, const Card& card, Calibration& c);
// l2_cyclic_capacity.
void fit_l2_capacity(const RawCalibration& raw, const Card& card, Calibration& c);
// power_limit, idle_power, tensor_power, sustained_clock_scale.
void fit_power_cap(const RawCalibration& raw, const Card& card, Calibration& c);

}  // namespace perfmodel
