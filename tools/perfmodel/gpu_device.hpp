#pragma once
// The CUDA device the validation backend runs on (cmd_gpu.cpp).
#include <string>

#include "perfmodel/validation/validation.hpp"

namespace perfmodel::cli {

// Throws UsageError (exit code 2) naming why when there is no usable CUDA device.
void require_device();
// The catalogue card for the device the backend sees (H200 -> h200 ...), unless --card names one.
std::string card_for_device(const perfmodel::validation::DeviceInfo& d);

}  // namespace perfmodel::cli
