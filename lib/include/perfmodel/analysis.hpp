#pragma once
// Step-level analyses (seed 004 Day 16-17; seed 000): AI(b), AI_max, b*, memory footprint and
// the largest batch that fits, TPOT floor, TTFT, tokens/s, MFU and HFU.
#include <cstdint>
#include <optional>

#include "perfmodel/card.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/step.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

// --- the seed's formulas, each on plain numbers so they can be checked by hand -------------
// Decode arithmetic intensity with the KV cache (seed 004 Day 16):
//   AI(b) = 2 N b / (W + b n kv), W = weight bytes (2N in bf16), kv = KV bytes per token.
double decode_ai(double params, double weight_bytes, double batch, double ctx, double kv_per_token);
// The ceiling as b -> infinity: AI_max = 2N / (n kv).
double decode_ai_max(double params, double ctx, double kv_per_token);
// The batch at which AI(b) reaches the ridge: b* = ridge W / (2N - ridge n kv); nullopt
// ("never") when AI_max <= ridge.
std::optional<double> decode_b_star(double ridge, double params, double weight_bytes, double ctx,
                                    double kv_per_token);
// KV bytes per token: 2 (K and V) x layers x kv heads x head_dim x bytes (reference B.3).
double kv_bytes_per_token(const Model& m, DType kv);
// The KV bytes per token the workload's profile caches: the family's, except MLA under the
// eager profile, where HF's DeepseekV3Attention caches the expanded per-head keys (qk_head_dim)
// and values (v_head_dim): layers x heads x (qk + v) x bytes.
double cached_bytes_per_token(const Model& m, const Workload& w);
// KV bytes one sequence holds at context n, with sliding windows capping local layers.
double kv_bytes_per_sequence(const Model& m, DType kv, int64_t ctx);
// Parameters a decode step of `batch` sequences reads (MoE: every non-routed weight plus, per
// MoE layer, the expected distinct routed experts the batch touches, ops::experts_touched at
// `skew`); all parameters for a dense model.
double decode_weight_parameters(const Model& m, double batch, double skew = 0);
// MoE decode AI(b) with the bytes the step really moves: 2 N_active b / (W(b) + b n kv), W(b) =
// decode_weight_parameters(b) x bytes per weight. Equals decode_ai for a dense model.
double moe_decode_ai(const Model& m, double bytes_per_weight, double batch, double ctx, double kv_per_token,
                     double skew = 0);
// The smallest whole batch with moe_decode_ai >= ridge; nullopt when AI_max = 2 N_active / (n kv)
// does not exceed the ridge.
std::optional<double> moe_decode_b_star(const Model& m, double ridge, double bytes_per_weight, double ctx,
                                        double kv_per_token, double skew = 0);
// The KV bytes one sequence of the workload caches at its context: kv_bytes_per_sequence (window
// capped), or cached_bytes_per_token x ctx for MLA under the eager profile. The memory plan and
// AI(b), AI_max and b* all use this figure as the seed's "n kv".
double cached_bytes_per_sequence(const Model& m, const Workload& w);
// Transient activations per sequence of the step (the widest live tensors and the logits).
double activation_bytes_per_sequence(const Model& m, const Workload& w);

// Share of device memory a serving engine plans with (vLLM's gpu_memory_utilization default).
inline constexpr double kDefaultMemoryUtilization = 0.9;

struct MemoryPlan {
  double capacity = 0, usable = 0;  // bytes; usable = capacity x utilization
  double weights = 0, kv = 0, activations = 0, total = 0;
  bool fits = false;
  int64_t max_batch = 0;  // largest batch whose footprint fits (0: not even one)
};
MemoryPlan plan_memory(const Model& m, const Workload& w, const Card& card, double utilization);

struct Analysis {
  double parameters = 0, weight_bytes = 0, kv_bytes_per_token = 0;
  // KV bytes one sequence holds at the step's context (sliding windows capped): the "n kv" of
  // AI(b), AI_max and b*, and the memory plan's per-sequence KV.
  double kv_bytes_per_sequence = 0;
  // MoE: parameters one token uses, and the weight bytes a decode step of this batch reads (the
  // touched experts'); for a dense model the parameters and the weight bytes.
  bool moe = false;
  double active_parameters = 0, decode_weight_bytes = 0;
  double ridge = 0;   // nominal, at the step's matmul precision
  double ai = 0, ai_max = 0;
  std::optional<double> b_star;
  MemoryPlan memory;
  double step_time_s = 0;
  double tpot_s = 0;        // decode: the step time
  double tpot_floor_s = 0;  // (weights + b n kv) / nominal bandwidth (seed 004 W2)
  double ttft_s = 0;        // prefill of the prompt for the whole batch (b x ctx tokens)
  // One request's prefill alone (batch 1, ctx tokens): what a user waits for when the request
  // is not queued behind the batch's others. Set by evaluate(); equals ttft_s at batch 1.
  double ttft_per_request_s = 0;
  double tokens_per_s = 0;
  double mfu = 0, hfu = 0;  // model / hardware FLOPs over time over the nominal peak
};

// `prefill_time_s` is the priced prefill step of the same batch (TTFT); pass 0 to skip.
Analysis analyze(const Model& m, const Workload& w, const Step& step, double step_time_s,
                 double prefill_time_s, const Card& card, double utilization);

}  // namespace perfmodel
