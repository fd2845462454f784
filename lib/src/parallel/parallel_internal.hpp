#pragma once
// The parallel step's pieces that build_step, the profiles and evaluate() call (internal).
#include "perfmodel/evaluate.hpp"
#include "perfmodel/layer_graph.hpp"
#include "perfmodel/parallel_step.hpp"

namespace perfmodel {

// One GPU's step (build_step with tp, pp or ep > 1): the sharded model's graph with its
// collectives, lowered by the workload's profile. Its context ops alone for the Predictor.
Step build_parallel_step(const Model& m, const Workload& w);
Step build_parallel_context_step(const Model& m, const Workload& w);

// The collective a graph node stands for, as every profile lowers it (NCCL runs the same kernel
// whatever the engine around it).
Op lower_collective(const GraphNode& n, const Workload& w);

// evaluate() of a parallel workload: the micro-batch's step priced, the pipeline, memory per GPU.
// The status is left to evaluate().
Evaluation evaluate_parallel(const Model& m, const Workload& w, const Roofs& roofs, const EvaluateOptions& o);

}  // namespace perfmodel
