#pragma once
// The eager profile's host pace measured on the machine that runs it (issue 10, item 2;
// `perfmodel calibrate --on-gpu --profile eager`). The eager step's host time is its dispatched
// calls priced at the profile's host rates (price.cpp, eager_host_time); the rates were fitted on
// one lease's steps, and hosts differ 1.3-2.7x on the same calls (validation/results/h200-host-probe).
// validation/scripts/production/profile_host.py times one transformers decode step of a catalogue
// model cut to a few layers with the GPU kept busy, so the call's return time is the host's alone;
// this refits the host rate so that perfmodel's priced host of that same step equals it.
#include <cstdint>
#include <string>

#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/model.hpp"

namespace perfmodel {

// One probe record (profile_host.py's JSON, or its result line).
struct HostProbe {
  std::string model;        // catalogue key whose transformers class ran
  int64_t layers = 0;       // decoder layers kept
  int64_t batch = 1;
  int64_t ctx = 0;          // tokens in the cache before the step (the step attends ctx + 1)
  double host_call_s = 0;   // the step's host time (GPU kept busy)
  double wall_s = 0;        // the same step's synchronized wall (recorded, not fitted)
  double kernels = 0;       // the profiler's kernels a step (recorded; the fit uses the priced launches)
};

struct EagerHostFit {
  int64_t launches = 0;            // kernels the eager lowering launches in the probe's step
  double host_before_s = 0;        // the probe step's host time priced with the calibration as it was
  double host_after_s = 0;         // ... with the refitted rates (equals host_call_s)
  double fixed_s = 0;              // the part no refitted rate moves (the card's eager_view per view)
  double per_kernel_before_s = 0;  // the profile's host_per_kernel (or host_per_aten) before
  double per_kernel_after_s = 0;   // ... after
  double scale = 1;                // after / before
  bool aten_form = false;          // the profile prices ATen calls (host_per_aten) rather than kernels
};

// The probe's step: `model` cut to probe.layers, a contiguous-cache eager decode at probe.batch over
// probe.ctx + 1 keys (hf_grid.py's and profile_host.py's layout). Refits the calibration's eager host
// rates in `cal` (the profile is added when absent) so that the step's priced host time equals
// probe.host_call_s: host_per_kernel alone (the card's eager_view per view stays), or, when the
// profile prices ATen calls, host_per_aten, host_per_aten_view and host_per_module by one factor.
// Throws InputError for a probe that no positive rate explains.
EagerHostFit fit_eager_host(const Model& model, const HostProbe& probe, const Card& card, Calibration& cal);

}  // namespace perfmodel
