#pragma once
// Pricing an op on a card (ARCHITECTURE.md: price(Op, Card, Calibration) -> OpCost).
//
// Two times per op:
//  roofline_time_s  the seeds' bound max(F / P, M / W) at nominal datasheet peaks (seed 000);
//  time_s           the prediction: the roofline at effective roofs (measured, or nominal times
//                   a documented efficiency), with GEMM tile/wave quantization, a per-kernel
//                   floor, and the host launch gap for eager profiles (docs/model.md).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/quant_calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/error_band.hpp"
#include "perfmodel/fixed_part.hpp"
#include "perfmodel/gemm_tiling.hpp"
#include "perfmodel/op.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

enum class Bound { memory, compute, overhead };
std::string to_string(Bound b);

// The roofs pricing uses, resolved once per (card, calibration).
struct Roofs {
  Card card;                   // a copy: Roofs outlives the catalogue's Card
  bool calibrated = false;
  double read_bandwidth = 0;   // effective DRAM read stream, B/s
  double write_bandwidth = 0;  // effective DRAM write stream, B/s
  bool stream_one_bus = false;  // calibration's stream_one_bus: the mixed stream law (stream_rate.hpp)
  double l2_bandwidth = 0;     // effective L2 B/s
  double l2_cyclic_capacity = 0;  // L2 bytes a cyclically re-run working set may hold (l2_residency.hpp)
  std::array<double, kPrecisionCount> peak{};  // effective FLOP/s per precision
  double attention_peak = 0;   // flash prefill attention at head dim 128, FLOP/s over all SMs
  double attention_softmax_share = 0;  // of a K/V tile's time at head dim 128, not scaling with it
  double attention_cta_fixed_s = 0;    // per CTA: Q tile in, O tile out
  DecodeCosts decode;          // flash-decoding: per-CTA tile chain and combine costs
  double kernel_floor_s = 0;   // minimal device time of one kernel
  double kernel_switch_s = 0;  // ... plus this when it follows a different kernel
  double pass_latency_s = 0;   // fixed cost of one dependent sweep over memory
  double l2_pass_latency_s = 0;  // ... over data that is in L2
  double gemm_fixed_s = 0;     // fixed cost of a GEMM (prologue, first tiles, epilogue)
  double card_gemm_fixed_s = 0;  // the card-level gemm_fixed, kept when a profile's gemm block replaces it (cuBLASLt alone): what the other GEMM kernels' keys were fitted with (quant_gemm_cost.cpp)
  double gemm_fixed_per_k_s = 0;      // ... plus this per 1024 of K one CTA walks
  double gemm_stream_efficiency = 1;  // small-M GEMMs stream weights at this share of the read rate
  double gemm_split_k_s = -1;         // a split-K plan's reduction kernel (< 0: floor + one pass)
  double gemm_cta_walk_s = 0;         // one CTA's K loop per 1024 of K (0: not priced)
  double gemm_cutlass_tf32_fixed_s = -1;  // CUTLASS split-K tf32's own fixed time (< 0: cutlass_tf32_split_fixed_s; branch tf32split)
  double gemm_xmma_tf32_fixed_s = 0;  // sm90 xmma tf32 kernels' fixed time past gemm_fixed (a profile's block; branch fp8tf32)
  double gemm_cta_walk_share = -1;    // its share paid whatever the tile (< 0: the same for every tile)
  double gemm_split_k_min_slice = 0;  // cuBLASLt's split-K rule and the reduce's partials priced (0: not)
  double gemm_tile_refill = 0;  // 1: nvjet's tiles after an SM's first refill their stage ring (branch smallk)
  double gemm_epilogue_tail = 0;  // 1: the last wave's C write runs after its mainloop (branch shortk)
  double gemm_split_partials = 0;  // 1: a split plan's GEMM writes its fp32 partials after its K loop (branch gemmtile)
  double gemm_nvjet_wave_tiles = 0;  // 1: cuBLASLt's nvjet grids of whole waves, no stream-K (branch gemmtile2, opt-in)
  double gemm_nvjet_fill_tiles = 0;   // 1: nvjet's one-wave tiles are candidates (branch nvjettile, opt-in)
  double host_launch_s = 0;    // eager: host time per launch
  double eager_view_s = 0;     // eager: host time per framework call that launches nothing
  // Warp instructions per second all SMs issue on a mixed memory/arithmetic kernel: SMs x 4
  // schedulers x CUDA-core clock x the share of issue slots such kernels keep busy.
  double issue_rate = 0;
  // Small kernels: a thread's dependent chain beyond a copy's, per kernel (calibrated; empty =
  // derived from the kernel's instruction count, stream_cost.cpp).
  ThreadChains thread_chain_s{};
  PowerCap power;  // sustained steps: the board power cap (unknown: never capped)
  // The implementation profile whose kernels these roofs price (profile_calibration.hpp): empty
  // for the card's own roofs (the validation backend's kernels, its self-checks).
  std::string profile;
  Measured attention_call_floor_s;  // prefill attention's floor per call (not measured: the card's launch floor)
  // The measured error of predictions like these (calibration's error_bands for the profile, or
  // the uncalibrated distribution): the time bands of error_band.hpp.
  ErrorBands error_bands;
  ProductionDecode production_decode;  // decode attention as production kernels run it (unmeasured: flash_decode_cost's own)
  ProductionDecode flash2_decode;      // FlashAttention-2's split-KV decode: a profile's `decode:` block, whichever has it
  Measured host_per_kernel_s;
  Measured host_per_step_s;            // eager: the step's host time outside its ops (0 when not measured)          // eager host time per kernel launched (not measured: host_launch_s)
  Measured host_per_aten_s, host_per_module_s;  // eager host per ATen op / nn.Module call (hostmod2; set: replaces the two above)
  Measured host_per_aten_view_s;  // eager host per ATen op that launches nothing (hostaten; set: host_per_aten prices the launching ones)
  CollectiveCalibration collectives;   // NCCL between cards of this kind (unmeasured: NCCL's model values)
  QuantCalibration quant;              // weight-only GEMMs: measured, else QuantDefaults
  AtenKernels aten;                    // eager: PyTorch's own kernels (unmeasured: the card's costs)
  InductorKernels inductor;            // compiled and fused: Inductor's looped row reductions (unmeasured: stream model)
  FusedMoeGemm fused_moe;              // fused: vLLM's fused_moe grouped GEMM (unmeasured: gemm_cost)
  Flash2Prefill flash2;                // FlashAttention-2 prefill's own tiles (unmeasured: the card's attention rates)
  CudnnDecode cudnn_decode;            // compiled: cuDNN's decode SDPA (unmeasured: the card's floor and read rate)
  double graph_call_host_s = 0;        // compiled: host time before each step's graph starts
  double graph_call_host_per_input_s = 0;  // compiled: and per static graph input (Op::graph_inputs)
  double graph_kernel_gap_s = 0;       // compiled: GPU time between two kernels inside the graph replay
  double graph_launch_per_node_s = 0;  // fused: the host's graph launch per kernel node (host time)
  double harness_idle_s = 0;           // graph profiles: the harness idle taken off small kernels' floors
  // compiled: the eager roofs its prefill is priced with (that step runs uncompiled: runs_as).
  std::shared_ptr<const Roofs> uncompiled;
  // Where each roof above comes from, by its calibration key ("read_bandwidth", "gemm_peak.bf16",
  // "kernel_floor", ...): the calibration file and key, or the datasheet value and the default
  // efficiency applied (`--explain` prints these).
  std::map<std::string, std::string> sources;
  const std::string& source(const std::string& key) const;
};

