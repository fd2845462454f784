// Refits a profile's keys on measured production calls (profile_key_fit.hpp): a coordinate search over the C++
// model, the part's calls and keys given by profile_fit_parts.cpp.
#include "perfmodel/profile_key_fit.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "perfmodel/errors.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "profile_fit_parts.hpp"

namespace perfmodel {

std::string to_string(ProfilePart part) {
  switch (part) {
    case ProfilePart::attention: return "attention";
    case ProfilePart::decode: return "decode";
    case ProfilePart::gemm: return "gemm";
    case ProfilePart::small: return "small";
    case ProfilePart::flash2: return "flash2";
    case ProfilePart::flash2_decode: return "flash2_decode";
  }
  return "?";
}

const FittedKey& ProfileFit::key(const std::string& path) const {
  for (const FittedKey& k : keys)
    if (k.path == path) return k;
  throw std::out_of_range("ProfileFit: no key " + path);
}

ErrorSummary summarize_errors(const std::vector<double>& signed_errors) {
  std::vector<double> a;
  for (double e : signed_errors) a.push_back(std::fabs(e));
  ErrorSummary s;
  s.cases = static_cast<int>(a.size());
  if (!a.empty()) {
    s.median = quantile(a, 0.5);
    s.p90 = quantile(a, 0.9);
  }
  return s;
}

namespace {

ProfileCalibration& block(Calibration& cal, Impl profile, ProfilePart part) {
  const std::string name = to_string(profile);
  for (auto& p : cal.profiles)
    if (p.name == name) return p;
  ProfileCalibration p;
  p.name = name;
  p.fitted_on = "calibrate --profile " + name + " (" + to_string(part) + ")";
  cal.profiles.push_back(p);
  return cal.profiles.back();
}

// Squared log error: a factor too slow weighs as a factor too fast.
double loss(const std::vector<double>& signed_errors) {
  double l = 0;
  for (double e : signed_errors) l += std::pow(std::log1p(std::max(e, -0.999)), 2);
  return l;
}

// A key's value at search coordinate x (0: its start): multiplicative with a time's additive nudge, so that a 0 can
// grow; additive for a share. Monotone in x, kept in [lo, hi].
double value_at(const Knob& k, double start, double x) {
  const double v = k.unit == KeyUnit::share ? start + 0.2 * x : start * std::exp(x) + k.nudge * x;
  return std::clamp(v, k.lo, k.hi);
}

// Nelder-Mead over the keys' coordinates (validation/scripts/production/fit_profiles.py's form): a simplex moves
// along valleys where two keys trade off (a GEMM's fixed time against its K walk), which a search one key at a time
// stops in.
std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f, size_t n, int iterations) {
  std::vector<std::vector<double>> pts(n + 1, std::vector<double>(n, 0.0));
  for (size_t k = 0; k < n; ++k) pts[k + 1][k] = 0.5;
  std::vector<double> vals;
  for (const auto& p : pts) vals.push_back(f(p));
  auto along = [&](const std::vector<double>& from, const std::vector<double>& to, double t) {
    std::vector<double> x(n);
    for (size_t j = 0; j < n; ++j) x[j] = from[j] + t * (to[j] - from[j]);
    return x;
  };
  for (int it = 0; it < iterations; ++it) {
    std::vector<size_t> order(n + 1);
    for (size_t k = 0; k <= n; ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return vals[a] < vals[b]; });
    std::vector<std::vector<double>> p2;
    std::vector<double> v2;
    for (size_t k : order) {
      p2.push_back(pts[k]);
      v2.push_back(vals[k]);
    }
    pts = p2;
    vals = v2;
    std::vector<double> centre(n, 0.0);
    for (size_t k = 0; k < n; ++k)
      for (size_t j = 0; j < n; ++j) centre[j] += pts[k][j] / static_cast<double>(n);
    const auto reflected = along(centre, pts[n], -1.0);
    const double fr = f(reflected);
    if (fr < vals[0]) {
      const auto expanded = along(centre, pts[n], -2.0);
      const double fe = f(expanded);
      pts[n] = fe < fr ? expanded : reflected;
      vals[n] = std::min(fe, fr);
    } else if (fr < vals[n - 1]) {
      pts[n] = reflected;
      vals[n] = fr;
    } else {
      const auto contracted = along(centre, pts[n], 0.5);
      const double fc = f(contracted);
      if (fc < vals[n]) {
        pts[n] = contracted;
        vals[n] = fc;
      } else {
        for (size_t k = 1; k <= n; ++k) {
          pts[k] = along(pts[0], pts[k], 0.5);
          vals[k] = f(pts[k]);
        }
      }
    }
  }
  return pts[static_cast<size_t>(std::min_element(vals.begin(), vals.end()) - vals.begin())];
}

double stepped(const Knob& k, double v, double dir, double step) {
  double t = k.unit == KeyUnit::share ? v + dir * step * 0.2 : v * std::exp(dir * step) + dir * step * k.nudge;
  return std::clamp(t, k.lo, k.hi);
}

}  // namespace

namespace {

Measurements calls_of(const Measurements& all, const PartSpec& spec, Impl profile) {
  Measurements m = all;
  m.cases.clear();
  m.steps.clear();
  for (const MeasuredCase& c : all.cases)
    if (spec.takes(c, profile)) m.cases.push_back(c);
  return m;
}

}  // namespace

int profile_part_fit_calls(const Measurements& m, Impl profile, ProfilePart part) {
  const PartSpec spec = part_spec(part);
  int n = 0;
  for (const MeasuredCase& c : m.cases) n += spec.takes(c, profile) && c.index % 2 == 0;
  return n;
}

