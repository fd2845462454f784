// The fused profile's graph keys refitted on recorded replays (graph_gap_fit.hpp).
#include "perfmodel/graph_gap_fit.hpp"

#include <cmath>

#include "graph_step_lowering.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/stats.hpp"

namespace perfmodel {

GraphGapFit fit_graph_gap(const std::vector<GraphStep>& steps, const Card& card, Calibration& cal, const std::string& profile) {
  ProfileCalibration& p = graph_profile_block(cal, profile);
  const Impl impl = profile == "compiled" ? Impl::compiled : Impl::fused;
  GraphGapFit f;
  f.gap_before_s = p.graph_kernel_gap_s;
  f.node_before_s = p.graph_launch_per_node_s;
  int decode_index = 0;
  std::vector<double> gaps, nodes;
  for (size_t i = 0; i < steps.size(); ++i) {
    const GraphStep& s = steps[i];
    GraphStepFit r;
    r.source = s.source;
    r.phase = s.phase;
    r.launches = lower_graph_step(s.model, s.phase, s.batch, s.ctx, card, cal, impl).launches;
    if (r.launches <= 0) throw InputError(s.source + ": perfmodel lowers this step into no kernel launch");
    r.gap_s = (s.alone_s - s.kernel_s) / static_cast<double>(r.launches);
    r.node_s = s.host_launch_s / static_cast<double>(r.launches);
    r.gap_fit = s.phase == Phase::decode && decode_index++ % 2 == 0;
    r.node_fit = i % 2 == 0;
    if (r.gap_fit) gaps.push_back(r.gap_s);
    if (r.node_fit) nodes.push_back(r.node_s);
    f.steps.push_back(r);
  }
  if (gaps.empty()) throw InputError("the graph steps: no decode step among them to fit graph_kernel_gap on");
  f.gap_fit_steps = static_cast<int>(gaps.size());
  f.node_fit_steps = static_cast<int>(nodes.size());
  f.gap_after_s = quantile(gaps, 0.5);
  f.node_after_s = quantile(nodes, 0.5);
  if (!(f.gap_after_s > 0))
    throw InputError("the graph steps: their GPU-alone replays are not longer than their kernels (median gap " +
                     std::to_string(f.gap_after_s * 1e6) + " us a launch): spin_first_s or kernel_s is not the replay's");
  if (!(f.node_after_s > 0)) throw InputError("the graph steps: no host launch time (host_launch_s) to fit on");
  std::vector<double> gb, ga, nb, na;
  for (size_t i = 0; i < steps.size(); ++i) {
    const GraphStep& s = steps[i];
    const GraphStepFit& r = f.steps[i];
    const auto n = static_cast<double>(r.launches);
    if (!r.gap_fit) {
      gb.push_back((s.kernel_s + f.gap_before_s * n) / s.alone_s - 1);
      ga.push_back((s.kernel_s + f.gap_after_s * n) / s.alone_s - 1);
    }
    if (!r.node_fit) {
      nb.push_back(f.node_before_s * n / s.host_launch_s - 1);
      na.push_back(f.node_after_s * n / s.host_launch_s - 1);
    }
  }
  f.gap_held_before = summarize_errors(gb);
  f.gap_held_after = summarize_errors(ga);
  f.node_held_before = summarize_errors(nb);
  f.node_held_after = summarize_errors(na);
  p.graph_kernel_gap_s = f.gap_after_s;
  p.graph_launch_per_node_s = f.node_after_s;
  return f;
}

}  // namespace perfmodel
