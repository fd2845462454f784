#pragma once
#include <map>
// Measured roofs of one card (written by `perfmodel calibrate --on-gpu`, read by the cost
// model). Every field but the two required roofs is a `Measured`: empty means "not measured"
// (a measured 0 is a value), and make_roofs() then falls back to the datasheet value times a
// documented default efficiency (docs/model.md), recording which it used (Roofs::sources).
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/collective.hpp"
#include "perfmodel/decode_attention.hpp"
#include "perfmodel/dtype.hpp"
#include "perfmodel/error_band.hpp"
#include "perfmodel/measured.hpp"
#include "perfmodel/op.hpp"
#include "perfmodel/power.hpp"
#include "perfmodel/profile_calibration.hpp"
#include "perfmodel/quant_calibration.hpp"

namespace perfmodel {

// Per kernel: the time one thread's chain of dependent work takes beyond a copy's (index
// arithmetic, dependent index loads, block reductions, math), seconds; empty = not measured.
using ThreadChains = std::array<Measured, kKernelIdCount>;

// Flash-decoding's per-CTA costs as measured (decode_attention.hpp's DecodeCosts, each field
// resolved by make_roofs to the measured value or a documented default).
struct DecodeCalibration {
  Measured cpi, cpi_per_cta, cta_fixed_s, combine_split_s;
  Measured overlap;  // the exponent n of (stream^n + chain^n)^(1/n); a measured 0 means max()
};

struct Calibration {
  std::string card_key;       // the catalogue card it belongs to
  std::string source_card;    // the card it was measured on (card_key, unless carried: calibration_transfer.hpp)
  std::string device_name;    // as the driver names it
  std::string measured_on;    // date
  std::string source_file;
  double dram_bandwidth = 0;  // B/s, large device-to-device copy, read + write counted
  // DRAM reads and writes stream at different rates (bus turnaround, seed 004 Day 13): fitted
  // from a copy (half writes) and an add (a third writes).
  Measured read_bandwidth, write_bandwidth;
  // 1: reads and writes share one bus, the minority direction at write_bandwidth, the majority at
  // read_bandwidth, and a copy's L2 roof (stream_rate.hpp, branch castcopy); absent or 0: reads at
  // read_bandwidth plus writes at write_bandwidth. Opt-in: validation/results/h200-castcopy.
  Measured stream_one_bus;
  Measured l2_bandwidth;    // B/s, L2-resident copy
  Measured l2_cyclic_capacity;  // bytes: the random-replacement capacity of l2_residency.hpp
  // FLOP/s per SM-slot on large squares, with the shape's own wave quantization taken out.
  std::array<Measured, kPrecisionCount> gemm_peak{};
  Measured attention_peak;  // FLOP/s of the fused prefill attention kernel at head dim 128, same convention
  // Share of a K/V tile's time that does not scale with the head dim (the softmax), and what a
  // CTA pays once (Q tile in, O tile out): from the same kernel at head dim 64 and short sequences.
  Measured attention_softmax_share;
  Measured attention_cta_fixed_s;
  DecodeCalibration decode;    // flash-decoding: tile, CTA fixed cost, SM contention, combine per split
  double kernel_floor_s = 0;  // device time of the smallest kernel in a graph replay
  Measured kernel_switch_s;  // ... plus this when it follows a different kernel
  Measured pass_latency_s;  // fixed cost of one dependent sweep over memory (memory ramp)
  Measured l2_pass_latency_s;  // ... over L2-resident data (the ramp's smallest copy)
  // Fixed cost of a GEMM beyond max(compute, memory) (M ramp fit), plus this per 1024 of the K
  // one CTA walks (pipeline not hidden); a fitted 0 is a value.
  Measured gemm_fixed_s;
  Measured gemm_fixed_per_k_s;
  Measured gemm_stream_efficiency;  // weight-streaming GEMMs (small M) reach this share of the read rate
  Measured host_launch_s;   // wall time per eager launch (host launch overhead)
  // PyTorch eager: host time per framework op that launches a kernel, and per op that launches
  // none (a view), from a tight loop of each (validation/scripts/torch_eager.py).
  Measured eager_dispatch_s, eager_view_s;
  // Share of the issue slots (SMs x 4 schedulers x CUDA-core clock) an issue-bound kernel that
  // also streams DRAM keeps busy: fitted on fused softmaxes of counted instructions.
  Measured issue_efficiency;
  // Small kernels: the thread chain beyond a copy's, per kernel, from tiny L2-resident launches.
  ThreadChains thread_chain_s{};
  // Sustained load: the board power cap, idle draw and a tensor-bound GEMM's draw at full clock
  // (from a GEMM sustained at the cap); and that GEMM's measured clock scale (reported).
  PowerCap power;
  Measured sustained_clock_scale;
  // Memory-bound ramp t = t0 + bytes / BW over copies of growing size (reported, for the W3 table).
  double ramp_t0_s = 0;
  double ramp_bandwidth = 0;
  // NCCL collectives between cards of this kind (collective.hpp): fitted latencies and bandwidths.
  CollectiveCalibration collectives;
  // Quantized GEMMs: weight-only dequantization costs (`quant:`, quant_calibration.hpp).
  QuantCalibration quant;
  // Per implementation profile: what its own kernels cost on this card (`profiles:`).
  std::vector<ProfileCalibration> profiles;
  // The measured error of this card's predictions per profile ("backend", "fused", "eager"):
  // `error_bands:`, written by `perfmodel accuracy --bands` (error_band.hpp).
  std::map<std::string, ErrorBands> error_bands;
  // The same measured on another card of the die, keyed by its catalogue key (`sibling_error_bands:`): what
  // transfer_calibration gives that card instead of these (calibration_transfer.hpp).
  std::map<std::string, std::map<std::string, ErrorBands>> sibling_error_bands;
};

// Loads a calibration file (YAML, docs/calibration.md). Throws ConfigError.
Calibration load_calibration(const std::string& path);
// Serializes to the same YAML.
std::string to_yaml(const Calibration& c);

}  // namespace perfmodel
