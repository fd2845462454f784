#pragma once
// The eager profile's host pace measured on the machine that runs it (issue 10, item 2;
// `perfmodel calibrate --on-gpu --profile eager`). The eager step's host time is its dispatched
// calls priced at the profile's host rates (price.cpp, eager_host_time); the rates were fitted on
// one lease's steps, and hosts differ 1.3-2.7x on the same calls (validation/results/h200-host-probe).
// validation/scripts/production/profile_host.py times one transformers decode step of a catalogue
// model cut to a few layers with the GPU kept busy, so the call's return time is the host's alone;
// this refits the host rates so that perfmodel's priced host of the same steps equals it.
#include <cstdint>
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/model.hpp"

namespace perfmodel {

// One depth of a probe: the model cut to `layers` decoder layers, one step timed.
struct HostProbeDepth {
  int64_t layers = 0;
  double host_call_s = 0;  // the step's host time (GPU kept busy)
  double wall_s = 0;       // the same step's synchronized wall (recorded, not fitted)
  double kernels = 0;      // the profiler's kernels a step (recorded; the fit uses the priced launches)
};

// One probe record (profile_host.py's JSON): one or two depths of one model at one batch and cache.
struct HostProbe {
  std::string model;  // catalogue key whose transformers class ran
  int64_t batch = 1;
  int64_t ctx = 0;    // tokens in the cache before the step (the step attends ctx + 1)
  std::vector<HostProbeDepth> depths;
};

struct EagerHostFit {
  // true: the profile prices its host per top-level ATen call (host_per_aten, with host_per_aten_view at its ratio to
  // it, price.cpp eager_host_time) and that rate is refitted; false: host_per_kernel.
  bool per_aten = false;
  double per_aten_before_s = 0, per_aten_after_s = 0;  // host_per_aten (per_aten)
  double view_ratio = 1;           // host_per_aten_view / host_per_aten, kept (per_aten)
  std::vector<int64_t> launches;   // kernels the eager lowering launches in each depth's step
  std::vector<double> host_before_s, host_after_s;  // each depth's step host, priced before / after the refit
  double per_kernel_before_s = 0, per_kernel_after_s = 0;  // host_per_kernel
  double per_step_before_s = 0, per_step_after_s = 0;      // host_per_step
  double scale = 1;                // per_kernel after / before
};

// Each depth's step: `model` cut to its layers, a contiguous-cache eager decode at probe.batch over probe.ctx + 1
// keys (hf_grid.py's and profile_host.py's layout), priced host = host_per_step + launches x host_per_kernel + views
// x the card's eager_view, or, where the profile prices ATen calls, host_per_step + launching calls x host_per_aten +
// other calls x host_per_aten_view (+ modules x host_per_module). Two depths give both the rate and host_per_step (the
// per-layer slope and the step's own part); one depth gives the rate with host_per_step kept. Refits them in `cal`'s
// eager profile (added when absent; host_per_aten_view keeps its ratio to host_per_aten). Throws InputError for a
// probe that no positive rates explain.
EagerHostFit fit_eager_host(const Model& model, const HostProbe& probe, const Card& card, Calibration& cal);

}  // namespace perfmodel
