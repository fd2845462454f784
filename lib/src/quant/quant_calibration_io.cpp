#include "quant/quant_calibration_io.hpp"

#include <sstream>

namespace perfmodel::detail {

namespace {
// A share in (0, 1] and a positive instruction count, or absent.
WeightOnlyCost read_weight_only(MapReader& m, const std::string& prefix) {
  WeightOnlyCost c;
  const std::string eff = prefix + "_stream_efficiency", issue = prefix + "_issue_per_row_element";
  if (auto v = m.opt_number(eff)) {
    if (!(*v > 0 && *v <= 1)) m.fail(eff, "must be a share in (0, 1]");
    c.stream_efficiency = *v;
  }
  if (auto v = m.opt_number(issue)) {
    if (!(*v > 0 && *v < 1e6)) m.fail(issue, "must be a positive count of warp instructions");
    c.issue_per_row_element = *v;
  }
  return c;
}

void write_weight_only(std::ostream& o, const std::string& prefix, const WeightOnlyCost& c, const char* what) {
  if (c.stream_efficiency > 0)
    o << "  " << prefix << "_stream_efficiency: " << c.stream_efficiency << "   # " << what
      << ": packed-weight stream, share of the read rate\n";
  if (c.issue_per_row_element > 0)
    o << "  " << prefix << "_issue_per_row_element: " << c.issue_per_row_element
      << "   # warp instructions per row of x per weight element\n";
}
}  // namespace

QuantCalibration parse_quant_calibration(MapReader m) {
  QuantCalibration c;
  c.int4 = read_weight_only(m, "int4");
  c.int8 = read_weight_only(m, "int8");
  m.finish();
  return c;
}

std::string quant_calibration_yaml(const QuantCalibration& c) {
  std::ostringstream o;
  write_weight_only(o, "int4", c.int4, "tinygemm W4A16");
  write_weight_only(o, "int8", c.int8, "torch int8pack W8A16");
  const std::string body = o.str();
  if (body.empty()) return "";
  return "quant:   # weight-only GEMMs (validation/scripts/quant/fit_quant.py)\n" + body;
}

}  // namespace perfmodel::detail