ErrorSummary profile_part_errors(const Measurements& all, const Card& card, const Calibration* cal, Impl profile,
                                 ProfilePart part) {
  const PartSpec spec = part_spec(part);
  SplitErrors s = spec.errors(calls_of(all, spec, profile), card, cal, profile);
  s.fit.insert(s.fit.end(), s.held.begin(), s.held.end());
  return summarize_errors(s.fit);
}

ProfileFit fit_profile_part(const Measurements& all, const Card& card, Calibration& cal, Impl profile, ProfilePart part) {
  if (part == ProfilePart::small && profile == Impl::fused)
    throw InputError("calibrate --profile fused --only small: the fused profile prices Inductor's kernels with the "
                     "compiled profile's inductor block (its stand-in for a serving engine's fused kernels): refit it "
                     "with --profile compiled");
  if ((part == ProfilePart::flash2 || part == ProfilePart::flash2_decode) && profile != Impl::eager)
    throw InputError("calibrate --profile " + to_string(profile) + " --only " + to_string(part) +
                     ": FlashAttention-2 is the eager profile's (transformers' flash_attention_2; every profile without "
                     "its own block takes the measured one): refit it with --profile eager");
  const PartSpec spec = part_spec(part);
  const Measurements m = calls_of(all, spec, profile);
  ProfileFit f;
  f.part = part;
  f.cases_of = spec.cases_of;
  const SplitErrors s0 = spec.errors(m, card, &cal, profile);
  if (s0.fit.size() < 4)
    throw InputError("calibrate --profile " + to_string(profile) + " --only " + to_string(part) + ": " +
                     std::to_string(s0.fit.size()) + " " + spec.cases_of + " to fit on (even case index); at least 4");
  f.fit_before = summarize_errors(s0.fit);
  f.held_before = summarize_errors(s0.held);
  f.held_datasheet = summarize_errors(spec.errors(m, card, nullptr, profile).held);

  ProfileCalibration& p = block(cal, profile, part);
  const std::vector<Knob> knobs = spec.knobs(make_roofs(card, &cal, profile), m, profile);
  std::vector<double> v;
  for (const Knob& k : knobs) {
    v.push_back(std::clamp(k.seed.value_or(k.start), k.lo, k.hi));
    f.keys.push_back({k.path, k.unit, k.start, k.start});
  }
  auto apply = [&](const std::vector<double>& values) {
    for (size_t i = 0; i < knobs.size(); ++i) knobs[i].set(p, values[i]);
  };
  auto trial = [&](const std::vector<double>& values) {
    apply(values);
    return loss(spec.errors(m, card, &cal, profile).fit);
  };
  // Nelder-Mead first, from the start; then a search one key at a time polishes: each key in turn tries a step down
  // and up, the best kept; the step halves when a sweep over every key finds nothing better.
  {
    const std::vector<double> start = v;
    auto at = [&](const std::vector<double>& x) {
      std::vector<double> t(knobs.size());
      for (size_t i = 0; i < knobs.size(); ++i) t[i] = value_at(knobs[i], start[i], x[i]);
      return t;
    };
    v = at(nelder_mead([&](const std::vector<double>& x) { return trial(at(x)); }, knobs.size(), 40 * static_cast<int>(knobs.size())));
  }
  auto polish = [&](std::vector<double>& x) {
    double lowest = trial(x);
    double step = 0.5;
    for (int sweep = 0; sweep < 40 && step > 2e-3; ++sweep) {
      bool moved = false;
      for (size_t i = 0; i < knobs.size(); ++i)
        for (double dir : {-1.0, 1.0}) {
          std::vector<double> t = x;
          t[i] = stepped(knobs[i], x[i], dir, step);
          const double l = trial(t);
          if (l < lowest - 1e-12) {
            lowest = l;
            x = t;
            moved = true;
          }
        }
      if (!moved) step *= 0.5;
    }
    return lowest;
  };
  double best = polish(v);
  // A seeded key the search left at 0 sits where it prices nothing and no step can tell (a chain under the stream):
  // it gets its seed back once and the polish runs again, kept where the loss falls.
  for (size_t i = 0; i < knobs.size(); ++i)
    if (knobs[i].seed && !(v[i] > 0)) {
      std::vector<double> t = v;
      t[i] = std::clamp(*knobs[i].seed, knobs[i].lo, knobs[i].hi);
      const double l = polish(t);
      if (l < best - 1e-12) {
        best = l;
        v = t;
      }
    }
  // A key no call prices with drifts wherever the search left it: kept at its start instead. A seeded key also
  // counts as priced when its start (0, "not priced") moves the loss: it gates a term its partner prices.
  for (size_t i = 0; i < knobs.size(); ++i) {
    auto moves_loss = [&](double value) {
      std::vector<double> t = v;
      t[i] = value;
      return std::fabs(trial(t) - best) > 1e-9 * (1 + best);
    };
    bool moves = moves_loss(stepped(knobs[i], v[i], -1, 0.5)) || moves_loss(stepped(knobs[i], v[i], 1, 0.5));
    const double start = std::clamp(knobs[i].start, knobs[i].lo, knobs[i].hi);
    if (knobs[i].seed) moves = moves || moves_loss(start);
    if (!moves) {
      v[i] = start;
      f.keys[i].determined = false;
      best = trial(v);
    }
  }
  apply(v);
  for (size_t i = 0; i < knobs.size(); ++i) f.keys[i].after = v[i];
  const SplitErrors s1 = spec.errors(m, card, &cal, profile);
  f.fit_after = summarize_errors(s1.fit);
  f.held_after = summarize_errors(s1.held);
  return f;
}

}  // namespace perfmodel
