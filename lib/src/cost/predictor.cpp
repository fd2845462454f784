#include "perfmodel/predictor.hpp"

#include "perfmodel/evaluate.hpp"
#include "perfmodel/quant.hpp"
#include "perfmodel/step.hpp"

namespace perfmodel {

Predictor::Predictor(Model model, const Card& card, const Calibration* calibration, double utilization)
    : model_(std::move(model)), roofs_(make_roofs(card, calibration, Impl::fused)),
      eager_roofs_(make_roofs(card, calibration, Impl::eager)),
      compiled_roofs_(make_roofs(card, calibration, Impl::compiled)), utilization_(utilization) {
  validate(model_);
  params_ = model_.parameters();
}

StepCost Predictor::step_cost(const Workload& w) {
  if (w.impl != Impl::fused || w.phase != Phase::decode || w.parallel.any() || !w.fused_moe_tiles.empty()) {
    // Every op depends on the prompt length (or a tuned fused_moe file, which the cache's key does not hold): the
    // full path, as evaluate() prices it.
    const Roofs& r = w.impl == Impl::eager ? eager_roofs_ : w.impl == Impl::compiled ? compiled_roofs_ : roofs_;
    return price_step(build_step(model_, w), r, w);
  }
  validate(model_, w);
  const Key key{w.batch, static_cast<int>(w.weight_dtype), static_cast<int>(w.act_dtype),
                static_cast<int>(w.kv_dtype), w.allow_tf32, w.lm_head_all_positions, w.routing_skew,
                static_cast<int>(w.quant.gemm_act), static_cast<int>(w.quant.scaling),
                static_cast<int>(w.quant.act_quant), w.quant.group_size};
  auto it = batch_only_.find(key);
  if (it == batch_only_.end()) {
    // The whole step once for this batch, each op priced; the attention ops are replaced below.
    Priced p;
    p.step = build_step(model_, w);
    for (const Op& op : p.step.ops) p.costs.push_back(price(op, roofs_, w.impl));
    it = batch_only_.emplace(key, std::move(p)).first;
  }
  const Priced& base = it->second;
  // The context's ops, priced, in the place of the base step's attention ops (build_step puts
  // them together), then the step combined as price_step combines it.
  const Step context = build_context_step(model_, w);
  std::vector<const Op*> ops;
  std::vector<OpCost> costs;
  ops.reserve(base.step.ops.size() + 1);
  costs.reserve(base.step.ops.size() + 1);
  bool spliced = false;
  for (size_t i = 0; i < base.step.ops.size(); ++i) {
    if (base.step.ops[i].kind == OpKind::attention) {
      if (spliced) continue;
      spliced = true;
      for (const Op& op : context.ops) {
        ops.push_back(&op);
        costs.push_back(price(op, roofs_, w.impl));
      }
      continue;
    }
    ops.push_back(&base.step.ops[i]);
    costs.push_back(base.costs[i]);
  }
  return combine_step(ops, std::move(costs), roofs_, w.impl, w.gpu_rest_s);
}

Prediction Predictor::predict(const Workload& w) {
  Prediction p;
  if (w.parallel.any()) {  // the pipeline and per-GPU memory: evaluate()'s path
    const Evaluation e = evaluate(model_, w, w.impl == Impl::eager ? eager_roofs_ : roofs_, {utilization_, false});
    p.time_s = e.analysis.step_time_s;
    p.roofline_time_s = e.cost.roofline_time_s;
    p.tokens_per_s = e.parallel->tokens_per_s;
    p.ai = e.analysis.ai;
    p.fits = e.analysis.memory.fits;
    p.max_batch = e.analysis.memory.max_batch;
    return p;
  }
  const StepCost c = step_cost(w);
  p.time_s = c.time_s;
  p.roofline_time_s = c.roofline_time_s;
  // The seed's "n kv" is one sequence's window-capped KV, as in analyze() (analysis.hpp).
  const double kv = w.ctx > 0 ? cached_bytes_per_sequence(model_, w) / static_cast<double>(w.ctx)
                              : cached_bytes_per_token(model_, w);
  const double weight_bytes = model_weight_bytes(model_, w);  // packed, scales included (quant.hpp)
  p.ai = model_.moe.enabled()
             ? moe_decode_ai(model_, weight_bytes / params_, static_cast<double>(w.batch),
                             static_cast<double>(w.ctx), kv, w.routing_skew)
             : decode_ai(params_, weight_bytes, static_cast<double>(w.batch), static_cast<double>(w.ctx), kv);
  const MemoryPlan plan = plan_memory(model_, w, roofs_.card, utilization_);
  p.fits = plan.fits;
  p.max_batch = plan.max_batch;
  p.tokens_per_s = p.time_s > 0 ? static_cast<double>(w.tokens()) / p.time_s : 0;
  return p;
}

}  // namespace perfmodel
