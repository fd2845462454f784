#pragma once
// How one model is spread over GPUs (issue 13; docs/model.md, "Parallelism"): tensor parallelism
// (Megatron-LM's column- and row-parallel GEMMs, heads split, one all-reduce after attention and
// one after the MLP), pipeline parallelism (layers in stages, activations sent stage to stage,
// micro-batches), expert parallelism (a MoE layer's experts split, tokens sent to them by
// all-to-all) and data parallelism (whole replicas). A Workload carries one (workload.hpp);
// build_step then builds one GPU's step and evaluate() adds the pipeline and the replicas.
#include <cstdint>
#include <string>

namespace perfmodel {

struct Parallelism {
  int tp = 1;  // tensor-parallel GPUs: one layer's GEMMs, heads and KV heads split over them
  int pp = 1;  // pipeline stages: ceil(layers / pp) layers on each
  int ep = 1;  // expert-parallel GPUs (MoE models): experts split, attention data-parallel over them
  int dp = 1;  // replicas, each serving its own `batch` sequences
  // Pipeline micro-batches per step: 0 = the default (pp in decode, so every stage holds one;
  // min(batch, pp) in prefill).
  int64_t micro_batches = 0;

  int gpus_per_replica() const { return tp * pp * ep; }
  int gpus() const { return gpus_per_replica() * dp; }
  bool any() const { return tp > 1 || pp > 1 || ep > 1 || dp > 1; }
  // Whether one GPU's step differs from the whole model's (dp alone replicates it unchanged).
  bool sharded() const { return tp > 1 || pp > 1 || ep > 1; }
};

// "tp2 pp1 ep1 dp1"
std::string to_string(const Parallelism& p);

}  // namespace perfmodel
