#pragma once
// Capacity planning (issue 13; docs/model.md, "Planning deployments"): which deployments of a
// model on a card serve requests of `ctx` prompt tokens and `output_len` generated tokens within a
// TTFT and a TPOT, ranked by tokens/s per GPU, and why the best of the others fail.
//
//  TPOT: one decode step of the deployment's batch at the mean context, ctx + output_len / 2.
//  TTFT: the prefill of one request's prompt (batch 1, ctx tokens, through every pipeline stage)
//        plus one decode step of the running batch, which the new request waits for (a serving
//        engine interleaves them).
//  Memory: weights and the KV cache of the whole batch at the longest context, ctx + output_len,
//        per GPU, within the usable share of its memory.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

struct PlanRequest {
  int64_t ctx = 4096;         // prompt tokens per request
  int64_t output_len = 512;   // generated tokens per request
  double ttft_s = 2;          // SLO on the time to the first token
  double tpot_s = 0.05;       // SLO on the time per output token
  int max_gpus = 0;           // GPUs available (0: one node of the card, interconnect.gpus_per_node)
  int64_t users = 0;          // concurrent requests to serve (0: one replica at its best batch)
  double memory_utilization = 0.9;
  // Candidates (empty: bf16, plus fp8 where the card has an fp8 peak; fused and eager).
  std::vector<DType> weight_dtypes, kv_dtypes;
  std::vector<Impl> impls;
  size_t max_rejected = 5;    // the best rejected deployments reported
  // Called on every step's workload before it is priced, its parallelism and dtypes set: the CLI sets the fused
  // profile's fused_moe tiles there (vLLM's shipped file for the deployment's experts, vllm_moe_configs.hpp).
  std::function<void(Workload&)> prepare;
};

struct Deployment {
  Parallelism parallel;
  int gpus = 0;
  int64_t batch = 0;             // sequences per replica
  DType weight_dtype = DType::bf16, kv_dtype = DType::bf16;
  Impl impl = Impl::fused;
  double ttft_s = 0, tpot_s = 0, prefill_s = 0;
  double tokens_per_s = 0, tokens_per_s_per_gpu = 0;  // generated tokens, all replicas
  double memory_per_gpu = 0;     // bytes at the longest context
  int64_t max_batch = 0;         // per replica, by memory
  bool meets = false;
  // Met: what stops a larger batch ("memory", "TPOT", "TTFT", "users"). Not met: why not.
  std::string limit;
};

struct PlanResult {
  std::vector<Deployment> deployments;  // meeting the SLOs, best tokens/s per GPU first
  std::vector<Deployment> rejected;     // the best of the others (at batch 1), with the reason
  int64_t evaluated = 0;                // steps priced
};

// Throws InputError for an impossible request (non-positive sizes or SLOs, a context beyond the
// model's positions, fewer than one GPU).
PlanResult plan(const Model& model, const Card& card, const Calibration* calibration, const PlanRequest& request);

}  // namespace perfmodel
