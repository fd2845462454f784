#include "parallel_cli.hpp"

namespace perfmodel::cli {

void add_parallel(po::options_description& d, ParallelArgs& a) {
  d.add_options()("tp", po::value(&a.tp)->default_value(a.tp),
                  "tensor-parallel GPUs: GEMMs, heads and KV heads split, an all-reduce after attention and after the MLP")(
      "pp", po::value(&a.pp)->default_value(a.pp), "pipeline stages: ceil(layers / pp) layers on each")(
      "ep", po::value(&a.ep)->default_value(a.ep), "expert-parallel GPUs (mixture-of-experts models only)")(
      "dp", po::value(&a.dp)->default_value(a.dp), "data-parallel replicas, each serving --batch sequences")(
      "micro-batches", po::value(&a.micro_batches)->default_value(a.micro_batches),
      "pipeline micro-batches (0: pp in decode, min(batch, pp) in prefill)");
}

void apply_parallel(const ParallelArgs& a, Workload& w) {
  for (auto [v, flag] : {std::pair{a.tp, "--tp"}, {a.pp, "--pp"}, {a.ep, "--ep"}, {a.dp, "--dp"}})
    if (v < 1) throw UsageError(std::string(flag) + " must be at least 1, got " + std::to_string(v));
  if (a.micro_batches < 0)
    throw UsageError("--micro-batches must be 0 (the default) or positive, got " + std::to_string(a.micro_batches));
  w.parallel.tp = a.tp;
  w.parallel.pp = a.pp;
  w.parallel.ep = a.ep;
  w.parallel.dp = a.dp;
  w.parallel.micro_batches = a.micro_batches;
}

Node parallelism_node(const Parallelism& p) {
  Node n = Node::object();
  n.set("tp", Node::integer(p.tp));
  n.set("pp", Node::integer(p.pp));
  n.set("ep", Node::integer(p.ep));
  n.set("dp", Node::integer(p.dp));
  n.set("gpus", Node::integer(p.gpus()));
  return n;
}

void add_parallel_report(Report& r, const Evaluation& e) {
  if (!e.parallel) return;
  const ParallelAnalysis& a = *e.parallel;
  Node n = parallelism_node(a.parallel);
  n.set("gpus_per_replica", Node::integer(a.gpus_per_replica));
  n.set("layers_per_stage", Node::integer(a.layers_per_stage));
  n.set("micro_batches", Node::integer(a.micro_batches));
  n.set("micro_batch", Node::integer(a.micro_batch));
  n.set("stage_time_s", Node::number(a.stage_time_s, Hint::time));
  n.set("collective_time_s", Node::number(a.collective_time_s, Hint::time));
  n.set("p2p_time_s", Node::number(a.p2p_time_s, Hint::time));
  n.set("latency_s", Node::number(a.latency_s, Hint::time));
  n.set("bubble", Node::number(a.bubble, Hint::percent));
  n.set("step_time_s", Node::number(a.step_time_s, Hint::time));
  n.set("tokens_per_s_replica", Node::number(a.tokens_per_s_replica, Hint::none));
  n.set("tokens_per_s", Node::number(a.tokens_per_s, Hint::none));
  n.set("tokens_per_s_per_gpu", Node::number(a.tokens_per_s_per_gpu, Hint::none));
  r.root.set("parallel", std::move(n));
  const bool decode = e.workload.phase == Phase::decode;
  r.fields.push_back(
      {"parallelism " + to_string(a.parallel) + " (" + std::to_string(a.gpus) +
           " GPUs; the ops below are one GPU's busiest stage for one micro-batch; memory is per GPU)",
       "parallel",
       {{"gpus", "GPUs", Hint::integer},
        {"layers_per_stage", "layers per stage", Hint::integer},
        {"micro_batches", "micro-batches", Hint::integer},
        {"micro_batch", "sequences per micro-batch", Hint::integer},
        {"stage_time_s", "stage time (one micro-batch)", Hint::time},
        {"collective_time_s", "  of which collectives (TP, EP)", Hint::time},
        {"p2p_time_s", "stage-to-stage send", Hint::time},
        {"latency_s", "one micro-batch through the pipeline", Hint::time},
        {"bubble", "pipeline bubble (idle share)", Hint::percent},
        {"step_time_s", decode ? "TPOT (step time)" : "prefill time (whole batch)", Hint::time},
        {"tokens_per_s", "tokens/s (all replicas)", Hint::none},
        {"tokens_per_s_per_gpu", "tokens/s per GPU", Hint::none}}});
}

}  // namespace perfmodel::cli
