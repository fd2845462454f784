// What test_norm_waves.cpp and test_norm_issue.cpp share: the card's calibration in fit_aten.py's form
// (whole 8-CTA waves of the chain, one read of the row: branch normissue's keys taken out) and a suite's
// eager F.rms_norm / F.layer_norm errors.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/profile_calibration.hpp"
#include "test_support.hpp"

namespace test {

inline const perfmodel::Calibration& card_calibration() {
  static const perfmodel::Calibration c = perfmodel::load_calibration(root() + "/hardware/h200.calibration.yaml");
  return c;
}

inline const perfmodel::Calibration& aten_form_calibration() {
  static const perfmodel::Calibration c = [] {
    perfmodel::Calibration out = card_calibration();
    for (perfmodel::ProfileCalibration& p : out.profiles)
      if (p.name == "eager") {
        p.aten.norm_overlap = 0;
        p.aten.norm_issue_ipc = 0;
        p.aten.norm_ctas_per_sm = 8;
      }
    return out;
  }();
  return c;
}

// |predicted / measured - 1| of a suite's eager F.rms_norm / F.layer_norm calls (validation/results/<suite>).
inline std::vector<double> eager_norm_errors(const std::string& suite, const perfmodel::Calibration& cal) {
  perfmodel::Measurements m;
  perfmodel::load_measurements(root() + "/validation/results/" + suite, m);
  std::vector<double> out;
  for (const perfmodel::ProfileCaseError& c : perfmodel::evaluate_profiles(m, catalogue().card("h200"), &cal))
    if (c.profile == perfmodel::Impl::eager && c.implementation == "torch.eager" &&
        (c.error.name.find("_rmsnorm_") != std::string::npos || c.error.name.find("_layernorm_") != std::string::npos))
      out.push_back(std::fabs(c.error.error));
  return out;
}

}  // namespace test
