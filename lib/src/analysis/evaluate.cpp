#include "perfmodel/evaluate.hpp"

#include <cstdio>

#include "../parallel/parallel_internal.hpp"
#include "perfmodel/units.hpp"

namespace perfmodel {

namespace {

EvaluationStatus status_of(const MemoryPlan& p, int64_t batch) {
  if (p.fits) return {};
  char buf[256];
  if (p.weights >= p.usable) {  // no batch at all: say so rather than "the largest batch is 0"
    std::snprintf(buf, sizeof buf, "the weights alone need %s but %s of memory is usable: the model does not fit on this card",
                  format_bytes_binary(p.weights).c_str(), format_bytes_binary(p.usable).c_str());
    return {false, buf};
  }
  std::snprintf(buf, sizeof buf, "batch %lld needs %s but %s is usable; the largest batch that fits is %lld",
                static_cast<long long>(batch), format_bytes_binary(p.total).c_str(),
                format_bytes_binary(p.usable).c_str(), static_cast<long long>(p.max_batch));
  return {false, buf};
}

}  // namespace

Evaluation evaluate(const Model& m, const Workload& w, const Roofs& roofs, const EvaluateOptions& o) {
  if (w.parallel.any()) {
    Evaluation e = evaluate_parallel(m, w, roofs, o);
    e.band_source = roofs.error_bands.source;
    e.status = status_of(e.analysis.memory, w.batch);
    if (!e.status.fits) e.status.reason = "on each GPU of " + to_string(w.parallel) + ", " + e.status.reason;
    return e;
  }
  Evaluation e{w, build_step(m, w), {}, {}, {}, roofs.error_bands.source, {}};
  e.cost = price_step(e.step, roofs, w);
  double prefill_time = 0;
  if (w.phase == Phase::decode && o.with_ttft) {
    Workload pre = w;
    pre.phase = Phase::prefill;
    prefill_time = price_step(build_step(m, pre), roofs, pre).time_s;
  }
  e.analysis = analyze(m, w, e.step, e.cost.time_s, prefill_time, roofs.card, o.memory_utilization);
  if (o.with_ttft) {
    // TTFT above is the whole batch's prefill; one request's own is the prefill at batch 1.
    Workload one = w;
    one.phase = Phase::prefill;
    one.batch = 1;
    e.analysis.ttft_per_request_s =
        w.batch == 1 ? e.analysis.ttft_s : price_step(build_step(m, one), roofs, one).time_s;
  }
  e.status = status_of(e.analysis.memory, w.batch);
  return e;
}

Evaluation evaluate(const Model& m, const Workload& w, const Card& card, const Calibration* calibration,
                    const EvaluateOptions& o) {
  // The workload's profile prices its own kernels (issue 10: profile calibration apart from the card's).
  return evaluate(m, w, make_roofs(card, calibration, w.impl), o);
}

}  // namespace perfmodel
