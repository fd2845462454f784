// Refits a profile's prefill attention keys on measured cuDNN SDPA calls (profile_attention_fit.hpp).
#include "perfmodel/profile_attention_fit.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/errors.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/stats.hpp"

namespace perfmodel {

namespace {

ProfileCalibration& block(Calibration& cal, Impl profile) {
  const std::string name = to_string(profile);
  for (auto& p : cal.profiles)
    if (p.name == name) return p;
  ProfileCalibration p;
  p.name = name;
  p.fitted_on = "calibrate --profile " + name + " (prefill attention)";
  cal.profiles.push_back(p);
  return cal.profiles.back();
}

void set_keys(ProfileCalibration& p, const AttentionKeys& k) {
  p.attention_peak = k.peak;
  p.attention_softmax_share = k.softmax_share;
  p.attention_cta_fixed_s = k.cta_fixed_s;
  p.attention_call_floor_s = k.call_floor_s;
}

// The profile's errors on the cuDNN prefill cases, split by case index (even: fit).
struct Split {
  std::vector<double> fit, held;
};

Split errors(const Measurements& m, const Card& card, const Calibration* cal, Impl profile) {
  Split s;
  for (const ProfileCaseError& e : evaluate_profiles(m, card, cal))
    if (e.profile == profile) (e.held_out ? s.held : s.fit).push_back(e.error.error);
  return s;
}

ErrorSummary summary(const std::vector<double>& signed_errors) {
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

double loss(const std::vector<double>& signed_errors) {
  double l = 0;
  for (double e : signed_errors) l += std::pow(std::log1p(std::max(e, -0.999)), 2);
  return l;
}

}  // namespace

AttentionFit fit_profile_attention(const Measurements& all, const Card& card, Calibration& cal, Impl profile) {
  Measurements m = all;
  m.cases.clear();
  m.steps.clear();
  for (const MeasuredCase& c : all.cases)
    if (c.implementation == "torch.sdpa.cudnn" && c.kernel.kernel == KernelId::attention_prefill_fused) m.cases.push_back(c);
  int fit_cases = 0;
  for (const MeasuredCase& c : m.cases) fit_cases += c.index % 2 == 0;
  if (fit_cases < 4)
    throw InputError("calibrate --profile: " + std::to_string(fit_cases) +
                     " cuDNN SDPA prefill cases to fit on (torch.sdpa.cudnn, even case index); at least 4");

  ProfileCalibration& p = block(cal, profile);
  const Roofs start = make_roofs(card, &cal, profile);
  AttentionFit f;
  f.before = {start.attention_peak, start.attention_softmax_share, start.attention_cta_fixed_s,
              start.attention_call_floor_s.value_or(0)};
  const Split s0 = errors(m, card, &cal, profile);
  f.fit_before = summary(s0.fit);
  f.held_before = summary(s0.held);
  f.held_datasheet = summary(errors(m, card, nullptr, profile).held);

  // Coordinate search: each key in turn tries a ladder of steps (multiplicative; the share additive), the best kept;
  // the ladder halves when a sweep finds nothing better.
  AttentionKeys k = f.before;
  if (!(k.peak > 0)) k.peak = card.peak[static_cast<int>(Precision::bf16)] * 0.5;
  auto trial = [&](const AttentionKeys& t) {
    set_keys(p, t);
    return loss(errors(m, card, &cal, profile).fit);
  };
  double best = trial(k);
  double step = 0.5;
  for (int sweep = 0; sweep < 60 && step > 1e-3; ++sweep) {
    bool moved = false;
    for (int key = 0; key < 4; ++key)
      for (double dir : {-1.0, 1.0}) {
        AttentionKeys t = k;
        switch (key) {
          case 0: t.peak *= std::exp(dir * step); break;
          case 1: t.softmax_share = std::clamp(t.softmax_share + dir * step * 0.2, 0.0, 0.95); break;
          case 2: t.cta_fixed_s = std::max(0.0, t.cta_fixed_s * std::exp(dir * step) + dir * step * 0.1e-6); break;
          default: t.call_floor_s = std::max(0.0, t.call_floor_s * std::exp(dir * step) + dir * step * 0.5e-6); break;
        }
        const double l = trial(t);
        if (l < best - 1e-12) {
          best = l;
          k = t;
          moved = true;
        }
      }
    if (!moved) step *= 0.5;
  }
  set_keys(p, k);
  f.after = k;
  const Split s1 = errors(m, card, &cal, profile);
  f.fit_after = summary(s1.fit);
  f.held_after = summary(s1.held);
  return f;
}

}  // namespace perfmodel
