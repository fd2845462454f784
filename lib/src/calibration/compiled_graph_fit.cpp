// The compiled profile's graph keys refitted on recorded torch.compile steps (compiled_graph_fit.hpp).
#include "perfmodel/compiled_graph_fit.hpp"

#include <string>

#include "graph_step_lowering.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/stats.hpp"

namespace perfmodel {

namespace {

// host(n) = a x (1 + n / n0); flat (n0 = 0) when the calibration prices no per-input host.
double host_at(double level, double shape_inputs, int64_t inputs) {
  return shape_inputs > 0 ? level * (1 + static_cast<double>(inputs) / shape_inputs) : level;
}

std::string us(double s) { return std::to_string(s * 1e6) + " us"; }

}  // namespace

CompiledGraphFit fit_compiled_graph(const std::vector<CompiledGraphStep>& steps, const Card& card, Calibration& cal) {
  if (steps.empty()) throw InputError("the compiled steps: none to fit the graph keys on");
  ProfileCalibration& p = graph_profile_block(cal, "compiled");
  CompiledGraphFit f;
  f.gap_before_s = p.graph_kernel_gap_s;
  f.host_before_s = p.graph_call_host_s;
  f.per_input_before_s = p.graph_call_host_per_input_s;
  f.shape_inputs = f.per_input_before_s > 0 ? f.host_before_s / f.per_input_before_s : 0;
  std::vector<double> gaps;
  for (size_t i = 0; i < steps.size(); ++i) {
    const CompiledGraphStep& s = steps[i];
    const GraphLowering g = lower_graph_step(s.model, Phase::decode, s.batch, s.kv_len, card, cal, Impl::compiled);
    if (g.launches <= 0) throw InputError(s.source + ": perfmodel lowers this step into no kernel launch");
    CompiledGraphStepFit r;
    r.source = s.source;
    r.launches = g.launches;
    r.graph_inputs = g.graph_inputs;
    r.fit = i % 2 == 0;
    r.gap_s = (s.alone_s - s.kernel_s) / static_cast<double>(r.launches);
    r.replay_s = s.replay_s;
    if (r.fit) gaps.push_back(r.gap_s);
    f.steps.push_back(r);
  }
  f.fit_steps = static_cast<int>(gaps.size());
  f.gap_after_s = quantile(gaps, 0.5);
  if (!(f.gap_after_s > 0))
    throw InputError("the compiled steps: their GPU-alone replays are not longer than their kernels (median gap " +
                     us(f.gap_after_s) + " a launch): graph_pure_s or kernel_s is not the replay's");
  std::vector<double> levels;
  for (size_t i = 0; i < steps.size(); ++i) {
    CompiledGraphStepFit& r = f.steps[i];
    r.host_s = steps[i].replay_s - steps[i].kernel_s - f.gap_after_s * static_cast<double>(r.launches);
    if (r.fit) levels.push_back(r.host_s / host_at(1.0, f.shape_inputs, r.graph_inputs));
  }
  f.host_after_s = quantile(levels, 0.5);
  if (!(f.host_after_s > 0))
    throw InputError("the compiled steps: their timed replays are not longer than kernels and gaps (median host " +
                     us(f.host_after_s) + "): device_s is not CUDA events around one unfilled call");
  f.per_input_after_s = f.shape_inputs > 0 ? f.host_after_s / f.shape_inputs : 0;
  std::vector<double> ab, aa, rb, ra;
  for (size_t i = 0; i < steps.size(); ++i) {
    const CompiledGraphStep& s = steps[i];
    CompiledGraphStepFit& r = f.steps[i];
    const auto n = static_cast<double>(r.launches);
    r.replay_before_s = s.kernel_s + f.gap_before_s * n + host_at(f.host_before_s, f.shape_inputs, r.graph_inputs);
    r.replay_after_s = s.kernel_s + f.gap_after_s * n + host_at(f.host_after_s, f.shape_inputs, r.graph_inputs);
    if (r.fit) continue;
    ab.push_back((s.kernel_s + f.gap_before_s * n) / s.alone_s - 1);
    aa.push_back((s.kernel_s + f.gap_after_s * n) / s.alone_s - 1);
    rb.push_back(r.replay_before_s / s.replay_s - 1);
    ra.push_back(r.replay_after_s / s.replay_s - 1);
  }
  f.alone_held_before = summarize_errors(ab);
  f.alone_held_after = summarize_errors(aa);
  f.replay_held_before = summarize_errors(rb);
  f.replay_held_after = summarize_errors(ra);
  p.graph_kernel_gap_s = f.gap_after_s;
  p.graph_call_host_s = f.host_after_s;
  p.graph_call_host_per_input_s = f.per_input_after_s;
  return f;
}

}  // namespace perfmodel
