// perfmodel::plan (plan.hpp): every deployment of the model on up to max_gpus GPUs — tensor
// parallelism within the NVLink domain, pipeline stages, expert parallelism for MoE models,
// replicas for the users, weight and KV
// dtypes, implementation profile — each at the largest batch that keeps TPOT and TTFT within
// their SLOs and its KV cache in memory, ranked by generated tokens/s per GPU.
#include "perfmodel/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "perfmodel/analysis.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/parallel_step.hpp"
#include "perfmodel/units.hpp"

namespace perfmodel {

namespace {

std::vector<int> powers_of_two(int up_to) {
  std::vector<int> v;
  for (int x = 1; x <= up_to && x > 0; x *= 2) v.push_back(x);
  return v;
}

std::string ms(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f ms", s * 1e3);
  return b;
}

class Planner {
 public:
  Planner(const Model& m, const Card& card, const Calibration* cal, const PlanRequest& r)
      : m_(m), card_(card), r_(r), fused_(make_roofs(card, cal, Impl::fused)), eager_(make_roofs(card, cal, Impl::eager)) {}

  // The deployment of this configuration at its best batch (meets), or why it cannot meet the SLOs.
  Deployment best(Deployment d) {
    const Model shard = d.parallel.sharded() ? shard_model(m_, d.parallel) : m_;
    const Workload longest = workload(d, Phase::decode, 1, r_.ctx + r_.output_len);
    const MemoryPlan mem1 = plan_memory(shard, longest, card_, r_.memory_utilization);
    d.max_batch = mem1.max_batch * d.parallel.ep;  // under ep each GPU holds its share of the sequences
    d.prefill_s = step_time(workload(d, Phase::prefill, 1, r_.ctx));
    auto tpot = [&](int64_t b) { return step_time(workload(d, Phase::decode, b, mean_ctx())); };
    auto feasible = [&](double t) { return t <= r_.tpot_s && d.prefill_s + t <= r_.ttft_s; };
    d.batch = 1;
    d.tpot_s = tpot(1);
    d.ttft_s = d.prefill_s + d.tpot_s;
    finish(d, shard, longest);
    if (d.max_batch < 1) return reject(d, "memory: " + format_bytes_binary(mem1.total) + " per GPU for one sequence, " +
                                              format_bytes_binary(mem1.usable) + " usable");
    if (d.tpot_s > r_.tpot_s) return reject(d, "TPOT " + ms(d.tpot_s) + " at batch 1 > " + ms(r_.tpot_s));
    if (d.ttft_s > r_.ttft_s) return reject(d, "TTFT " + ms(d.ttft_s) + " at batch 1 > " + ms(r_.ttft_s));
    // The largest feasible batch: doubling, then bisection (TPOT grows with the batch).
    const int64_t cap = r_.users > 0 ? std::min(d.max_batch, r_.users) : d.max_batch;
    int64_t good = 1, bad = 0;
    double good_t = d.tpot_s;
    while (good < cap) {
      const int64_t b = std::min(cap, good * 2);
      const double t = tpot(b);
      if (!feasible(t)) {
        bad = b;
        break;
      }
      good = b, good_t = t;
    }
    while (bad > good + 1) {
      const int64_t b = good + (bad - good) / 2;
      const double t = tpot(b);
      if (feasible(t)) good = b, good_t = t;
      else bad = b;
    }
    d.limit = good == d.max_batch ? "memory" : good == cap ? "users" : tpot(good + 1) > r_.tpot_s ? "TPOT" : "TTFT";
    d.batch = good;
    d.tpot_s = good_t;
    if (r_.users > 0) {  // replicas enough for the users, the users spread evenly over them
      d.parallel.dp = static_cast<int>((r_.users + good - 1) / good);
      d.gpus = d.parallel.gpus();
      if (d.gpus > max_gpus()) {
        finish(d, shard, longest);
        return reject(d, std::to_string(r_.users) + " users need " + std::to_string(d.parallel.dp) + " replicas of " +
                             std::to_string(d.parallel.gpus_per_replica()) + " GPUs = " + std::to_string(d.gpus) +
                             " GPUs > " + std::to_string(max_gpus()));
      }
      d.batch = (r_.users + d.parallel.dp - 1) / d.parallel.dp;
      d.tpot_s = tpot(d.batch);
    }
    d.ttft_s = d.prefill_s + d.tpot_s;
    d.meets = true;
    finish(d, shard, longest);
    return d;
  }

  int max_gpus() const { return r_.max_gpus > 0 ? r_.max_gpus : card_.interconnect.gpus_per_node; }
  int64_t evaluated() const { return evaluated_; }

 private:
  int64_t mean_ctx() const { return r_.ctx + r_.output_len / 2; }

  Workload workload(const Deployment& d, Phase phase, int64_t batch, int64_t ctx) const {
    Workload w;
    w.phase = phase;
    w.batch = batch;
    w.ctx = ctx;
    w.weight_dtype = d.weight_dtype;
    w.kv_dtype = d.kv_dtype;
    w.act_dtype = card_.supports(Precision::bf16) ? DType::bf16 : DType::fp16;
    w.impl = d.impl;
    w.parallel = d.parallel;
    w.parallel.dp = 1;  // one replica's step; replicas multiply it
    if (r_.prepare) r_.prepare(w);
    return w;
  }

