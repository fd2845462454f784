// Fitting the collective calibration on measured collectives (collective.hpp, docs/calibration.md).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "cost/collective_tuning.hpp"
#include "perfmodel/stats.hpp"
#include "perfmodel/collective.hpp"
#include "perfmodel/errors.hpp"

namespace perfmodel {
namespace {

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

double parse_number(const std::string& cell, const std::string& where) {
  try {
    size_t used = 0;
    double v = std::stod(cell, &used);
    if (used == cell.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw InputError(where + ": '" + cell + "' is not a number");
}

// Weighted least squares for t = x0 + x1 * u, minimizing the relative error sum((pred - t) / t)^2.
struct LineFit {
  double s00 = 0, s01 = 0, s11 = 0, b0 = 0, b1 = 0;
  int n = 0;
  void add(double u, double t, double fixed) {  // fixed: a known part of t
    const double w = 1 / (t * t);
    const double y = t - fixed;
    s00 += w; s01 += w * u; s11 += w * u * u; b0 += w * y; b1 += w * u * y; ++n;
  }
  bool solve(double& x0, double& x1) const {
    const double det = s00 * s11 - s01 * s01;
    if (n < 2 || std::abs(det) <= 1e-30 * std::max(1.0, s00 * s11)) return false;
    x0 = (b0 * s11 - b1 * s01) / det;
    x1 = (s00 * b1 - s01 * b0) / det;
    return x0 > 0 && x1 > 0;  // a latency and a time per byte: both positive, else left unmeasured
  }
};

bool held_out(double bytes) { return static_cast<long long>(std::llround(std::log2(bytes))) % 2 != 0; }

}  // namespace

std::vector<CollectiveSample> load_collective_samples(const std::string& csv_path) {
  std::ifstream in(csv_path);
  if (!in) throw InputError("cannot read " + csv_path);
  std::string line;
  if (!std::getline(in, line)) throw InputError(csv_path + ":1: empty file (expected a CSV header)");
  const auto header = split_csv(line);
  auto column = [&](const std::string& name, bool required) -> int {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    if (required) throw InputError(csv_path + ":1: no '" + name + "' column (need op, gpus, bytes, time_s)");
    return -1;
  };
  const int c_op = column("op", true), c_gpus = column("gpus", true), c_bytes = column("bytes", true),
            c_time = column("time_s", true), c_mode = column("mode", false);
  std::vector<CollectiveSample> out;
  for (int lineno = 2; std::getline(in, line); ++lineno) {
    if (line.empty()) continue;
    const auto cells = split_csv(line);
    const std::string where = csv_path + ":" + std::to_string(lineno);
    if (cells.size() != header.size())
      throw InputError(where + ": " + std::to_string(cells.size()) + " cells, the header has " + std::to_string(header.size()));
    if (c_mode >= 0 && cells[c_mode] != "graph") continue;  // eager rows time the host, not NCCL
    auto op = parse_collective_op(cells[c_op]);
    if (!op) throw InputError(where + ": op '" + cells[c_op] + "' is not one of " + collective_op_names());
    CollectiveSample s;
    s.op = *op;
    s.gpus = static_cast<int>(parse_number(cells[c_gpus], where + " (gpus)"));
    s.bytes = parse_number(cells[c_bytes], where + " (bytes)");
    s.time_s = parse_number(cells[c_time], where + " (time_s)");
    if (s.gpus < 2 || s.bytes <= 0 || s.time_s <= 0)
      throw InputError(where + ": gpus must be >= 2, bytes and time_s positive");
    out.push_back(s);
  }
  if (out.empty()) throw InputError(csv_path + ": no graph-mode rows");
  return out;
}

CollectiveFit fit_collectives(const Card& card, const std::vector<CollectiveSample>& samples) {
  if (samples.empty()) throw InputError("collective fit: no samples");
  const int gpus = samples.front().gpus;
  for (const auto& s : samples)
    if (s.gpus != gpus) throw InputError("collective fit: samples mix GPU counts (" + std::to_string(gpus) + " and " + std::to_string(s.gpus) + ")");
  const detail::NcclTopology topo = detail::nccl_topology(card, gpus);
  std::map<CollectiveProtocol, LineFit> ring;
  LineFit p2p;
  for (const auto& s : samples) {
    if (held_out(s.bytes)) continue;
    const CollectiveEstimate pick = estimate_collective(card, s.op, gpus, s.bytes);  // NCCL's choice
    if (pick.algorithm == CollectiveAlgorithm::p2p) {
      const double moved = s.bytes * (s.op == CollectiveOp::all_to_all ? (gpus - 1.0) / gpus : 1.0);
      p2p.add(moved, s.time_s, 0);
    } else if (pick.algorithm == CollectiveAlgorithm::ring) {
      // t = latency + hops + bytes x factor / busbw: the per-hop part stays NCCL's (it cannot be
      // told apart from the fixed part with one GPU count).
      ring[pick.protocol].add(s.bytes * bus_factor(s.op, gpus), s.time_s,
                              detail::ring_hop_latency(topo, s.op, pick.protocol));
    }
  }
  CollectiveFit fit;
  fit.calibration.gpus = gpus;
  for (const auto& [proto, lf] : ring) {
    double lat = 0, inv_bw = 0;
    if (lf.solve(lat, inv_bw)) fit.calibration.ring[static_cast<size_t>(proto)] = {lat, 1 / inv_bw};
  }
  double lat = 0, inv_bw = 0;
  if (p2p.solve(lat, inv_bw)) fit.calibration.p2p = {lat, 1 / inv_bw};
  std::vector<double> err, err_nccl, signed_err;
  for (const auto& s : samples) {
    const CollectiveEstimate e = estimate_collective(card, s.op, gpus, s.bytes, &fit.calibration);
    CollectiveCheck c{s, e.time_s, held_out(s.bytes), e.protocol};
    if (c.held_out) {
      err.push_back(std::abs(c.error()));
      signed_err.push_back(c.error());
      err_nccl.push_back(std::abs(estimate_collective(card, s.op, gpus, s.bytes).time_s / s.time_s - 1));
    }
    fit.checks.push_back(c);
  }
  fit.held_out_median_abs_error = quantile(err, 0.5);
  fit.held_out_max_abs_error = err.empty() ? 0 : *std::max_element(err.begin(), err.end());
  fit.uncalibrated_median_abs_error = quantile(err_nccl, 0.5);
  if (!signed_err.empty()) fit.calibration.held_out_errors = error_quantiles(signed_err);
  return fit;
}

}  // namespace perfmodel