// Documented default efficiencies for uncalibrated cards (docs/model.md cites each).
struct DefaultEfficiency {
  static constexpr double memory = 0.88;   // large copies reach 75-90 % (seed 004 Day 13; ref C.9: 4.3/4.8)
  static constexpr double gemm = 0.80;     // cuBLAS large squares reach ~80 % (ref C.10-12)
  static constexpr double vector = 0.70;   // FP32 CUDA-core arithmetic
  static constexpr double attention = 0.40;  // flash attention forward: ~half the GEMM rate
  static constexpr double pass_latency_s = 0.8e-6;  // ~one DRAM round trip plus a block barrier
  static constexpr double l2_pass_latency_s = 0.4e-6;  // ~one L2 round trip (H200: 0.45 us measured)
  static constexpr double gemm_fixed_s = 2e-6;      // GEMM prologue/epilogue (cuBLAS)
  static constexpr double gemm_fixed_per_k_s = 0.5e-6;  // K-loop pipeline per 1024 of K
  static constexpr double gemm_stream = 0.9;        // GEMV weight streams vs a copy's read rate
  static constexpr double host_launch_s = 6e-6;     // PyTorch eager dispatch + cudaLaunchKernel
  static constexpr double eager_view_s = 2e-6;      // PyTorch dispatch of a view (no kernel)
  // Flash-decoding's warp chain: Nsight Compute's "warp cycles per issued instruction" on the
  // H200 (4.1 alone, +1.8 per further CTA) and one DRAM round trip for the first tile.
  static constexpr double decode_cpi = 4.1;
  static constexpr double decode_cpi_per_cta = 1.8;
  static constexpr double decode_cta_fixed_s = 1.0e-6;
  static constexpr double decode_combine_split_s = 0.1e-6;  // one partial merged: an L2 hit
  // Issue slots a kernel that also waits on DRAM keeps busy (Nsight Compute's "Issue Slots
  // Busy" read 85-88 % on the issue-bound softmax kernels of validation/results/h200/ncu).
  static constexpr double issue = 0.85;
};

