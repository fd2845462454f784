// Refits the eager profile's host rate on this machine's probe (eager_host_fit.hpp).
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

double step_host_s(const Model& m, const Workload& w, const Card& card, const Calibration& cal) {
  EvaluateOptions o;
  o.with_ttft = false;
  return evaluate(m, w, card, &cal, o).cost.host_time_s;
}

}  // namespace

EagerHostFit fit_eager_host(const Model& model, const HostProbe& probe, const Card& card, Calibration& cal) {
  const std::string where = "host probe (" + probe.model + ", " + std::to_string(probe.layers) + " layers)";
  if (!(probe.host_call_s > 0) || !std::isfinite(probe.host_call_s))
    throw InputError(where + ": host_call_s must be a positive time");
  if (probe.layers < 1 || probe.batch < 1 || probe.ctx < 1)
    throw InputError(where + ": layers, batch and ctx must be >= 1");
  if (probe.layers > model.layers)
    throw InputError(where + ": " + std::to_string(probe.layers) + " layers, the model has " + std::to_string(model.layers));
  Model cut = model;
  cut.layers = probe.layers;
  Workload w;
  w.phase = Phase::decode;
  w.batch = probe.batch;
  w.ctx = probe.ctx + 1;  // the step attends the cache and its own token (compare_hf.priced_ctx)
  w.impl = Impl::eager;
  w.eager_cache_cropped = false;  // profile_host.py keeps the cache contiguous, as generate() leaves it

  ProfileCalibration& p = eager_profile(cal);
  EagerHostFit f;
  f.aten_form = p.host_per_aten_s.has_value();
  f.host_before_s = step_host_s(cut, w, card, cal);
  EvaluateOptions o;
  o.with_ttft = false;
  f.launches = evaluate(cut, w, card, &cal, o).step.launches();
  if (f.aten_form) {
    // Every term scales with the rates: one factor.
    f.per_kernel_before_s = *p.host_per_aten_s;
    f.scale = probe.host_call_s / f.host_before_s;
    p.host_per_aten_s = *p.host_per_aten_s * f.scale;
    if (p.host_per_aten_view_s) p.host_per_aten_view_s = *p.host_per_aten_view_s * f.scale;
    if (p.host_per_module_s) p.host_per_module_s = *p.host_per_module_s * f.scale;
    f.per_kernel_after_s = *p.host_per_aten_s;
  } else {
    // host = launches x host_per_kernel + views x eager_view: linear in host_per_kernel, so two
    // prices give the line (the views' part is the card's, not refitted).
    const Measured before = p.host_per_kernel_s;
    f.per_kernel_before_s = before.value_or(0);
    p.host_per_kernel_s = 0.0;
    f.fixed_s = step_host_s(cut, w, card, cal);
    p.host_per_kernel_s = 1e-6;
    const double per_us = step_host_s(cut, w, card, cal) - f.fixed_s;
    if (!(per_us > 0)) {
      p.host_per_kernel_s = before;
      throw InputError(where + ": the priced step launches no kernel; nothing to fit");
    }
    const double rate = (probe.host_call_s - f.fixed_s) / per_us * 1e-6;
    if (!(rate > 0)) {
      p.host_per_kernel_s = before;
      throw InputError(where + ": host_call_s " + std::to_string(probe.host_call_s * 1e3) +
                       " ms is below the step's views alone (" + std::to_string(f.fixed_s * 1e3) + " ms)");
    }
    p.host_per_kernel_s = rate;
    f.per_kernel_after_s = rate;
    f.scale = f.per_kernel_before_s > 0 ? rate / f.per_kernel_before_s : 1;
  }
  f.host_after_s = step_host_s(cut, w, card, cal);
  return f;
}

}  // namespace perfmodel
