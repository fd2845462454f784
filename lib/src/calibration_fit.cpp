#include "perfmodel/calibration_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "yaml_reader.hpp"

namespace perfmodel {

RawCalibration load_raw_calibration(const std::string& path) {
  YAML::Node root = detail::load_file(path);
  RawCalibration r;
  auto fail = [&](const std::string& what) { throw ConfigError(path, 0, 0, "", what); };
  if (!root.IsMap() || !root["points"] || !root["points"].IsSequence()) fail("expected an object with a 'points' list");
  if (root["device"] && root["device"]["name"]) r.device_name = root["device"]["name"].as<std::string>();
  if (root["device"] && root["device"]["driver_version"]) r.driver = root["device"]["driver_version"].as<std::string>();
  if (root["host_launch_overhead_s"]) r.host_launch_s = root["host_launch_overhead_s"].as<double>();
  if (root["min_kernel_time_s"]) r.kernel_floor_s = root["min_kernel_time_s"].as<double>();
  for (const auto& p : root["points"]) {
    RawPoint pt;
    pt.what = p["what"].as<std::string>();
    if (p["dtype"]) pt.dtype = p["dtype"].as<std::string>();
    if (p["m"]) pt.m = p["m"].as<int64_t>();
    if (p["n"]) pt.n = p["n"].as<int64_t>();
    if (p["k"]) pt.k = p["k"].as<int64_t>();
    if (p["bytes"]) pt.bytes = p["bytes"].as<double>();
    if (p["flops"]) pt.flops = p["flops"].as<double>();
    pt.seconds = p["seconds"].as<double>();
    if (!(pt.seconds > 0)) continue;  // a failed measurement
    r.points.push_back(pt);
  }
  return r;
}

RampFit fit_ramp(const std::vector<std::pair<double, double>>& pts) {
  RampFit f;
  f.points = static_cast<int>(pts.size());
  if (pts.size() < 2) return f;
  Eigen::MatrixXd A(pts.size(), 2);
  Eigen::VectorXd y(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    const double w = 1.0 / pts[i].second;  // relative error
    A(static_cast<Eigen::Index>(i), 0) = w;
    A(static_cast<Eigen::Index>(i), 1) = pts[i].first * w;
    y(static_cast<Eigen::Index>(i)) = 1.0;
  }
  Eigen::Vector2d x = A.colPivHouseholderQr().solve(y);
  f.t0_s = std::max(0.0, x(0));
  f.bandwidth = x(1) > 0 ? 1.0 / x(1) : 0;
  double s = 0;
  for (const auto& [b, t] : pts) {
    const double pred = f.t0_s + (f.bandwidth > 0 ? b / f.bandwidth : 0);
    s += (pred / t - 1) * (pred / t - 1);
  }
  f.rms_relative_error = std::sqrt(s / static_cast<double>(pts.size()));
  return f;
}

Calibration fit_calibration(const RawCalibration& raw, const std::string& card_key) {
  Calibration c;
  c.card_key = card_key;
  c.device_name = raw.device_name;
  c.kernel_floor_s = raw.kernel_floor_s;
  c.host_launch_s = raw.host_launch_s;
  std::vector<std::pair<double, double>> ramp;
  for (const RawPoint& p : raw.points) {
    if (p.what == "copy_large" && p.bytes > 0) c.dram_bandwidth = std::max(c.dram_bandwidth, p.bytes / p.seconds);
    if (p.what == "l2_copy" && p.bytes > 0) c.l2_bandwidth = std::max(c.l2_bandwidth, p.bytes / p.seconds);
    if (p.what == "gemm_peak" && p.m > 0) {
      auto prec = precision_from_string(p.dtype);
      if (prec) {
        const double f = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) / p.seconds;
        auto& slot = c.gemm_peak[static_cast<int>(*prec)];
        slot = std::max(slot, f);
      }
    }
    if (p.what == "attention_peak" && p.flops > 0) c.attention_peak = std::max(c.attention_peak, p.flops / p.seconds);
    if ((p.what == "copy_ramp" || p.what == "add_ramp") && p.bytes > 0) ramp.emplace_back(p.bytes, p.seconds);
  }
  const RampFit f = fit_ramp(ramp);
  if (f.points >= 2 && f.bandwidth > 0) {
    c.ramp_bandwidth = f.bandwidth;
    // The ramp's t0 is what a memory-bound kernel costs beyond bytes/BW; the kernel floor is
    // already the smallest kernel's time, so only the excess over the floor is added.
    c.ramp_t0_s = f.t0_s;
  }
  return c;
}

}  // namespace perfmodel
