#pragma once
// The fused profile's graph keys measured on this machine (issue 10, item 2: what a profile's kernels and framework
// cost is measured where it runs; `perfmodel calibrate --profile fused --only graph`). A serving engine replays each
// step as one CUDA graph; two costs sit beside its kernels (docs/calibration.md, validation/results/h200-fused-gaps):
//   graph_kernel_gap:      the GPU's idle at each kernel boundary inside the replay, timed with the host's launch
//                          hidden (the replay behind a GPU spin, `spin_first_s`): the median over the even decode
//                          steps of (GPU-alone replay - kernel sum) / predicted launches;
//   graph_launch_per_node: the host's cudaGraphLaunch, which writes every kernel node (`host_launch_s`, perf_counter
//                          around graph.replay() with the GPU busy): the median over the even steps of
//                          host launch / predicted launches.
// The steps are validation/scripts/production/fused_step_alone.py's (results.jsonl); the launches are perfmodel's own
// lowering of each step, so the keys are what its launches need. Odd decode steps and the prefills are held out of
// the gap, odd steps of the launch (fit_graph_gap.py's split, which this replaces for the fused profile).
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/profile_key_fit.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

// One step's graph replay as fused_step_alone.py records it.
struct GraphStep {
  Model model;              // the catalogue model that ran (at its full depth)
  Phase phase = Phase::decode;
  int64_t batch = 1;
  int64_t ctx = 0;          // decode: the cache attended; prefill: the prompt
  double kernel_s = 0;      // the profiled replay's kernel sum
  double alone_s = 0;       // the replay behind a GPU spin: the GPU's time alone (spin_first_s)
  double host_launch_s = 0; // the host's time in graph.replay() (host_launch_s)
  std::string source;       // file:line, for errors and tables
};

struct GraphStepFit {
  std::string source;
  Phase phase = Phase::decode;
  int64_t launches = 0;
  bool gap_fit = false, node_fit = false;  // among the fit halves
  double gap_s = 0;   // (alone - kernels) / launches
  double node_s = 0;  // host launch / launches
};

struct GraphGapFit {
  double gap_before_s = 0, gap_after_s = 0;
  double node_before_s = 0, node_after_s = 0;
  int gap_fit_steps = 0, node_fit_steps = 0;
  // Held out: the GPU-alone replay as kernels + gap x launches (odd decode steps and prefills), and the host launch
  // as per-node x launches (odd steps), with the values before and after.
  ErrorSummary gap_held_before, gap_held_after, node_held_before, node_held_after;
  std::vector<GraphStepFit> steps;
};

// Refits `profile`'s graph_kernel_gap and graph_launch_per_node in `cal` (the block must exist). Throws InputError
// when the fit halves hold no decode step, or a step's replay is not longer than its kernels on average.
GraphGapFit fit_graph_gap(const std::vector<GraphStep>& steps, const Card& card, Calibration& cal, const std::string& profile);

}  // namespace perfmodel