// The card's roofs, with `profile`'s own kernel costs laid over them when the calibration has that
// profile (no profile: the card's own roofs, which price the validation backend's kernels).
Roofs make_roofs(const Card& card, const Calibration* calibration, std::optional<Impl> profile = std::nullopt);

struct OpCost {
  double roofline_time_s = 0;  // per instance, nominal roofline
  double time_s = 0;           // per instance, prediction
  double compute_time_s = 0;   // F / P_eff (after wave quantization for GEMMs)
  double memory_time_s = 0;    // M / W_eff
  double overhead_time_s = 0;  // floor and launch gaps
  // The GPU's time (fixed + max(compute, memory)) and the host's (eager: the framework's dispatch
  // and launch of each kernel and view; fused: 0, a CUDA graph replays the step). time_s is the
  // longer of the two for an eager op alone.
  double device_time_s = 0, host_time_s = 0;
  Bound bound = Bound::memory;
  double nominal_peak = 0, nominal_bandwidth = 0;
  double achieved_flops = 0;   // F / time_s
  // The seed's three distances (seed 004 Day 15): to the slanted roof (overhead + kernel
  // efficiency), along it to the ridge (arithmetic intensity), and the nominal roof's gap to the
  // measured one (the card's own limit).
  double distance_to_roof = 1;   // attainable(AI) at nominal roofs / achieved, >= 1
  double distance_to_ridge = 1;  // ridge / AI when below the ridge, else 1
  double roof_gap = 1;           // nominal peak / effective peak
  std::optional<TilePlan> tiling;  // GEMMs
  std::vector<FixedPart> fixed_parts;  // the fixed time term by term, where the kernel names them
  // Per instance: where the measured time fell for predictions of this op's set (p10-p90).
  TimeBand time_band;
};

