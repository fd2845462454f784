// perfmodel collective: one NCCL collective's time, the algorithm and protocol NCCL picks, and
// its bus bandwidth (docs/model.md, "Collectives"); --fit fits the calibration on measurements.
#include <cmath>

#include "commands.hpp"
#include "perfmodel/collective.hpp"
#include "perfmodel/units.hpp"

namespace perfmodel::cli {
namespace {

double parse_size(const std::string& text) {
  // "4096" (bytes), "16MiB", "1 GiB", "64kB": the project's units parser, bytes allowed bare.
  std::string why;
  std::string t = text;
  if (!t.empty() && t.find_first_not_of("0123456789.eE+") == std::string::npos) t += " B";
  auto v = parse_quantity(t, Dimension::bytes, &why);
  if (!v) throw UsageError("--bytes: " + why);
  if (*v < 1) throw UsageError("--bytes: must be at least 1 byte (got " + text + ")");
  return *v;
}

int run_fit(const std::string& csv, const Loaded& l, const std::string& format, Context& ctx) {
  const CollectiveFit fit = fit_collectives(l.card, load_collective_samples(csv));
  Report r;
  r.command = "collective";
  r.root.set("meta", make_meta("collective", ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(l));
  inputs.set("measurements", Node::text(csv));
  r.root.set("inputs", std::move(inputs));
  r.root.set("gpus", Node::integer(fit.calibration.gpus));
  r.root.set("held_out_median_abs_error", Node::number(fit.held_out_median_abs_error, Hint::percent));
  r.root.set("held_out_max_abs_error", Node::number(fit.held_out_max_abs_error, Hint::percent));
  r.root.set("uncalibrated_median_abs_error", Node::number(fit.uncalibrated_median_abs_error, Hint::percent));
  Node rows = Node::array();
  for (const auto& c : fit.checks) {
    Node row = Node::object();
    row.set("op", Node::text(std::string(to_string(c.sample.op))));
    row.set("bytes", Node::number(c.sample.bytes, Hint::bytes));
    row.set("protocol", Node::text(std::string(to_string(c.protocol))));
    row.set("held_out", Node::boolean(c.held_out));
    row.set("measured_s", Node::number(c.sample.time_s, Hint::time));
    row.set("predicted_s", Node::number(c.predicted_s, Hint::time));
    row.set("error", Node::number(c.error(), Hint::percent));
    rows.push(std::move(row));
  }
  r.root.set("checks", std::move(rows));
  r.tables.push_back({"every size (fitted on even log2 sizes, held out on odd ones)", "checks",
                      {{"op", "op", Hint::text}, {"bytes", "bytes", Hint::bytes}, {"protocol", "protocol", Hint::text},
                       {"held_out", "held out", Hint::text}, {"measured_s", "measured", Hint::time},
                       {"predicted_s", "predicted", Hint::time}, {"error", "error", Hint::percent}}});
  r.fields.push_back({"collective fit on " + csv, "",
                      {{"gpus", "GPUs", Hint::integer},
                       {"held_out_median_abs_error", "held-out median |error|", Hint::percent},
                       {"held_out_max_abs_error", "held-out max |error|", Hint::percent},
                       {"uncalibrated_median_abs_error", "NCCL's own model, same sizes", Hint::percent}}});
  const std::string yaml = to_yaml(fit.calibration);
  r.root.set("calibration_yaml", Node::text(yaml));
  r.notes.push_back("calibration (add to hardware/" + l.card.key + ".calibration.yaml):\n" + yaml);
  emit(r, format, ctx);
  return 0;
}

}  // namespace

int cmd_collective(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  CardArgs card;
  std::string op_name = "all_reduce", bytes_text, format, fit_csv;
  int gpus = 2;
  add_card(d, card, true);
  d.add_options()("gpus", po::value(&gpus)->default_value(gpus), "GPUs taking part (nodes follow from the card's gpus_per_node)")(
      "op", po::value(&op_name)->default_value(op_name), ("collective: " + collective_op_names()).c_str())(
      "bytes", po::value(&bytes_text), "size per GPU as nccl-tests counts it, e.g. 16MiB, 1GiB, 4096")(
      "fit", po::value(&fit_csv), "fit the calibration on bench_collectives.py's CSV and report held-out errors");
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx,
             "perfmodel collective: an NCCL collective's time, algorithm, protocol and bus bandwidth",
             "perfmodel collective --card h200 --gpus 2 --op all_reduce --bytes 16MiB"))
    return 0;
  Loaded l = load_card(card, ctx);
  if (!fit_csv.empty()) return run_fit(fit_csv, l, format, ctx);
  if (bytes_text.empty()) throw UsageError("--bytes is required, e.g. --bytes 16MiB");
  auto op = parse_collective_op(op_name);
  if (!op) throw UsageError("--op: unknown collective '" + op_name + "'; accepted: " + collective_op_names());
  if (gpus < 2) throw UsageError("--gpus: a collective needs at least 2 GPUs (got " + std::to_string(gpus) + ")");
  const double bytes = parse_size(bytes_text);
  const CollectiveCalibration* cal = l.calibration && l.calibration->collectives.any() ? &l.calibration->collectives : nullptr;
  const CollectiveEstimate e = estimate_collective(l.card, *op, gpus, bytes, cal);

