#include "perfmodel/accuracy.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/kernel.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/errors.hpp"
#include "perfmodel/stats.hpp"
#include "perfmodel/step.hpp"

namespace perfmodel {

std::string accuracy_set(KernelId k) { return std::string(kernel_def(k).accuracy_set); }

std::vector<CaseError> evaluate(const Measurements& m, const Roofs& roofs,
                                const std::function<Model(const std::string&)>& model_lookup) {
  std::vector<CaseError> out;
  for (const MeasuredCase& c : m.cases) {
    Op op;
    try {
      op = to_op_on(c.kernel, roofs.l2_cyclic_capacity);
    } catch (const InputError&) {
      continue;
    }
    const double predicted = price(op, roofs, Impl::fused).time_s;
    CaseError e{accuracy_set(c.kernel.kernel), c.kernel.name, to_string(c.kernel.kernel), predicted, c.measured_s,
                predicted / c.measured_s - 1};
    out.push_back(e);
  }
  for (const MeasuredStep& s : m.steps) {
    Model model = model_lookup(s.model);
    const StepCost cost = evaluate(model, s.workload, roofs, {.with_ttft = false}).cost;
    CaseError e{"step",
                s.model + " " + to_string(s.workload.phase) + " b" + std::to_string(s.workload.batch) + " ctx" +
                    std::to_string(s.workload.ctx),
                "step", cost.time_s, s.measured_s, cost.time_s / s.measured_s - 1};
    out.push_back(e);
  }
  return out;
}

std::vector<SetStats> summarize(const std::vector<CaseError>& errors) {
  std::vector<SetStats> out;
  for (const char* set : {"gemm", "elementwise", "attention", "step"}) {
    SetStats s;
    s.set = set;
    std::vector<double> abs;
    std::vector<CaseError> mine;
    double sum = 0;
    for (const CaseError& e : errors) {
      if (e.set != set) continue;
      abs.push_back(std::fabs(e.error));
      sum += e.error;
      mine.push_back(e);
    }
    s.cases = static_cast<int>(abs.size());
    if (s.cases == 0) continue;
    s.median_abs = quantile(abs, 0.5);
    s.p90_abs = quantile(abs, 0.9);
    s.mean_signed = sum / s.cases;
    std::sort(mine.begin(), mine.end(), [](const CaseError& a, const CaseError& b) { return std::fabs(a.error) > std::fabs(b.error); });
    mine.resize(std::min<size_t>(5, mine.size()));
    s.worst = mine;
    out.push_back(s);
  }
  return out;
}

}  // namespace perfmodel
