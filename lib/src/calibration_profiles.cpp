// The `profiles:` section of a calibration file <-> ProfileCalibration (docs/calibration.md,
// "profiles"): per implementation profile, what its own kernels cost on the card.
#include "calibration_profiles.hpp"

#include <algorithm>
#include <cstdio>

#include "perfmodel/workload.hpp"

namespace perfmodel {

const ProfileCalibration* find_profile(const std::vector<ProfileCalibration>& profiles, const std::string& name) {
  for (const ProfileCalibration& p : profiles)
    if (p.name == name) return &p;
  return nullptr;
}

namespace detail {

namespace {

double share(MapReader& r, const std::string& key) {
  const double v = r.opt_number(key).value_or(-1);
  if (v > 1 || (v < 0 && r.has(key))) r.fail(key, "must be a share between 0 and 1");
  return v;
}

ProfileCalibration read_one(MapReader r, const std::string& name) {
  ProfileCalibration p;
  p.name = name;
  p.fitted_on = r.opt_str("fitted_on").value_or("");
  p.attention_peak = r.opt_quantity("attention_peak", Dimension::flop_per_s).value_or(0);
  p.attention_softmax_share = share(r, "attention_softmax_share");
  p.attention_cta_fixed_s = r.opt_quantity("attention_cta_fixed", Dimension::seconds, true).value_or(-1);
  p.attention_call_floor_s = r.opt_quantity("attention_call_floor", Dimension::seconds, true).value_or(-1);
  if (auto d = r.opt_map("decode")) {
    ProductionDecode& x = p.decode;
    x.call_floor_s = d->quantity("call_floor", Dimension::seconds);
    x.stream_bandwidth = d->quantity("stream_bandwidth", Dimension::bytes_per_s);
    x.combine_per_split_s = d->opt_quantity("combine_per_split", Dimension::seconds, true).value_or(0);
    x.nonsplit_tile_s = d->opt_quantity("nonsplit_tile", Dimension::seconds, true).value_or(0);
    x.nonsplit_softmax_share = std::max(0.0, share(*d, "nonsplit_softmax_share"));
    x.nonsplit_floor_s = d->opt_quantity("nonsplit_floor", Dimension::seconds, true).value_or(-1);
    d->finish();
  }
  p.host_per_kernel_s = r.opt_quantity("host_per_kernel", Dimension::seconds, true).value_or(0);
  r.finish();
  return p;
}

std::string q(double v, const char* unit, double scale) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g %s", v / scale, unit);
  return buf;
}

}  // namespace

std::vector<ProfileCalibration> read_profiles(MapReader& calibration) {
  std::vector<ProfileCalibration> out;
  auto section = calibration.opt_map("profiles");
  if (!section) return out;
  for (const std::string& name : section->keys()) {
    if (name != to_string(Impl::fused) && name != to_string(Impl::eager))
      section->fail(name, "unknown profile '" + name + "' (known: fused, eager)");
    out.push_back(read_one(section->map(name), name));
  }
  section->finish();
  return out;
}

void write_profiles(std::ostream& o, const std::vector<ProfileCalibration>& profiles) {
  if (profiles.empty()) return;
  o << "profiles:   # what each implementation profile's own kernels cost on this card\n";
  for (const ProfileCalibration& p : profiles) {
    o << "  " << p.name << ":\n";
    if (!p.fitted_on.empty()) o << "    fitted_on: \"" << p.fitted_on << "\"\n";
    if (p.attention_peak > 0) o << "    attention_peak: " << q(p.attention_peak, "TFLOP/s", 1e12) << "\n";
    if (p.attention_softmax_share >= 0) o << "    attention_softmax_share: " << p.attention_softmax_share << "\n";
    if (p.attention_cta_fixed_s >= 0) o << "    attention_cta_fixed: " << q(p.attention_cta_fixed_s, "us", 1e-6) << "\n";
    if (p.attention_call_floor_s >= 0)
      o << "    attention_call_floor: " << q(p.attention_call_floor_s, "us", 1e-6) << "\n";
    if (p.decode.measured()) {
      const ProductionDecode& d = p.decode;
      o << "    decode:\n";
      o << "      call_floor: " << q(d.call_floor_s, "us", 1e-6) << "\n";
      o << "      stream_bandwidth: " << q(d.stream_bandwidth, "GB/s", 1e9) << "\n";
      o << "      combine_per_split: " << q(d.combine_per_split_s, "us", 1e-6) << "\n";
      o << "      nonsplit_tile: " << q(d.nonsplit_tile_s, "us", 1e-6) << "\n";
      o << "      nonsplit_softmax_share: " << d.nonsplit_softmax_share << "\n";
      if (d.nonsplit_floor_s >= 0) o << "      nonsplit_floor: " << q(d.nonsplit_floor_s, "us", 1e-6) << "\n";
    }
    if (p.host_per_kernel_s > 0) o << "    host_per_kernel: " << q(p.host_per_kernel_s, "us", 1e-6) << "\n";
  }
}

}  // namespace detail

}  // namespace perfmodel
