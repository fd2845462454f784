// A recorded graph step lowered as perfmodel lowers it (graph_step_lowering.hpp).
#include "graph_step_lowering.hpp"

#include "perfmodel/errors.hpp"
#include "perfmodel/evaluate.hpp"

namespace perfmodel {

GraphLowering lower_graph_step(Model model, Phase phase, int64_t batch, int64_t ctx, const Card& card,
                               const Calibration& cal, Impl impl) {
  if (model.max_positions > 0 && model.max_positions < ctx + 1) model.max_positions = ctx + 1;
  Workload w;
  w.phase = phase;
  w.batch = batch;
  w.ctx = ctx;
  w.impl = impl;
  EvaluateOptions o;
  o.with_ttft = false;
  const Evaluation e = evaluate(model, w, card, &cal, o);
  GraphLowering g;
  g.launches = e.step.launches();
  for (const Op& op : e.step.ops) g.graph_inputs += op.graph_inputs * op.count;
  return g;
}

ProfileCalibration& graph_profile_block(Calibration& cal, const std::string& profile) {
  for (auto& p : cal.profiles)
    if (p.name == profile) return p;
  throw InputError("the calibration has no '" + profile + "' profile block to refit its graph keys in");
}

}  // namespace perfmodel
