// Measuring error bands (error_band.hpp) from validation data: `perfmodel accuracy --bands`.
#include <map>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/error_band.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_accuracy.hpp"

namespace perfmodel {

namespace {

ErrorBands bands_of(const std::map<std::string, std::vector<double>>& by_set, std::string source) {
  ErrorBands b;
  b.source = std::move(source);
  for (const auto& [set, errors] : by_set)
    if (!errors.empty()) b.sets[set] = error_quantiles(errors);
  return b;
}

}  // namespace

std::map<std::string, ErrorBands> measure_error_bands(const Measurements& m, const Card& card,
                                                      const Calibration* calibration,
                                                      const std::function<Model(const std::string&)>& model_lookup) {
  std::map<std::string, ErrorBands> out;
  // backend: this project's kernels and whole steps, on the card's roofs.
  Measurements own = m;
  own.cases.clear();
  for (const MeasuredCase& c : m.cases)
    if (c.implementation.empty()) own.cases.push_back(c);
  std::map<std::string, std::vector<double>> backend;
  for (const CaseError& e : evaluate(own, make_roofs(card, calibration), model_lookup)) backend[e.set].push_back(e.error);
  if (!backend.empty()) out["backend"] = bands_of(backend, "this project's kernels and steps");
  // fused and eager: production kernels held out of the profile fit (odd case index).
  std::map<Impl, std::map<std::string, std::vector<double>>> profiles;
  for (const ProfileCaseError& e : evaluate_profiles(m, card, calibration))
    if (e.held_out) profiles[e.profile][e.error.set].push_back(e.error.error);
  // No profile takes a step band here: the backend's steps run this project's kernels, not a profile's. The profiles'
  // steps are measured apart (fused_step.py, transformers, torch.compile) and their bands written by
  // validation/scripts/error_bands.py; without one a step's band is its ops' (time_bands.cpp).
  for (auto& [impl, sets] : profiles) out[to_string(impl)] = bands_of(sets, "production kernels held out of the profile fit");
  return out;
}

}  // namespace perfmodel
