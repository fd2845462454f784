#pragma once
// Many predictions for one (model, card, calibration): sweeps over batch and context, capacity
// planning loops, the library's hot path. In a fused decode step only the attention ops depend
// on the context; every other op depends on the batch alone. The predictor therefore prices the
// batch-only ops once per batch (memoized in the Predictor object, no global state) and, for
// each prediction, builds and prices only the attention ops for the context. The result equals
// build_step + price_step (tests/test_predictor.cpp checks it). Not thread-safe: one per thread.
#include <cstdint>
#include <map>
#include <tuple>

#include "perfmodel/analysis.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"

namespace perfmodel {

struct Prediction {
  double time_s = 0;            // the step
  double roofline_time_s = 0;
  double tokens_per_s = 0;
  double ai = 0;                // AI(b), seed 004
  bool fits = false;
  int64_t max_batch = 0;
};

class Predictor {
 public:
  Predictor(Model model, const Card& card, const Calibration* calibration,
            double memory_utilization = kDefaultMemoryUtilization);
  Prediction predict(const Workload& w);
  size_t cached_batches() const { return batch_only_.size(); }

 private:
  struct Priced {
    Step step;                  // the step at the first context seen for this batch
    std::vector<OpCost> costs;  // its ops priced, parallel to step.ops
  };
  StepCost step_cost(const Workload& w);
  // batch, dtypes, tf32, all positions, routing skew, the quantization scheme (GEMM input,
  // scaling, act quant, group)
  using Key = std::tuple<int64_t, int, int, int, bool, bool, double, int, int, int, int64_t>;
  Model model_;
  Roofs roofs_;        // the fused profile's (the memoized path)
  Roofs eager_roofs_;  // the eager profile's
  Roofs compiled_roofs_;  // the compiled profile's
  double utilization_;
  double params_ = 0, weight_bytes_per_param_ = 0;
  std::map<Key, Priced> batch_only_;
};

}  // namespace perfmodel
