// The roofline chart (documents.hpp), drawn from the roofline Report's tree.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "documents.hpp"
#include "svg_labels.hpp"

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

std::string xml_escaped(const std::string& t) {
  std::string o;
  for (char c : t) {
    if (c == '&') o += "&amp;";
    else if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else o += c;
  }
  return o;
}

// Lines of at most `width` characters, broken at ", " (the note of ops left out).
std::vector<std::string> wrapped(const std::string& head, const std::vector<std::string>& items, size_t width) {
  std::vector<std::string> lines{head};
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? "," : ".");
    if (lines.back().size() + 1 + item.size() > width) lines.emplace_back("  ");
    lines.back() += (lines.back().size() > 2 ? " " : "") + item;
  }
  return lines;
}

// Log-log chart: x = FLOP/B, y = FLOP/s. The nominal roof dashed, the measured roof solid; op
// labels and the ridge labels placed apart (svg_labels.hpp); a legend; ops a log axis cannot
// show (0 FLOP/B, or no predicted FLOP/s) named in a note under the chart.
std::string roofline_svg(const std::string& title, double peak, double bw, double mpeak, double mbw,
                         const std::vector<std::tuple<std::string, double, double>>& points) {
  const double W = 900, L = 80, R = 30, T = 50, plot_bottom = 500;
  double xmin = 0.01, xmax = 1e5, ymin = 1e9, ymax = peak * 3;
  std::vector<std::string> left_out, unlabelled;
  for (const auto& [n, x, y] : points) {
    if (x > 0) xmin = std::min(xmin, x / 2), xmax = std::max(xmax, x * 2);
    if (y > 0) ymin = std::min(ymin, y / 2);
    if (!(x > 0 && y > 0)) left_out.push_back(n);
  }
  auto px = [&](double x) { return L + (std::log10(x) - std::log10(xmin)) / (std::log10(xmax) - std::log10(xmin)) * (W - L - R); };
  auto py = [&](double y) { return plot_bottom - (std::log10(y) - std::log10(ymin)) / (std::log10(ymax) - std::log10(ymin)) * (plot_bottom - T); };
  const bool measured = mpeak > 0 && mbw > 0;

  // Labels: the ridges first, then the ops in step order, none over another or over a marker.
  LabelPlacer placer({L, T, W - R, plot_bottom});
  for (const auto& [n, x, y] : points)
    if (x > 0 && y > 0) placer.block({px(x) - 5, py(y) - 5, px(x) + 5, py(y) + 5});
  std::ostringstream labels;
  auto label = [&](const std::string& text, double ax, double ay, double font, const char* cls) {
    const auto p = placer.place(text, ax, ay, font);
    if (!p) return false;
    if (p->moved)
      labels << "<line class=\"leader\" x1=\"" << ax << "\" y1=\"" << ay << "\" x2=\""
             << (p->box.x0 > ax ? p->box.x0 : p->box.x1) << "\" y2=\"" << (p->box.y0 + p->box.y1) / 2
             << "\" stroke=\"#999\" stroke-width=\"0.5\"/>";
    labels << "<text class=\"" << cls << "\" x=\"" << p->x << "\" y=\"" << p->y << "\" font-size=\"" << font
           << "\">" << xml_escaped(text) << "</text>\n";
    return true;
  };
  // The nominal label above its roof, the measured one under its own (lower) roof, so that the
  // two stay apart however close the ridges are.
  auto ridge_label = [&](double p, double b, const char* name, double dy) {
    const std::string text = std::string(name) + " ridge " + std::to_string(static_cast<long long>(std::llround(p / b)));
    if (!label(text, px(p / b), py(p) + dy, 12, "ridge-label")) unlabelled.push_back(text);
  };
  ridge_label(peak, bw, "nominal", -10);
  if (measured) ridge_label(mpeak, mbw, "measured", 12);
  for (const auto& [n, x, y] : points)
    if (x > 0 && y > 0 && !label(n, px(x), py(y), 10, "op-label")) unlabelled.push_back(n);

  // The note's lines fit between the margins at svg_labels.hpp's measure of 12 px text.
  const size_t note_chars = static_cast<size_t>((W - L - R) / text_width(1, 12));
  std::vector<std::string> note;
  if (!left_out.empty())
    for (auto& l : wrapped("Not drawn (0 FLOP/B or 0 FLOP/s, which a log axis cannot show):", left_out, note_chars)) note.push_back(l);
  if (!unlabelled.empty())
    for (auto& l : wrapped("Drawn without a label (no free room):", unlabelled, note_chars)) note.push_back(l);
  const double legend_y = plot_bottom + 72, H = legend_y + 20 + 16.0 * static_cast<double>(note.size()) + 8;

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << L << "\" y=\"25\" font-size=\"15\">" << xml_escaped(title) << "</text>\n";
  for (double d = std::pow(10, std::ceil(std::log10(xmin))); d <= xmax; d *= 10)
    s << "<line x1=\"" << px(d) << "\" y1=\"" << T << "\" x2=\"" << px(d) << "\" y2=\"" << plot_bottom << "\" stroke=\"#eee\"/>"
      << "<text x=\"" << px(d) << "\" y=\"" << plot_bottom + 18 << "\" text-anchor=\"middle\">" << d << "</text>\n";
  for (double d = std::pow(10, std::ceil(std::log10(ymin))); d <= ymax; d *= 10)
    s << "<line x1=\"" << L << "\" y1=\"" << py(d) << "\" x2=\"" << W - R << "\" y2=\"" << py(d) << "\" stroke=\"#eee\"/>"
      << "<text x=\"" << L - 6 << "\" y=\"" << py(d) + 4 << "\" text-anchor=\"end\">" << d / 1e12 << "T</text>\n";
  s << "<text x=\"" << (W + L) / 2 << "\" y=\"" << plot_bottom + 45 << "\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text>\n";
  s << "<text x=\"18\" y=\"" << (T + plot_bottom) / 2 << "\" transform=\"rotate(-90 18 " << (T + plot_bottom) / 2
    << ")\" text-anchor=\"middle\">FLOP/s</text>\n";
  auto roof = [&](double p, double b, const char* style) {
    s << "<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"2\" " << style << " points=\"" << px(xmin) << ","
      << py(std::max(ymin, xmin * b)) << " " << px(p / b) << "," << py(p) << " " << px(xmax) << "," << py(p) << "\"/>\n";
  };
  roof(peak, bw, "stroke-dasharray=\"6,4\"");
  if (measured) roof(mpeak, mbw, "");
  for (const auto& [name, x, y] : points)
    if (x > 0 && y > 0)
      s << "<circle cx=\"" << px(x) << "\" cy=\"" << py(y) << "\" r=\"5\" fill=\"#c33\"><title>" << xml_escaped(name)
        << "</title></circle>\n";
  s << labels.str();
  // Legend, under the axis title: what each mark means.
  s << "<g class=\"legend\">";
  double lx = L;
  auto entry = [&](const std::string& mark, const std::string& text) {
    s << mark << "<text x=\"" << lx + 30 << "\" y=\"" << legend_y + 4 << "\">" << text << "</text>";
    lx += 30 + text_width(text.size(), 12) + 24;
  };
  entry("<line x1=\"" + std::to_string(lx) + "\" y1=\"" + std::to_string(legend_y) + "\" x2=\"" + std::to_string(lx + 24) +
            "\" y2=\"" + std::to_string(legend_y) + "\" stroke=\"#333\" stroke-width=\"2\" stroke-dasharray=\"6,4\"/>",
        "nominal roof (datasheet peak and bandwidth)");
  if (measured)
    entry("<line x1=\"" + std::to_string(lx) + "\" y1=\"" + std::to_string(legend_y) + "\" x2=\"" + std::to_string(lx + 24) +
              "\" y2=\"" + std::to_string(legend_y) + "\" stroke=\"#333\" stroke-width=\"2\"/>",
          "measured roof (calibration)");
  entry("<circle cx=\"" + std::to_string(lx + 12) + "\" cy=\"" + std::to_string(legend_y) + "\" r=\"5\" fill=\"#c33\"/>",
        "op: FLOP/B, predicted FLOP/s");
  s << "</g>\n";
  for (size_t i = 0; i < note.size(); ++i)
    s << "<text class=\"note\" x=\"" << L << "\" y=\"" << legend_y + 28 + 16.0 * static_cast<double>(i) << "\">"
      << xml_escaped(note[i]) << "</text>\n";
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
