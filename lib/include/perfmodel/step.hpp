#pragma once
// build_step(Model, Workload) -> Step: the ops of one forward step in execution order.
#include <vector>

#include "perfmodel/model.hpp"
#include "perfmodel/op.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

struct Step {
  std::vector<Op> ops;
  double flops() const;        // all instances
  double model_flops() const;  // GEMM + attention FLOPs (MFU numerator)
  double bytes() const;
  int64_t launches() const;
};

// Validates the workload against the model (positive sizes, ctx within max positions for
// decode, overflow) and builds the step for the workload's implementation profile.
// Throws InputError.
Step build_step(const Model& model, const Workload& workload);

// The profiles (docs/profiles.md); build_step dispatches to one of them.
Step build_fused_step(const Model& model, const Workload& workload);
Step build_eager_step(const Model& model, const Workload& workload);
// The attention ops of the fused profile (the only ops of a decode step that depend on ctx).
void append_fused_attention(Step& step, const Model& model, const Workload& workload);

void validate(const Model& model, const Workload& workload);

}  // namespace perfmodel