  double step_time(const Workload& w) {
    ++evaluated_;
    EvaluateOptions o;
    o.memory_utilization = r_.memory_utilization;
    o.with_ttft = false;
    return evaluate(m_, w, w.impl == Impl::eager ? eager_ : fused_, o).analysis.step_time_s;
  }

  // Tokens and memory at the deployment's batch.
  void finish(Deployment& d, const Model& shard, Workload longest) const {
    d.gpus = d.parallel.gpus();
    longest.batch = (d.batch + d.parallel.ep - 1) / d.parallel.ep;
    d.memory_per_gpu = plan_memory(shard, longest, card_, r_.memory_utilization).total;
    d.tokens_per_s = d.tpot_s > 0 ? static_cast<double>(d.batch) * d.parallel.dp / d.tpot_s : 0;
    d.tokens_per_s_per_gpu = d.tokens_per_s / d.gpus;
  }

  static Deployment reject(Deployment d, std::string why) {
    d.meets = false;
    d.limit = std::move(why);
    return d;
  }

  const Model& m_;
  const Card& card_;
  const PlanRequest& r_;
  Roofs fused_, eager_;
  int64_t evaluated_ = 0;
};

bool better(const Deployment& a, const Deployment& b) {
  if (a.tokens_per_s_per_gpu != b.tokens_per_s_per_gpu) return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
  if (a.gpus != b.gpus) return a.gpus < b.gpus;
  return a.tpot_s < b.tpot_s;
}

void check(const PlanRequest& r, const Model& m) {
  if (r.ctx < 1) throw InputError("--ctx must be positive, got " + std::to_string(r.ctx));
  if (r.output_len < 1) throw InputError("--output-len must be positive, got " + std::to_string(r.output_len));
  if (!(std::isfinite(r.ttft_s) && r.ttft_s > 0)) throw InputError("--ttft must be a positive time");
  if (!(std::isfinite(r.tpot_s) && r.tpot_s > 0)) throw InputError("--tpot must be a positive time");
  if (r.max_gpus < 0 || r.max_gpus > 65536) throw InputError("--gpus must be between 1 and 65536");
  if (r.users < 0 || r.users > (int64_t{1} << 40)) throw InputError("--users must be positive");
  if (!(r.memory_utilization > 0 && r.memory_utilization <= 1)) throw InputError("--mem-util must be in (0, 1]");
  if (r.ctx > m.max_positions - r.output_len)
    throw InputError("--ctx " + std::to_string(r.ctx) + " + --output-len " + std::to_string(r.output_len) +
                     " exceeds " + m.name + "'s max_position_embeddings (" + std::to_string(m.max_positions) + ")");
}

}  // namespace

PlanResult plan(const Model& model, const Card& card, const Calibration* calibration, const PlanRequest& request) {
  validate(model);
  check(request, model);
  PlanRequest r = request;
  const bool fp8 = card.supports(Precision::fp8);
  const DType base = card.supports(Precision::bf16) ? DType::bf16 : DType::fp16;
  if (r.weight_dtypes.empty()) r.weight_dtypes = fp8 ? std::vector{base, DType::fp8} : std::vector{base};
  if (r.kv_dtypes.empty()) r.kv_dtypes = fp8 ? std::vector{base, DType::fp8} : std::vector{base};
  if (r.impls.empty()) r.impls = {Impl::fused, Impl::eager};
  for (DType t : r.weight_dtypes)
    if (t == DType::fp8 && !fp8) throw InputError("--weight-dtypes fp8: " + card.name + " has no fp8 tensor-core peak");
  Planner planner(model, card, calibration, r);
  const int gpus = planner.max_gpus();
  const int node = std::max(1, card.interconnect.gpus_per_node);
  PlanResult result;
  std::vector<Deployment> rejected;
  for (int tp : powers_of_two(std::min(gpus, node)))
    for (int pp : powers_of_two(gpus / tp))
    for (int ep : model.moe.enabled() ? powers_of_two(gpus / (tp * pp)) : std::vector<int>{1}) {
      Deployment d;
      d.parallel.tp = tp;
      d.parallel.pp = pp;
      d.parallel.ep = ep;
      try {  // a split the model does not allow is no deployment
        validate_parallelism(model, d.parallel);
        validate_parallelism(card, d.parallel);
      } catch (const InputError&) {
        continue;
      }
      for (DType wd : r.weight_dtypes)
        for (DType kd : r.kv_dtypes)
          for (Impl impl : r.impls) {
            d.weight_dtype = wd, d.kv_dtype = kd, d.impl = impl;
            Deployment best = planner.best(d);
            (best.meets ? result.deployments : rejected).push_back(std::move(best));
          }
    }
  std::sort(result.deployments.begin(), result.deployments.end(), better);
  std::sort(rejected.begin(), rejected.end(), better);
  rejected.resize(std::min(rejected.size(), r.max_rejected));
  result.rejected = std::move(rejected);
  result.evaluated = planner.evaluated();
  return result;
}

}  // namespace perfmodel
