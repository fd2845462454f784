// Pipeline stages, micro-batches and replicas over one GPU's step (docs/model.md, "Pipeline").
// The priced step is the busiest stage (the last: ceil(layers / pp) layers, the final norm and
// the LM head) running one micro-batch. A micro-batch crosses the stages one after another:
//   latency = pp x t_layers + t_once + (pp - 1) x t_p2p,
// t_layers the stage's per-layer ops, t_once those that run once per step (embedding, final norm,
// LM head and their collectives). The busiest stage runs m micro-batches per step: m x t_stage.
//  - prefill (GPipe, Huang et al. 2019): the batch's m micro-batches follow each other through the
//    pipeline, T = (m - 1) x t_stage + latency; with equal stages the idle share is the bubble
//    (pp - 1) / (m + pp - 1).
//  - decode: a sequence's next token needs its previous one, so each micro-batch makes one round
//    trip per token; with m micro-batches in flight (vLLM runs pp of them) the stages stay busy:
//    TPOT = max(m x t_stage, latency).
// Replicas (dp) multiply the tokens and the GPUs alike.
#include <algorithm>
#include <cmath>

#include "parallel_internal.hpp"
#include "perfmodel/errors.hpp"

namespace perfmodel {

int64_t micro_batches(const Workload& w) {
  const int64_t pp = w.parallel.pp;
  const int64_t m = w.parallel.micro_batches > 0 ? w.parallel.micro_batches
                    : w.phase == Phase::decode   ? pp
                                                 : std::min(w.batch, pp);
  return std::clamp<int64_t>(m, 1, std::max<int64_t>(w.batch, 1));  // no more micro-batches than sequences
}

int64_t micro_batch_size(const Workload& w) {
  const int64_t m = micro_batches(w);
  return (w.batch + m - 1) / m;
}

ParallelAnalysis analyze_parallel(const Model& m, const Workload& w, const Step& stage, const StepCost& cost,
                                  double p2p_time_s) {
  const Parallelism& p = w.parallel;
  ParallelAnalysis a;
  a.parallel = p;
  a.gpus = p.gpus();
  a.gpus_per_replica = p.gpus_per_replica();
  a.layers_per_stage = (m.layers + p.pp - 1) / p.pp;
  a.micro_batches = micro_batches(w);
  a.micro_batch = micro_batch_size(w);
  a.stage_time_s = cost.time_s;  // overlapping ops (the stage's send) are not in it
  for (size_t i = 0; i < stage.ops.size(); ++i) {
    const Op& op = stage.ops[i];
    if (op.overlaps) continue;
    if (op.count == 1) a.once_time_s += cost.ops[i].time_s;
    if (op.kind == OpKind::collective) a.collective_time_s += static_cast<double>(op.count) * cost.ops[i].time_s;
  }
  a.p2p_time_s = p.pp > 1 ? p2p_time_s : 0;
  const double layers_s = a.stage_time_s - a.once_time_s;
  a.latency_s = p.pp * layers_s + a.once_time_s + (p.pp - 1) * a.p2p_time_s;
  const double busy = static_cast<double>(a.micro_batches) * a.stage_time_s;
  a.step_time_s = w.phase == Phase::decode ? std::max(busy, a.latency_s)
                                           : (static_cast<double>(a.micro_batches) - 1) * a.stage_time_s + a.latency_s;
  a.bubble = a.step_time_s > 0 ? std::max(0.0, 1 - busy / a.step_time_s) : 0;
  a.tokens_per_s_replica = a.step_time_s > 0 ? static_cast<double>(w.tokens()) / a.step_time_s : 0;
  a.tokens_per_s = a.tokens_per_s_replica * p.dp;
  a.tokens_per_s_per_gpu = a.tokens_per_s / a.gpus;
  return a;
}

Evaluation evaluate_parallel(const Model& m, const Workload& w, const Roofs& roofs, const EvaluateOptions& o) {
  validate(m, w);
  validate_parallelism(m, w.parallel);
  validate_parallelism(roofs.card, w.parallel);
  // Expert parallelism: each of the ep GPUs attends for its share of the micro-batch.
  const int64_t ep = w.parallel.ep;
  Workload micro = w;
  micro.batch = (micro_batch_size(w) + ep - 1) / ep;
  Evaluation e{w, build_step(m, micro), {}, {}, {}, {}, {}};
  e.cost = price_step(e.step, roofs, w);
  double p2p = 0;
  for (size_t i = 0; i < e.step.ops.size(); ++i)
    if (e.step.ops[i].overlaps) p2p += static_cast<double>(e.step.ops[i].count) * e.cost.ops[i].time_s;
  e.parallel = analyze_parallel(m, w, e.step, e.cost, p2p);
  double ttft = 0;
  if (w.phase == Phase::decode && o.with_ttft) {
    Workload pre = w;
    pre.phase = Phase::prefill;
    pre.parallel.micro_batches = 0;  // the prefill's own default
    ttft = evaluate_parallel(m, pre, roofs, {o.memory_utilization, false}).parallel->step_time_s;
  }
  // Per GPU: the busiest stage's weights and KV cache of all the replica's sequences.
  const Model shard = w.parallel.sharded() ? shard_model(m, w.parallel) : m;
  Workload per_gpu = w;  // the KV cache a GPU holds: its share of the sequences under ep
  per_gpu.batch = (w.batch + ep - 1) / ep;
  e.analysis = analyze(shard, per_gpu, e.step, e.parallel->step_time_s, ttft, roofs.card, o.memory_utilization);
  if (o.with_ttft) {
    // TTFT above is the whole batch's prefill; one request's own is its prefill alone on one
    // replica (batch 1, one micro-batch, through every stage).
    Workload one = w;
    one.phase = Phase::prefill;
    one.batch = 1;
    one.parallel.dp = 1;
    one.parallel.micro_batches = 0;
    e.analysis.ttft_per_request_s =
        w.batch == 1 && w.parallel.dp == 1 && w.phase == Phase::prefill
            ? e.analysis.ttft_s
            : evaluate_parallel(m, one, roofs, {o.memory_utilization, false}).parallel->step_time_s;
  }
  // The step holds one micro-batch; the busiest GPU runs all of them in a step time.
  e.analysis.mfu *= static_cast<double>(e.parallel->micro_batches);
  e.analysis.hfu *= static_cast<double>(e.parallel->micro_batches);
  return e;
}

}  // namespace perfmodel
