// `error_bands:` of a calibration file (calibration_error_bands.hpp).
#include "catalogue/calibration_error_bands.hpp"

#include <cstdio>

namespace perfmodel::detail {

namespace {

const char* const kProfiles[] = {"backend", "fused", "eager", "compiled"};
const char* const kSets[] = {"gemm", "elementwise", "attention", "step"};

template <class List>
bool listed(const List& list, const std::string& key) {
  for (const char* k : list)
    if (key == k) return true;
  return false;
}

}  // namespace

ErrorQuantiles read_error_quantiles(MapReader q) {
  ErrorQuantiles e;
  // A prediction's signed error lies in (-1, inf); a band past 10x either way is a broken file.
  auto number = [&](const char* key) {
    const auto v = q.opt_number(key, -0.99, 10.0);
    if (!v) q.fail(key, "missing required field");
    return *v;
  };
  e.p10 = number("p10");
  e.p90 = number("p90");
  e.cases = static_cast<int>(q.opt_integer("cases", 1, 1 << 30).value_or(0));
  if (e.p10 > e.p90) q.fail("p10", "must not exceed p90");
  q.finish();
  return e;
}

std::string error_quantiles_yaml(const ErrorQuantiles& q) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "{p10: %.4f, p90: %.4f, cases: %d}", q.p10, q.p90, q.cases);
  return buf;
}

namespace {

// One `profile: {source, set: quantiles...}` map per profile, under `section`.
ErrorBandsByProfile read_profiles_bands(MapReader& section) {
  ErrorBandsByProfile out;
  for (const std::string& profile : section.keys()) {
    if (!listed(kProfiles, profile)) section.fail(profile, "unknown profile (expected backend, fused, eager or compiled)");
    MapReader p = section.map(profile);
    ErrorBands b;
    b.source = p.opt_str("source").value_or("");
    for (const std::string& set : p.keys()) {
      if (set == "source") continue;
      if (!listed(kSets, set)) p.fail(set, "unknown set (expected gemm, elementwise, attention or step)");
      b.sets[set] = read_error_quantiles(p.map(set));
    }
    p.finish();
    out[profile] = b;
  }
  section.finish();
  return out;
}

void write_profiles_bands(std::ostream& o, const ErrorBandsByProfile& bands, const std::string& indent) {
  for (const auto& [profile, b] : bands) {
    o << indent << profile << ":\n";
    if (!b.source.empty()) o << indent << "  source: \"" << b.source << "\"\n";
    for (const auto& [set, q] : b.sets) o << indent << "  " << set << ": " << error_quantiles_yaml(q) << "\n";
  }
}

}  // namespace

ErrorBandsByProfile read_error_bands(MapReader& calibration) {
  auto section = calibration.opt_map("error_bands");
  return section ? read_profiles_bands(*section) : ErrorBandsByProfile{};
}

std::map<std::string, ErrorBandsByProfile> read_sibling_error_bands(MapReader& calibration) {
  std::map<std::string, ErrorBandsByProfile> out;
  auto section = calibration.opt_map("sibling_error_bands");
  if (!section) return out;
  for (const std::string& card : section->keys()) {
    MapReader c = section->map(card);
    out[card] = read_profiles_bands(c);
  }
  section->finish();
  return out;
}

void write_error_bands(std::ostream& o, const ErrorBandsByProfile& bands) {
  if (bands.empty()) return;
  o << "error_bands:   # p10 / p90 of predicted / measured - 1 per profile and set (perfmodel accuracy --bands)\n";
  write_profiles_bands(o, bands, "  ");
}

void write_sibling_error_bands(std::ostream& o, const std::map<std::string, ErrorBandsByProfile>& bands) {
  if (bands.empty()) return;
  o << "sibling_error_bands:   # the same, measured on another card of the die with this file carried to it\n";
  for (const auto& [card, profiles] : bands) {
    o << "  " << card << ":\n";
    write_profiles_bands(o, profiles, "    ");
  }
}

}  // namespace perfmodel::detail
