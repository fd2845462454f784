#pragma once
// What each part of `calibrate --profile` fits (profile_key_fit.hpp): its keys, where each starts, and the signed
// errors of its production calls under a calibration, split by case index (even: fit; odd: held out).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/profile_key_fit.hpp"

namespace perfmodel {

struct Roofs;

// One key of the search: multiplicative steps (a rate or a time; a time also moves by `nudge` seconds a step, so
// that a 0 can grow) or additive ones (a share, 0.2 a step), kept in [lo, hi].
struct Knob {
  std::string path;
  KeyUnit unit = KeyUnit::seconds;
  double start = 0;
  double lo = 0, hi = 1e300;
  double nudge = 0;
  std::function<void(ProfileCalibration&, double)> set;
  // Where the search starts when not at `start` (the value before, kept when no call moves the key): a key whose 0
  // means "not priced" and that prices only beside another (both of a pair above 0) cannot leave 0 one at a time.
  std::optional<double> seed = std::nullopt;
};

struct SplitErrors {
  std::vector<double> fit, held;
};

struct PartSpec {
  std::string cases_of;
  // The file's calls this part prices for a profile (the search runs on these alone).
  std::function<bool(const MeasuredCase&, Impl)> takes;
  // The signed errors of those calls for `profile` (cal: nullptr, the datasheet defaults).
  std::function<SplitErrors(const Measurements&, const Card&, const Calibration*, Impl)> errors;
  // The keys, each starting from `start_roofs` (the profile's values laid over the card's); `m` the part's calls.
  std::function<std::vector<Knob>(const Roofs& start_roofs, const Measurements& m, Impl profile)> knobs;
};

PartSpec part_spec(ProfilePart part);

}  // namespace perfmodel
