#include "perfmodel/predictor.hpp"

#include "perfmodel/step.hpp"

namespace perfmodel {

Predictor::Predictor(Model model, const Card& card, const Calibration* calibration, double utilization)
    : model_(std::move(model)), roofs_(make_roofs(card, calibration)), utilization_(utilization) {
  validate(model_);
  params_ = model_.parameters();
}

Prediction Predictor::predict(const Workload& w) {
  Prediction p;
  if (w.impl != Impl::fused || w.phase != Phase::decode) {
    // Every op depends on the prompt length: the full path.
    const Step step = build_step(model_, w);
    const StepCost c = price_step(step, roofs_, w.impl);
    p.time_s = c.time_s;
    p.roofline_time_s = c.roofline_time_s;
  } else {
    validate(model_, w);
    const Key key{w.batch, static_cast<int>(w.weight_dtype), static_cast<int>(w.act_dtype),
                  static_cast<int>(w.kv_dtype), w.allow_tf32, w.lm_head_all_positions};
    auto it = batch_only_.find(key);
    if (it == batch_only_.end()) {
      Sums s;
      const Step step = build_step(model_, w);
      for (const Op& op : step.ops) {
        if (op.kind == OpKind::attention) continue;
        const OpCost c = price(op, roofs_, w.impl);
        s.time_s += static_cast<double>(op.count) * c.time_s;
        s.roofline_time_s += static_cast<double>(op.count) * c.roofline_time_s;
      }
      it = batch_only_.emplace(key, s).first;
    }
    p.time_s = it->second.time_s;
    p.roofline_time_s = it->second.roofline_time_s;
    const Step attention = build_context_step(model_, w);
    for (const Op& op : attention.ops) {
      const OpCost c = price(op, roofs_, w.impl);
      p.time_s += static_cast<double>(op.count) * c.time_s;
      p.roofline_time_s += static_cast<double>(op.count) * c.roofline_time_s;
    }
  }
  const double kv = kv_bytes_per_token(model_, w.kv_dtype);
  p.ai = decode_ai(params_, params_ * bytes_of(w.weight_dtype), static_cast<double>(w.batch), static_cast<double>(w.ctx), kv);
  const MemoryPlan plan = plan_memory(model_, w, roofs_.card, utilization_);
  p.fits = plan.fits;
  p.max_batch = plan.max_batch;
  p.tokens_per_s = p.time_s > 0 ? static_cast<double>(w.tokens()) / p.time_s : 0;
  return p;
}

}  // namespace perfmodel
