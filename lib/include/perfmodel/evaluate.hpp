#pragma once
// One prediction, end to end (docs/architecture.md): the model's family builds the layer graph,
// the workload's profile lowers it into kernels, each kernel is priced on the card's roofs, the
// step combined (kernel switch, power cap), and the seed's analyses derived. The CLI, the
// Predictor and `accuracy` all go through here.
#include <optional>
#include <string>

#include "perfmodel/analysis.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/parallel_step.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"

namespace perfmodel {

struct EvaluateOptions {
  double memory_utilization = kDefaultMemoryUtilization;
  // Decode: also price the prefill of the same batch for TTFT (one more step).
  bool with_ttft = true;
};

// Whether the workload can run, and why not.
struct EvaluationStatus {
  bool fits = true;
  std::string reason;  // empty when it fits
};

struct Evaluation {
  Workload workload;
  Step step;
  StepCost cost;
  Analysis analysis;
  EvaluationStatus status;
  // Where the error distribution behind the time bands was measured (error_band.hpp).
  std::string band_source;
  // With parallelism (workload.parallel.any()): `step` is one GPU's busiest pipeline stage for one
  // micro-batch, `analysis` is per GPU (memory, weights, KV) with the pipeline's step time, and
  // this holds the pipeline and the replicas (parallel_step.hpp).
  std::optional<ParallelAnalysis> parallel;
};

// The profile is the workload's (`workload.impl`). Throws InputError for impossible workloads.
Evaluation evaluate(const Model& model, const Workload& workload, const Roofs& roofs,
                    const EvaluateOptions& options = {});
Evaluation evaluate(const Model& model, const Workload& workload, const Card& card, const Calibration* calibration,
                    const EvaluateOptions& options = {});

}  // namespace perfmodel
