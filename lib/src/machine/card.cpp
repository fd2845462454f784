#include "perfmodel/card.hpp"

#include "perfmodel/errors.hpp"

namespace perfmodel {

double Card::peak_flops(Precision p) const {
  double v = peak[static_cast<size_t>(p)];
  if (v > 0) return v;
  std::string have;
  for (int i = 0; i < kPrecisionCount; ++i) {
    if (peak[i] <= 0) continue;
    if (!have.empty()) have += ", ";
    have += to_string(static_cast<Precision>(i));
  }
  throw InputError("card '" + key + "' (" + name + ") has no " + std::string(to_string(p)) +
                   " peak; it has: " + have);
}

double derive_tensor_peak(int sms, int tensor_cores_per_sm, double fma_per_clock,
                          double clock_hz) {
  return static_cast<double>(sms) * tensor_cores_per_sm * fma_per_clock * 2.0 * clock_hz;
}

double derive_lane_peak(int sms, int lanes_per_sm, double clock_hz) {
  return static_cast<double>(sms) * lanes_per_sm * 2.0 * clock_hz;
}

double derive_bandwidth(double bus_width_bits, double data_rate_bps) {
  return bus_width_bits / 8.0 * data_rate_bps;
}

}  // namespace perfmodel
