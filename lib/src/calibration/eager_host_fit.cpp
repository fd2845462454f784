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
  const ProfileCalibration before = p;
  EagerHostFit f;
  f.per_aten = before.host_per_aten_s.has_value();
  f.per_kernel_before_s = before.host_per_kernel_s.value_or(0);
  f.per_aten_before_s = before.host_per_aten_s.value_or(0);
  f.per_step_before_s = before.host_per_step_s.value_or(0);
  if (f.per_aten && *before.host_per_aten_s > 0)
    f.view_ratio = before.host_per_aten_view_s.value_or(*before.host_per_aten_s) / *before.host_per_aten_s;
  // The rate refitted: host_per_aten (its view rate at the same ratio) or host_per_kernel.
  auto set_rate = [&](double r) {
    if (f.per_aten) {
      p.host_per_aten_s = r;
      p.host_per_aten_view_s = r * f.view_ratio;
    } else {
      p.host_per_kernel_s = r;
    }
  };
  // Each depth's host is linear in the rate and host_per_step: priced at (0, 0) it is the rest's part v (the views
  // at the card's eager_view, or the modules), and 1 us more of the rate adds c (the launches, or the ATen calls).
  std::vector<double> v, c;
  for (const auto& d : probe.depths) {
    const Priced now = price_probe(model, probe, d.layers, card, cal);
    f.host_before_s.push_back(now.host_s);
    f.launches.push_back(now.launches);
    set_rate(0.0);
    p.host_per_step_s = 0.0;
    v.push_back(price_probe(model, probe, d.layers, card, cal).host_s);
    set_rate(1e-6);
    c.push_back(price_probe(model, probe, d.layers, card, cal).host_s - v.back());
    p = before;
  }
  const std::string rate_name = f.per_aten ? "host_per_aten" : "host_per_kernel";
  double rate = 0, per_step = f.per_step_before_s;
  if (probe.depths.size() == 2) {
    const double dc = c[1] - c[0];
    if (!(std::abs(dc) > 0)) throw InputError(where + ": the two depths price the same calls");
    rate = ((probe.depths[1].host_call_s - v[1]) - (probe.depths[0].host_call_s - v[0])) / dc * 1e-6;
    per_step = probe.depths[0].host_call_s - v[0] - c[0] * rate * 1e6;
  } else {
    if (!(c[0] > 0)) throw InputError(where + ": the priced step has no call the rate prices; nothing to fit");
    rate = (probe.depths[0].host_call_s - v[0] - per_step) / c[0] * 1e-6;
  }
  if (!(rate > 0) || !std::isfinite(rate))
    throw InputError(where + ": the host times give no positive " + rate_name + " (" + std::to_string(rate * 1e6) +
                     " us): the deeper step must take longer");
  if (per_step < 0)
    throw InputError(where + ": the host times give a negative host_per_step (" + std::to_string(per_step * 1e6) +
                     " us): the shallow step is faster than its calls alone");
  set_rate(rate);
  p.host_per_step_s = per_step;
  if (f.per_aten) {
    f.per_kernel_after_s = f.per_kernel_before_s;
    f.per_aten_after_s = rate;
    f.scale = f.per_aten_before_s > 0 ? rate / f.per_aten_before_s : 1;
  } else {
    f.per_kernel_after_s = rate;
    f.scale = f.per_kernel_before_s > 0 ? rate / f.per_kernel_before_s : 1;
  }
  f.per_step_after_s = per_step;
  for (const auto& d : probe.depths) f.host_after_s.push_back(price_probe(model, probe, d.layers, card, cal).host_s);
  return f;
}

}  // namespace perfmodel
