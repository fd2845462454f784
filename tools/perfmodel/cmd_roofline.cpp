// perfmodel roofline: a step's ops placed on the card's roofline, optionally drawn as SVG.
#include <algorithm>

#include "commands.hpp"
#include "documents.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/quant.hpp"
#include "step_report.hpp"

namespace perfmodel::cli {

int cmd_roofline(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  CardArgs card;
  WorkloadArgs wl;
  std::string svg, phase = "decode";
  Format format = Format::table;
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
  resolve_moe_config(wl, w, m, l.card, ctx);
  PricedStep p = price_workload(m, w, l, wl.mem_util);
  const Precision mm = linear_precision(w);  // the linears' peak, as the step's ridge (quant.hpp)
  const double peak = l.card.peak_flops(mm), bw = l.card.bandwidth;
  double mpeak = 0, mbw = 0;
  if (l.calibration) {
    mpeak = l.calibration->gemm_peak[static_cast<int>(mm)].value_or(0);  // 0: not measured, no measured roof drawn
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
  if (!svg.empty()) write_document(RooflineSvg{}, r, svg, "--svg");
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
