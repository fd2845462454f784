#pragma once
// Several processes' host probes of one machine, taken as one (issue 10, item 2: the eager host measured where it
// runs). The eager host's pace is a property of the process, not of the machine or of the vCPU it runs on: on one
// H200 lease the same probe ran 2.97-7.53 ms in 28 processes, pinned to each vCPU twice round, the two rounds on a
// vCPU uncorrelated (r = -0.03) and no steal time (validation/results/h200-heldout32/cores). A probe of one process
// reads one draw; the median of several reads the machine's typical process, which is what a prediction of a
// user's process should price, and their spread is how far one process may stray from it.
#include <string>
#include <vector>

#include "perfmodel/eager_host_fit.hpp"

namespace perfmodel {

struct HostProbeSet {
  HostProbe median;            // each depth's host_call_s, wall_s and kernels: the median over the processes
  std::vector<double> ratios;  // each process's host / the median's (the mean over depths of host_call_s ratios)
};

// The processes' probes must be of one model, batch, cache and the same depths; `sources` names each (its file) for
// the error. Throws InputError naming the source that differs; an empty set is refused.
HostProbeSet combine_probes(const std::vector<HostProbe>& probes, const std::vector<std::string>& sources);

}  // namespace perfmodel
