#pragma once
// A GPU as the cost model sees it: immutable specs in SI units (ARCHITECTURE.md: Card).
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/dtype.hpp"
#include "perfmodel/interconnect.hpp"

namespace perfmodel {

struct SmLimits {
  double shared_memory_per_sm = 0;     // bytes
  double shared_memory_per_block = 0;  // bytes, opt-in maximum
  double reserved_shared_memory_per_block = 0;  // bytes the system keeps per block (CC >= 8.0: 1 KiB)
  int registers_per_sm = 0;
  int max_registers_per_thread = 0;
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 0;
  int warp_size = 32;
};

struct Card {
  std::string key;  // catalogue key (file stem), e.g. "a100-80gb-sxm"
  std::string name, vendor, architecture, compute_capability;
  // The name the CUDA runtime reports (torch.cuda.get_device_name), empty where not stated: vLLM names its tuned
  // fused_moe files by it, spaces as underscores (catalogue/vllm_moe_configs.cpp).
  std::string cuda_name;
  std::string source_file;
  int sm_count = 0;
  double tensor_clock_hz = 0;  // the clock behind the tensor-core datasheet peaks
  double cuda_clock_hz = 0;    // the clock behind the FP32/FP64 CUDA-core peaks
  int tensor_cores_per_sm = 0, fp32_lanes_per_sm = 0, fp64_lanes_per_sm = 0;
  // Dense FMA per clock per tensor core, per precision (0 = not given).
  std::array<double, kPrecisionCount> tensor_fma_per_clock{};
  // Dense peak FLOP/s per precision as used by the model (stated, else derived; 0 = unsupported).
  std::array<double, kPrecisionCount> peak{};
  // Derived from units x clock where derivable (0 = not derivable).
  std::array<double, kPrecisionCount> derived_peak{};
  double memory_bytes = 0;
  double bus_width_bits = 0;
  double data_rate_bps = 0;   // per pin
  double bandwidth = 0;       // bytes/s: stated, else bus_width/8 x data_rate (seed 004)
  bool bandwidth_derived = false;
  double l2_bytes = 0;
  SmLimits limits;
  double launch_overhead_s = 0;  // per-kernel floor on the device
  Interconnect interconnect;     // NVLink, NVSwitch, PCIe, node NICs (interconnect.hpp)
  std::vector<std::string> warnings;  // load warnings (derived vs stated peaks over 2 %)

  bool supports(Precision p) const { return peak[static_cast<size_t>(p)] > 0; }
  // Throws InputError naming the card and the precisions it has when unsupported.
  double peak_flops(Precision p) const;
  // Nominal ridge point P / W in FLOP per byte (seed 000: RTX 4080 bf16 = 136).
  double ridge(Precision p) const { return peak_flops(p) / bandwidth; }
};

// The datasheet derivations (seed 004, reference A.4):
//   tensor peak = SMs x tensor cores/SM x FMA/clk/TC x 2 x tensor clock
//   fp32 peak   = SMs x FP32 lanes/SM x 2 x CUDA-core clock
//   bandwidth   = bus width / 8 x data rate per pin
double derive_tensor_peak(int sms, int tensor_cores_per_sm, double fma_per_clock, double clock_hz);
double derive_lane_peak(int sms, int lanes_per_sm, double clock_hz);
double derive_bandwidth(double bus_width_bits, double data_rate_bps);

}  // namespace perfmodel
