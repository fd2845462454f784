#pragma once
// One GPU's step under parallelism, and what the pipeline and the replicas make of it (issue 13;
// docs/model.md, "Parallelism"). build_step() builds the sharded step itself when the workload
// asks for parallelism; evaluate() adds the pipeline and the replicas (ParallelAnalysis).
#include <cstdint>

#include "perfmodel/card.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/parallel.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

// Throws InputError naming the flag: degrees outside 1..65536, tp not dividing the heads, the FFN
// width or (unless it replicates them) the KV heads, more stages than layers, ep on a dense model.
void validate_parallelism(const Model& m, const Parallelism& p);
// Throws InputError when tp x pp x ep x dp GPUs exceed one node and the card states no NIC.
void validate_parallelism(const Card& card, const Parallelism& p);

// One GPU's model: heads, KV heads (at least one, replicated), FFN width and vocabulary split by
// tp; ceil(layers / pp) layers; with stages, one vocabulary table (the busiest stage's).
Model shard_model(const Model& m, const Parallelism& p);

// Pipeline micro-batches the workload runs (its own, else pp in decode, min(batch, pp) in prefill)
// and the sequences in each.
int64_t micro_batches(const Workload& w);
int64_t micro_batch_size(const Workload& w);

// The pipeline and the replicas over one GPU's step (docs/model.md, "Pipeline").
struct ParallelAnalysis {
  Parallelism parallel;
  int gpus = 1, gpus_per_replica = 1;
  int64_t layers_per_stage = 0;
  int64_t micro_batches = 1, micro_batch = 1;  // count, and sequences in each
  double stage_time_s = 0;     // the busiest stage (the last: its layers and the LM head), one micro-batch
  double once_time_s = 0;      // of which the ops that run once per step (embedding, final norm, head)
  double p2p_time_s = 0;       // one stage-to-stage send of a micro-batch's activations
  double latency_s = 0;        // one micro-batch through every stage: pp x layers + once + (pp-1) x p2p
  double collective_time_s = 0;  // collectives (TP all-reduces, EP all-to-alls) on a stage's path, per micro-batch
  double bubble = 0;           // share of the busiest stage's time it idles
  double step_time_s = 0;      // decode: TPOT; prefill: the whole batch's prompts
  double tokens_per_s_replica = 0, tokens_per_s = 0, tokens_per_s_per_gpu = 0;
};

// `stage` is one micro-batch's step on one GPU (build_step of the micro-batch), priced.
ParallelAnalysis analyze_parallel(const Model& m, const Workload& w, const Step& stage, const StepCost& cost,
                                  double p2p_time_s);

}  // namespace perfmodel
