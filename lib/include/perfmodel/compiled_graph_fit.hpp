#pragma once
// The compiled profile's graph keys measured on this machine (issue 10, item 2: a profile's framework costs are
// measured where it runs; `perfmodel calibrate --profile compiled --only graph`). torch.compile's reduce-overhead
// step is one CUDA-graph replay behind host work that dynamo's guards, AOT's wrappers and the cudagraph tree do
// before each replay (docs/profiles.md, validation/results/h200-host-probe, h200-chost14):
//   graph_kernel_gap:          the GPU's idle at each kernel boundary inside the replay, timed with the host kept out
//                              (a GPU spin queued before the call: `graph_pure_s`): the median over the fit steps of
//                              (GPU-alone replay - kernel sum) / predicted launches;
//   graph_call_host (+ graph_call_host_per_input): the host before the replay, which the unfilled replay's CUDA events
//                              catch (`device_s`): host(n) = a x (1 + n / n0) for a graph of n static inputs, n0 the
//                              calibration's shape (graph_call_host / graph_call_host_per_input, hostreplay_shape.py:
//                              fitted on one lease's depth sweep, where the ratio of host before to host after the
//                              replay takes the process's pace out). The level a = the median over the fit steps of
//                              (replay - kernel sum - gap x launches) / (1 + n / n0); the shape is kept, the level is
//                              this machine's (the host's pace moves 2x between leases: h200-heldout19..31's compiled
//                              steps ran 170-1275 us before the replay).
// The steps are validation/scripts/production/compiled_gaps.py's records (host_probe.py's compiled records alike); the
// launches and inputs are perfmodel's own lowering of each step at its measured depth. Steps with an even index fit,
// the odd ones are held out.
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/profile_key_fit.hpp"

namespace perfmodel {

// One torch.compile'd decode step as compiled_gaps.py records it.
struct CompiledGraphStep {
  Model model;              // the catalogue model cut to the decoder layers that ran
  int64_t batch = 1;
  int64_t kv_len = 0;       // the StaticCache's slots: the compiled step attends over all of them (masked)
  double kernel_s = 0;      // the profiled call's kernel sum
  double alone_s = 0;       // the replay behind a GPU spin: the GPU's time alone (graph_pure_s)
  double replay_s = 0;      // CUDA events around one unfilled call: the host before the replay, then the replay (device_s)
  std::string source;       // file:line, for errors and tables
};

struct CompiledGraphStepFit {
  std::string source;
  int64_t launches = 0, graph_inputs = 0;
  bool fit = false;              // an even step
  double gap_s = 0;              // (alone - kernels) / launches
  double host_s = 0;             // replay - kernels - graph_kernel_gap (after) x launches
  double replay_s = 0;           // measured
  double replay_before_s = 0, replay_after_s = 0;  // kernels + gap x launches + host(inputs), before and after
};

struct CompiledGraphFit {
  double gap_before_s = 0, gap_after_s = 0;
  double host_before_s = 0, host_after_s = 0;            // graph_call_host
  double per_input_before_s = 0, per_input_after_s = 0;  // graph_call_host_per_input
  double shape_inputs = 0;  // n0, kept from the calibration; 0 when its host is flat (no per-input key)
  int fit_steps = 0;
  // Held out (odd steps): the GPU-alone replay as kernels + gap x launches, and the timed replay with the host before
  // it, with the values before and after.
  ErrorSummary alone_held_before, alone_held_after, replay_held_before, replay_held_after;
  std::vector<CompiledGraphStepFit> steps;
};

// Refits the compiled block's graph_kernel_gap, graph_call_host and graph_call_host_per_input in `cal` (the block must
// exist). Throws InputError when there is no step, or the fit steps' replays are not longer than their kernels.
CompiledGraphFit fit_compiled_graph(const std::vector<CompiledGraphStep>& steps, const Card& card, Calibration& cal);

}  // namespace perfmodel
