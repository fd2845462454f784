// Refits the eager profile's host rates on this machine's probe (eager_host_fit.hpp).
#include "perfmodel/eager_host_fit.hpp"

#include <cmath>

#include "perfmodel/errors.hpp"
#include "perfmodel/evaluate.hpp"

namespace perfmodel {

namespace {

ProfileCalibration& eager_profile(Calibration& cal) {
  for (auto& p : cal.profiles)
    if (p.name == "eager") return p;
  ProfileCalibration p;
  p.name = "eager";
  p.fitted_on = "calibrate --profile eager (the host only)";
  cal.profiles.push_back(p);
  return cal.profiles.back();
}

// The probe step's priced host time and launches.
struct Priced {
  double host_s = 0;
  int64_t launches = 0;
};

Priced price_probe(const Model& model, const HostProbe& probe, int64_t layers, const Card& card, const Calibration& cal) {
  Model cut = model;
  cut.layers = layers;
  Workload w;
  w.phase = Phase::decode;
  w.batch = probe.batch;
  w.ctx = probe.ctx + 1;          // the step attends the cache and its own token (compare_hf.priced_ctx)
  w.impl = Impl::eager;
  w.eager_cache_cropped = false;  // profile_host.py keeps the cache contiguous, as generate() leaves it
  EvaluateOptions o;
  o.with_ttft = false;
  const Evaluation e = evaluate(cut, w, card, &cal, o);
  return {e.cost.host_time_s, e.step.launches()};
}

}  // namespace

EagerHostFit fit_eager_host(const Model& model, const HostProbe& probe, const Card& card, Calibration& cal) {
  const std::string where = "host probe (" + probe.model + ")";
  if (probe.depths.empty() || probe.depths.size() > 2) throw InputError(where + ": one or two depths");
  if (probe.batch < 1 || probe.ctx < 1) throw InputError(where + ": batch and ctx must be >= 1");
  for (const auto& d : probe.depths) {
    if (!(d.host_call_s > 0) || !std::isfinite(d.host_call_s)) throw InputError(where + ": host_call_s must be a positive time");
    if (d.layers < 1 || d.layers > model.layers)
      throw InputError(where + ": " + std::to_string(d.layers) + " layers, the model has " + std::to_string(model.layers));
  }
  if (probe.depths.size() == 2 && probe.depths[0].layers == probe.depths[1].layers)
    throw InputError(where + ": the two depths must differ");
  ProfileCalibration& p = eager_profile(cal);
  if (p.host_per_aten_s) throw InputError(where + ": the eager profile prices ATen calls (host_per_aten); only host_per_kernel is refitted");
  const ProfileCalibration before = p;
  EagerHostFit f;
  f.per_kernel_before_s = before.host_per_kernel_s.value_or(0);
  f.per_step_before_s = before.host_per_step_s.value_or(0);
  // Each depth's host is linear in the two rates: priced at (0, 0) it is the views' part v, and 1 us more per
  // kernel adds c (the launches, as the lowering counts them).
  std::vector<double> v, c;
  for (const auto& d : probe.depths) {
    const Priced now = price_probe(model, probe, d.layers, card, cal);
    f.host_before_s.push_back(now.host_s);
    f.launches.push_back(now.launches);
    p.host_per_kernel_s = 0.0;
    p.host_per_step_s = 0.0;
    v.push_back(price_probe(model, probe, d.layers, card, cal).host_s);
    p.host_per_kernel_s = 1e-6;
    c.push_back(price_probe(model, probe, d.layers, card, cal).host_s - v.back());
    p = before;
  }
  double per_kernel = 0, per_step = f.per_step_before_s;
  if (probe.depths.size() == 2) {
    const double dc = c[1] - c[0];
    if (!(std::abs(dc) > 0)) throw InputError(where + ": the two depths launch the same kernels");
    per_kernel = ((probe.depths[1].host_call_s - v[1]) - (probe.depths[0].host_call_s - v[0])) / dc * 1e-6;
    per_step = probe.depths[0].host_call_s - v[0] - c[0] * per_kernel * 1e6;
  } else {
    if (!(c[0] > 0)) throw InputError(where + ": the priced step launches no kernel; nothing to fit");
    per_kernel = (probe.depths[0].host_call_s - v[0] - per_step) / c[0] * 1e-6;
  }
  if (!(per_kernel > 0) || !std::isfinite(per_kernel))
    throw InputError(where + ": the host times give no positive host_per_kernel (" + std::to_string(per_kernel * 1e6) +
                     " us): the deeper step must take longer");
  if (per_step < 0)
    throw InputError(where + ": the host times give a negative host_per_step (" + std::to_string(per_step * 1e6) +
                     " us): the shallow step is faster than its kernels alone");
  p.host_per_kernel_s = per_kernel;
  p.host_per_step_s = per_step;
  f.per_kernel_after_s = per_kernel;
  f.per_step_after_s = per_step;
  f.scale = f.per_kernel_before_s > 0 ? per_kernel / f.per_kernel_before_s : 1;
  for (const auto& d : probe.depths) f.host_after_s.push_back(price_probe(model, probe, d.layers, card, cal).host_s);
  return f;
}

}  // namespace perfmodel
