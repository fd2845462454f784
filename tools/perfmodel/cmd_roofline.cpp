// perfmodel roofline: a step's ops placed on the card's roofline, optionally drawn as SVG.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "commands.hpp"
#include "perfmodel/errors.hpp"
#include "step_report.hpp"

namespace perfmodel::cli {

namespace {

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

int cmd_roofline(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  CardArgs card;
  WorkloadArgs wl;
  std::string format, svg, phase = "decode";
  add_card(d, card);
  add_workload(d, wl);
  d.add_options()("phase", po::value(&phase)->default_value(phase), "decode or prefill")(
      "svg", po::value(&svg), "write the chart to this SVG file");
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx, "perfmodel roofline: each op of a step placed on the card's roofline",
             "perfmodel roofline --model llama2-7b --card h100 --batch 16 --svg roofline.svg"))
    return 0;
  if (phase != "decode" && phase != "prefill") throw UsageError("--phase must be decode or prefill");
  Loaded l = load_card(card, ctx);
  Model m = load_model(wl, ctx);
  Workload w = make_workload(wl, phase == "decode" ? Phase::decode : Phase::prefill, l.card);
  PricedStep p = price_workload(m, w, l, wl.mem_util);
  const Precision mm = matmul_precision(w.act_dtype, w.allow_tf32);
  const double peak = l.card.peak_flops(mm), bw = l.card.bandwidth;
  double mpeak = 0, mbw = 0;
  if (l.calibration) {
    mpeak = l.calibration->gemm_peak[static_cast<int>(mm)];
    mbw = l.calibration->dram_bandwidth;
  }

  Report r;
  r.command = "roofline";
  r.root.set("meta", make_meta("roofline", ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(l));
  inputs.set("model", model_node(m));
  inputs.set("workload", workload_node(w));
  r.root.set("inputs", std::move(inputs));
  Node roofs = Node::object();
  roofs.set("nominal_peak", Node::number(peak, Hint::flop_rate));
  roofs.set("nominal_bandwidth", Node::number(bw, Hint::byte_rate));
  roofs.set("nominal_ridge", Node::number(peak / bw, Hint::intensity));
  roofs.set("measured_peak", mpeak > 0 ? Node::number(mpeak, Hint::flop_rate) : Node());
  roofs.set("measured_bandwidth", mbw > 0 ? Node::number(mbw, Hint::byte_rate) : Node());
  roofs.set("measured_ridge", mpeak > 0 && mbw > 0 ? Node::number(mpeak / mbw, Hint::intensity) : Node());
  r.root.set("roofs", std::move(roofs));
  Node points = Node::array();
  std::vector<std::tuple<std::string, double, double>> pts;
  for (size_t i = 0; i < p.step.ops.size(); ++i) {
    const Op& op = p.step.ops[i];
    const OpCost& c = p.cost.ops[i];
    const double ai = op.intensity();
    const double achieved = c.time_s > 0 ? op.flops / c.time_s : 0;
    Node pt = Node::object();
    pt.set("name", Node::text(op.name));
    pt.set("kind", Node::text(to_string(op.kind)));
    pt.set("intensity", Node::number(ai, Hint::intensity));
    pt.set("attainable_flops", Node::number(std::min(peak, ai * bw), Hint::flop_rate));
    pt.set("predicted_flops", Node::number(achieved, Hint::flop_rate));
    pt.set("bound", Node::text(to_string(c.bound)));
    pt.set("distance_to_roof", Node::number(c.distance_to_roof, Hint::ratio));
    pt.set("distance_to_ridge", Node::number(c.distance_to_ridge, Hint::ratio));
    pt.set("roof_gap", Node::number(c.roof_gap, Hint::ratio));
    points.push(std::move(pt));
    pts.emplace_back(op.name, ai, achieved);
  }
  r.root.set("points", std::move(points));
  r.fields.push_back({"roofline of " + l.card.name + " (" + std::string(to_string(mm)) + ")", "roofs",
                      {{"nominal_peak", "nominal peak", Hint::flop_rate},
                       {"nominal_bandwidth", "nominal bandwidth", Hint::byte_rate},
                       {"nominal_ridge", "nominal ridge (FLOP/B)", Hint::intensity},
                       {"measured_peak", "measured peak", Hint::flop_rate},
                       {"measured_bandwidth", "measured bandwidth", Hint::byte_rate},
                       {"measured_ridge", "measured ridge", Hint::intensity}}});
  r.tables.push_back({"ops on the roofline (distances: seed 004 Day 15)", "points",
                      {{"name", "op", Hint::text},
                       {"intensity", "FLOP/B", Hint::intensity},
                       {"attainable_flops", "roof at AI", Hint::flop_rate},
                       {"predicted_flops", "predicted", Hint::flop_rate},
                       {"bound", "bound", Hint::text},
                       {"distance_to_roof", "to roof", Hint::ratio},
                       {"distance_to_ridge", "to ridge", Hint::ratio},
                       {"roof_gap", "roof gap", Hint::ratio}}});
  if (!svg.empty()) {
    std::ofstream f(svg);
    if (!f) throw InputError("cannot write --svg file '" + svg + "'");
    f << roofline_svg(m.name + " " + to_string(w.phase) + " b=" + std::to_string(w.batch) + " on " + l.card.name,
                      peak, bw, mpeak, mbw, pts);
    r.notes.push_back("wrote " + svg);
  }
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
