#pragma once
// The report of one priced step (decode, prefill, ops, validate share it).
#include "cli.hpp"
#include "perfmodel/analysis.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"

namespace perfmodel::cli {

using PricedStep = Evaluation;

// evaluate() with the card as loaded: the step, its cost, the analyses and the status.
PricedStep price_workload(const Model& m, const Workload& w, const Loaded& card, double mem_util);

std::string op_shape(const Op& op);
Node op_node(const Op& op, const OpCost& c, double step_time);
Node step_node(const PricedStep& p);
Node analysis_node(const Analysis& a);

// Where a profile's price rests on a kernel other than the one its engine runs (the fused profile's
// weight-only linears: PyTorch's kernels, not Marlin-class ones): said beside the numbers (a step's
// JSON `warnings` and table notes, `gemm`'s table notes), not left for the user to guess.
// `m`: the model, where a caveat depends on it (the fused_moe price past what it models); null for a lone GEMM.
std::vector<std::string> profile_caveats(const Workload& w, const Model* m = nullptr);

// Full report of a step; `detailed` adds the per-op distances and tiles (the `ops` command).
Report step_report(const std::string& command, const Context& ctx, const Loaded& card,
                   const Model& m, const PricedStep& p, bool detailed);

}  // namespace perfmodel::cli
