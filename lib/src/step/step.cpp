#include "perfmodel/step.hpp"

#include "../parallel/parallel_internal.hpp"
#include "perfmodel/checked.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/family.hpp"
#include "perfmodel/profile.hpp"

namespace perfmodel {

double Step::flops() const {
  double s = 0;
  for (const Op& op : ops) s += op.flops * static_cast<double>(op.count);
  return s;
}

double Step::model_flops() const {
  double s = 0;
  for (const Op& op : ops) s += op.model_flops * static_cast<double>(op.count);
  return s;
}

double Step::bytes() const {
  double s = 0;
  for (const Op& op : ops) s += op.bytes() * static_cast<double>(op.count);
  return s;
}

int64_t Step::launches() const {
  int64_t s = 0;
  for (const Op& op : ops) s += op.launches * op.count;
  return s;
}

std::string to_string(Phase p) { return p == Phase::decode ? "decode" : "prefill"; }
std::string to_string(Impl i) {
  switch (i) {
    case Impl::fused: return "fused";
    case Impl::eager: return "eager";
    case Impl::compiled: return "compiled";
  }
  return "?";
}

void validate(const Model& model, const Workload& w) {
  validate(model);
  if (w.batch <= 0) throw InputError("batch must be positive, got " + std::to_string(w.batch));
  if (w.ctx <= 0) throw InputError("ctx must be positive, got " + std::to_string(w.ctx));
  // Every tensor the step forms must be addressable: tokens x widest row, and the KV cache.
  const int64_t tokens = checked_mul({w.batch, w.new_tokens_per_seq()}, "batch x tokens");
  checked_mul({tokens, std::max(model.vocab, 2 * model.intermediate)}, "tokens x vocab");
  checked_mul({w.batch, w.ctx, model.kv_dim(), model.layers, 2}, "KV cache (batch x ctx x kv_dim x layers)");
  if (w.phase == Phase::prefill)
    checked_mul({w.batch, model.heads, w.ctx, w.ctx}, "attention scores (batch x heads x ctx^2)");
  if (w.ctx > model.max_positions)
    throw InputError("ctx " + std::to_string(w.ctx) + " exceeds " + model.name + "'s max_position_embeddings (" +
                     std::to_string(model.max_positions) + ")");

}

Impl runs_as(const Workload& w) {
  return w.impl == Impl::compiled && w.phase == Phase::prefill ? Impl::eager : w.impl;
}

Step build_step(const Model& model, const Workload& w) {
  validate(model, w);
  if (w.parallel.sharded()) return build_parallel_step(model, w);
  Step s;
  s.ops.reserve(64);
  profile_for(runs_as(w)).lower(family_for(model).graph(model, w), model, w, s);
  return s;
}

Step build_context_step(const Model& model, const Workload& w) {
  if (w.parallel.sharded()) return build_parallel_context_step(model, w);
  Step s;
  profile_for(runs_as(w)).lower(family_for(model).context_graph(model, w), model, w, s);
  return s;
}

}  // namespace perfmodel
