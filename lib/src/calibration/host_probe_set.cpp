// Several processes' host probes taken as one: each depth's median (host_probe_set.hpp says why).
#include "perfmodel/host_probe_set.hpp"

#include <cmath>
#include <sstream>

#include "perfmodel/errors.hpp"
#include "perfmodel/stats.hpp"

namespace perfmodel {

HostProbeSet combine_probes(const std::vector<HostProbe>& probes, const std::vector<std::string>& sources) {
  if (probes.empty()) throw InputError("the host probe: no process's record to combine");
  const HostProbe& first = probes.front();
  for (size_t i = 1; i < probes.size(); ++i) {
    const HostProbe& p = probes[i];
    const std::string who = i < sources.size() ? sources[i] : "probe " + std::to_string(i + 1);
    bool same = p.model == first.model && p.batch == first.batch && p.ctx == first.ctx && p.depths.size() == first.depths.size();
    for (size_t d = 0; same && d < p.depths.size(); ++d) same = p.depths[d].layers == first.depths[d].layers;
    if (!same)
      throw InputError(who + ": not the same probe as " + (sources.empty() ? "the first" : sources.front()) +
                       " (model, batch, ctx and the depths' layers must match to take processes' median)");
  }
  for (size_t i = 0; i < probes.size(); ++i)
    for (const HostProbeDepth& d : probes[i].depths)
      if (!(d.host_call_s > 0) || !(d.host_call_s <= 3600)) {  // one decode step's host: milliseconds, never an hour
        std::ostringstream v;
        v << d.host_call_s;
        throw InputError((i < sources.size() ? sources[i] : "probe " + std::to_string(i + 1)) +
                         ": field 'host_call_s': a positive time in seconds, at most 3600, not " + v.str());
      }
  HostProbeSet s;
  s.median = first;
  for (size_t d = 0; d < first.depths.size(); ++d) {
    std::vector<double> host, wall, kernels;
    for (const HostProbe& p : probes) {
      host.push_back(p.depths[d].host_call_s);
      wall.push_back(p.depths[d].wall_s);
      kernels.push_back(p.depths[d].kernels);
    }
    s.median.depths[d].host_call_s = quantile(host, 0.5);
    s.median.depths[d].wall_s = quantile(wall, 0.5);
    s.median.depths[d].kernels = quantile(kernels, 0.5);
  }
  for (const HostProbe& p : probes) {
    double sum = 0;
    for (size_t d = 0; d < p.depths.size(); ++d) sum += p.depths[d].host_call_s / s.median.depths[d].host_call_s;
    s.ratios.push_back(p.depths.empty() ? 1 : sum / static_cast<double>(p.depths.size()));
  }
  return s;
}

}  // namespace perfmodel
