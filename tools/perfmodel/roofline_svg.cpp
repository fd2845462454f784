// The roofline chart (documents.hpp), drawn from the roofline Report's tree.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>
#include <vector>

#include "documents.hpp"

namespace perfmodel::cli {

namespace {

// A number of the tree; 0 where it is absent or null (a roof that was not measured).
double number_at(const Node& root, const std::string& path) {
  const Node* n = root.at_path(path);
  return n && n->kind() == Node::Kind::number ? n->as_number() : 0;
}

std::string text_at(const Node& root, const std::string& path) {
  const Node* n = root.at_path(path);
  return n && n->kind() == Node::Kind::string ? n->as_string() : "";
}

// Log-log chart: x = FLOP/B, y = FLOP/s. The nominal roof dashed, the measured roof solid.
std::string roofline_svg(const std::string& title, double peak, double bw, double mpeak, double mbw,
                         const std::vector<std::tuple<std::string, double, double>>& points) {
  const double W = 900, H = 560, L = 80, R = 30, T = 50, B = 60;
  double xmin = 0.01, xmax = 1e5, ymin = 1e9, ymax = peak * 3;
  for (const auto& [n, x, y] : points) {
    if (x > 0) xmin = std::min(xmin, x / 2), xmax = std::max(xmax, x * 2);
    if (y > 0) ymin = std::min(ymin, y / 2);
  }
  auto px = [&](double x) { return L + (std::log10(x) - std::log10(xmin)) / (std::log10(xmax) - std::log10(xmin)) * (W - L - R); };
  auto py = [&](double y) { return H - B - (std::log10(y) - std::log10(ymin)) / (std::log10(ymax) - std::log10(ymin)) * (H - T - B); };
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << L << "\" y=\"25\" font-size=\"15\">" << title << "</text>\n";
  for (double d = std::pow(10, std::ceil(std::log10(xmin))); d <= xmax; d *= 10)
    s << "<line x1=\"" << px(d) << "\" y1=\"" << T << "\" x2=\"" << px(d) << "\" y2=\"" << H - B << "\" stroke=\"#eee\"/>"
      << "<text x=\"" << px(d) << "\" y=\"" << H - B + 18 << "\" text-anchor=\"middle\">" << d << "</text>\n";
  for (double d = std::pow(10, std::ceil(std::log10(ymin))); d <= ymax; d *= 10)
    s << "<line x1=\"" << L << "\" y1=\"" << py(d) << "\" x2=\"" << W - R << "\" y2=\"" << py(d) << "\" stroke=\"#eee\"/>"
      << "<text x=\"" << L - 6 << "\" y=\"" << py(d) + 4 << "\" text-anchor=\"end\">" << d / 1e12 << "T</text>\n";
  s << "<text x=\"" << (W + L) / 2 << "\" y=\"" << H - 15 << "\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text>\n";
  s << "<text x=\"18\" y=\"" << (H) / 2 << "\" transform=\"rotate(-90 18 " << H / 2 << ")\" text-anchor=\"middle\">FLOP/s</text>\n";
  auto roof = [&](double p, double b, const char* style, const char* label) {
    const double ridge = p / b;
    s << "<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"2\" " << style << " points=\"" << px(xmin) << ","
      << py(std::max(ymin, xmin * b)) << " " << px(ridge) << "," << py(p) << " " << px(xmax) << "," << py(p) << "\"/>\n";
    s << "<text x=\"" << px(ridge) + 6 << "\" y=\"" << py(p) - 6 << "\">" << label << " (ridge " << std::round(ridge) << ")</text>\n";
  };
  roof(peak, bw, "stroke-dasharray=\"6,4\"", "nominal");
  if (mpeak > 0 && mbw > 0) roof(mpeak, mbw, "", "measured");
  for (const auto& [name, x, y] : points) {
    if (x <= 0 || y <= 0) continue;
    s << "<circle cx=\"" << px(x) << "\" cy=\"" << py(y) << "\" r=\"5\" fill=\"#c33\"><title>" << name << "</title></circle>"
      << "<text x=\"" << px(x) + 7 << "\" y=\"" << py(y) + 4 << "\" font-size=\"10\">" << name << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace

std::string RooflineSvg::print(const Report& r) const {
  const Node& t = r.root;
  std::vector<std::tuple<std::string, double, double>> pts;
  if (const Node* points = t.find("points"))
    for (const Node& p : points->elements())
      pts.emplace_back(text_at(p, "name"), number_at(p, "intensity"), number_at(p, "predicted_flops"));
  const std::string title = text_at(t, "inputs.model.name") + " " + text_at(t, "inputs.workload.phase") + " b=" +
                            std::to_string(static_cast<int64_t>(number_at(t, "inputs.workload.batch"))) + " on " +
                            text_at(t, "inputs.card.name");
  return roofline_svg(title, number_at(t, "roofs.nominal_peak"), number_at(t, "roofs.nominal_bandwidth"),
                      number_at(t, "roofs.measured_peak"), number_at(t, "roofs.measured_bandwidth"), pts);
}

}  // namespace perfmodel::cli