  Report r;
  r.command = "collective";
  r.root.set("meta", make_meta("collective", ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(l));
  inputs.set("op", Node::text(std::string(to_string(e.op))));
  inputs.set("gpus", Node::integer(e.gpus));
  inputs.set("bytes", Node::number(e.bytes, Hint::bytes));
  r.root.set("inputs", std::move(inputs));
  r.root.set("nodes", Node::integer(e.nodes));
  r.root.set("path", Node::text(e.path));
  r.root.set("algorithm", Node::text(std::string(to_string(e.algorithm))));
  r.root.set("protocol", Node::text(std::string(to_string(e.protocol))));
  r.root.set("time_s", Node::number(e.time_s, Hint::time));
  r.root.set("algbw", Node::number(e.algbw, Hint::byte_rate));
  r.root.set("busbw", Node::number(e.busbw, Hint::byte_rate));
  r.root.set("bus_factor", Node::number(e.bus_factor, Hint::ratio));
  r.root.set("latency_s", Node::number(e.latency_s, Hint::time));
  r.root.set("bandwidth_time_s", Node::number(e.bandwidth_time_s, Hint::time));
  r.root.set("latency_share", Node::number(e.latency_s / e.time_s, Hint::percent));
  r.root.set("bandwidth_share", Node::number(e.bandwidth_time_s / e.time_s, Hint::percent));
  r.root.set("calibrated", Node::boolean(e.calibrated));
  Node cands = Node::array();
  for (const auto& c : e.candidates) {
    Node row = Node::object();
    row.set("algorithm", Node::text(std::string(to_string(c.algorithm))));
    row.set("protocol", Node::text(std::string(to_string(c.protocol))));
    row.set("latency_s", Node::number(c.nccl_latency_s, Hint::time));
    row.set("algbw", Node::number(c.nccl_algbw, Hint::byte_rate));
    row.set("time_s", Node::number(c.nccl_time_s, Hint::time));
    row.set("chosen", Node::boolean(c.algorithm == e.algorithm && c.protocol == e.protocol));
    cands.push(std::move(row));
  }
  r.root.set("nccl_candidates", std::move(cands));
  r.fields.push_back({to_string(e.op).data() + std::string(" of ") + format_bytes_binary(e.bytes) + " on " +
                          std::to_string(e.gpus) + " x " + l.card.name + " (" + e.path + ")",
                      "",
                      {{"time_s", "time (predicted)", Hint::time},
                       {"algorithm", "algorithm", Hint::text},
                       {"protocol", "protocol", Hint::text},
                       {"busbw", "bus bandwidth", Hint::byte_rate},
                       {"algbw", "algorithm bandwidth", Hint::byte_rate},
                       {"latency_s", "latency term", Hint::time},
                       {"bandwidth_time_s", "bandwidth term", Hint::time},
                       {"latency_share", "latency share", Hint::percent},
                       {"bandwidth_share", "bandwidth share", Hint::percent},
                       {"nodes", "nodes", Hint::integer},
                       {"calibrated", "calibrated", Hint::text}}});
  // CSV prints the first table, else the fields: keep the result line for CSV.
  if (format != "csv")
    r.tables.push_back({"NCCL's tuning model (it picks the lowest time)", "nccl_candidates",
                        {{"algorithm", "algorithm", Hint::text}, {"protocol", "protocol", Hint::text},
                         {"latency_s", "latency", Hint::time}, {"algbw", "alg. bandwidth", Hint::byte_rate},
                         {"time_s", "time", Hint::time}, {"chosen", "chosen", Hint::text}}});
  if (!e.calibrated)
    r.notes.push_back("no collective calibration for this path: NCCL's own model values are used (docs/model.md)");
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