// `force_tile` prices a GEMM with that CTA tile instead of the best one.
// GEMM scheduling helpers shared with the calibration fit.
bool stream_k_capable(const Card& card);
// The GEMM plan on `card` that price() runs: the least priced under `costs` (cheapest_plan, with
// the card's stream-K capability and an SM's L2 port, 64 B per clock, for the partial sums).
TilePlan gemm_plan(const Card& card, int64_t m, int64_t n, int64_t k, int64_t batch, double peak_flops,
                   const PlanCosts& costs);
// The calibration fit's plan: the fastest by compute time (best_plan), on the same card terms.
// Not the priced plan: refitting the H200 raw points with the priced chooser (each round's plans
// under the previous round's fitted costs, to a fixed point) gave gemm_fixed 1.1 us and
// gemm_fixed_per_1024_k 0.6 us, and held-out GEMMs got worse (h200-gemm-models 4.5 -> 5.4 %
// median, the suite 3.9 -> 4.9 %), so the fit keeps this rule (docs/model.md, GEMMs).
TilePlan fit_gemm_plan(const Card& card, int64_t m, int64_t n, int64_t k, int64_t batch, double peak_flops);

OpCost price(const Op& op, const Roofs& roofs, Impl impl, const Tile* force_tile = nullptr);

// Eager: the host's time to issue an op. With the profile's host_per_aten (branch hostmod2): each
// top-level ATen op transformers dispatches, launching or not, and each nn.Module call that starts
// at this op; otherwise host_per_kernel (else the card's launch) per kernel plus eager_view per
// call that launches nothing.
double eager_host_time(const Op& op, const Roofs& roofs);

// Flash prefill: one K/V tile's time on one SM at this head dim, its MMAs at `precision`'s tensor rate
// (flash_prefill_cost.cpp).
double attention_tile_time(const Roofs& roofs, int64_t head_dim, Precision precision = Precision::bf16);

}  // namespace perfmodel

#include "perfmodel/step.hpp"

namespace perfmodel {

struct StepCost {
  std::vector<OpCost> ops;     // per instance, parallel to Step::ops
  // The wall time a user waits: fused, the device time (one graph replay); eager, the host
  // issuing kernels into the launch queue and the GPU running them as they come (combine_step).
  double time_s = 0;
  double device_time_s = 0;    // sum of count x device time over ops (what a profiler's kernel time shows)
  double host_time_s = 0;      // sum of count x host time over ops
  double roofline_time_s = 0;  // sum of count x roofline time
  double compute_time_s = 0, memory_time_s = 0, overhead_time_s = 0;  // time shares by bound
  Bound bound = Bound::memory;  // the bound holding the largest share of time
  // Sustained (a serving loop, or steps with Workload::gpu_rest_s between them): the clock scale the
  // power cap leaves (1: under the cap); every op's compute time is stretched by 1 / clock_scale
  // (power.hpp).
  double clock_scale = 1;
  // The step's p10-p90 band: from whole-step validations when the bands have a "step" set, else
  // the ops' bands summed (errors taken as fully correlated: the wider, honest choice).
  TimeBand time_band;
};

// rest_s: the seconds the GPU rests before each step (Workload::gpu_rest_s; the power cap's average).
StepCost price_step(const Step& step, const Roofs& roofs, Impl impl, double rest_s = 0);
// The step of workload w priced in the implementation it runs in (runs_as, step.hpp): a compiled
// profile's prefill with roofs.uncompiled, as eager.
StepCost price_step(const Step& step, const Roofs& roofs, const Workload& w);
// The step from its ops already priced one by one (`costs` parallel to `ops`, as price() gives
// them): the kernel switch of a fused step, the power cap's clock, the sums and the bound.
// price_step is price() of each op and then this; the Predictor reuses priced ops through it.
StepCost combine_step(const std::vector<const Op*>& ops, std::vector<OpCost> costs, const Roofs& roofs, Impl impl,
                      double rest_s = 0);

}  // namespace perfmodel
