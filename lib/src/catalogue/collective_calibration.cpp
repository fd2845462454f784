// `collectives:` in hardware/<card>.calibration.yaml (docs/calibration.md).
#include "catalogue/collective_calibration.hpp"
#include "catalogue/calibration_error_bands.hpp"

#include <cstdio>
#include <sstream>

namespace perfmodel::detail {
namespace {

const char* const kRingKeys[kCollectiveProtocolCount] = {"ring_ll", "ring_ll128", "ring_simple"};

CollectiveCalibration::Cost parse_cost(MapReader m) {
  CollectiveCalibration::Cost c;
  c.latency_s = m.opt_quantity("latency", Dimension::seconds).value_or(-1);
  c.bus_bandwidth = m.opt_quantity("bus_bandwidth", Dimension::bytes_per_s).value_or(0);
  m.finish();
  return c;
}

std::string cost_yaml(const char* key, const CollectiveCalibration::Cost& c) {
  if (c.latency_s <= 0 && c.bus_bandwidth <= 0) return "";
  char buf[160];
  std::string s = std::string("  ") + key + ":\n";
  if (c.latency_s > 0) {
    std::snprintf(buf, sizeof buf, "    latency: %.4g us\n", c.latency_s * 1e6);
    s += buf;
  }
  if (c.bus_bandwidth > 0) {
    std::snprintf(buf, sizeof buf, "    bus_bandwidth: %.4g GB/s\n", c.bus_bandwidth / 1e9);
    s += buf;
  }
  return s;
}

}  // namespace

CollectiveCalibration parse_collective_calibration(MapReader m) {
  CollectiveCalibration c;
  c.gpus = static_cast<int>(m.integer("gpus", 2));
  c.source = m.opt_str("source").value_or("");
  for (int p = 0; p < kCollectiveProtocolCount; ++p)
    if (auto sub = m.opt_map(kRingKeys[p])) c.ring[p] = parse_cost(*sub);
  if (auto sub = m.opt_map("p2p")) c.p2p = parse_cost(*sub);
  if (auto sub = m.opt_map("held_out_errors")) c.held_out_errors = read_error_quantiles(*sub);
  m.finish();
  return c;
}

std::string collective_calibration_yaml(const CollectiveCalibration& c) {
  if (!c.any()) return "";
  std::ostringstream o;
  o << "collectives:   # NCCL: ring latency beyond NCCL's per-hop figures, nccl-tests bus bandwidth (docs/calibration.md)\n";
  o << "  gpus: " << c.gpus << "\n";
  if (!c.source.empty()) o << "  source: \"" << c.source << "\"\n";
  for (int p = 0; p < kCollectiveProtocolCount; ++p) o << cost_yaml(kRingKeys[p], c.ring[p]);
  o << cost_yaml("p2p", c.p2p);
  if (c.held_out_errors)
    o << "  held_out_errors: " << error_quantiles_yaml(*c.held_out_errors)
      << "   # p10 / p90 of predicted / measured - 1 on the sizes the fit held out\n";
  return o.str();
}

}  // namespace perfmodel::detail

namespace perfmodel {
std::string to_yaml(const CollectiveCalibration& c) { return detail::collective_calibration_yaml(c); }
}  // namespace perfmodel
