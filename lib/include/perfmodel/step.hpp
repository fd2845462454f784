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
// decode, overflow) and builds the step: the model's family gives the abstract layer graph
// (family.hpp), the workload's implementation profile lowers it into kernels (profile.hpp).
// Throws InputError.
Step build_step(const Model& model, const Workload& workload);

// The implementation a workload's step runs in. transformers' generate() compiles the decode step
// only: with a StaticCache it takes the compiled call for the steps after the prompt and runs the
// prompt's forward through `_prefill` uncompiled (transformers 5.17, generation/utils.py lines
// 2995-3031 and 4065-4140: only chunked prefill calls the compiled forward), so a `compiled`
// prefill runs `eager` (docs/profiles.md; validation/results/h200-host-probe).
Impl runs_as(const Workload& workload);

// The ops of the step that depend on the context (the attention; the same ops build_step has
// for them): the Predictor re-prices only these per context.
Step build_context_step(const Model& model, const Workload& workload);

void validate(const Model& model, const Workload& workload);

}  // namespace perfmodel
