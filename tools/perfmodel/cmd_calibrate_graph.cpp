// `calibrate --profile fused --only graph` (cmd_calibrate_graph.hpp): the steps' graph replays measured or read,
// the two graph keys refitted on their fit halves, the rest held out.
#include "cmd_calibrate_graph.hpp"

#include "jsonl_records.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/graph_gap_fit.hpp"
#include "profile_yaml_edit.hpp"
#include "python_helper.hpp"

namespace perfmodel::cli {

namespace {

// fused_step_alone.py's results.jsonl: a JSON object a line; the `point` lines that checked out are the steps.
// fused_step_alone.py's sweep reaches batch 128 and 4096 tokens; far past a card's memory is not a measured step.
std::vector<GraphStep> read_steps(const std::string& path, const Catalogue& cat) {
  std::vector<GraphStep> steps;
  for_each_json_record(path, "fused_step_alone.py", [&](const JsonRecord& j) {
    if (!j.node["kind"] || j.node["kind"].as<std::string>("") != "point") return;
    if (!j.node["ok"] || !j.node["ok"].as<bool>(false)) return;
    GraphStep s;
    s.source = j.where;
    const auto phase = j.field<std::string>("phase", "decode or prefill");
    if (phase != "decode" && phase != "prefill") throw InputError(j.where + ": field 'phase': decode or prefill, not '" + phase + "'");
    s.phase = phase == "decode" ? Phase::decode : Phase::prefill;
    s.batch = j.count("batch", 65536);
    s.ctx = j.count("ctx", int64_t{1} << 24);
    s.kernel_s = j.time("kernel_s");
    s.alone_s = j.time("spin_first_s");
    s.host_launch_s = j.time("host_launch_s");
    s.model = j.model(cat, "model");
    steps.push_back(std::move(s));
  });
  if (steps.empty()) throw InputError(path + ": no step that checked out (`\"kind\": \"point\"`, `\"ok\": true`)");
  return steps;
}

}  // namespace

Node graph_error_row(const std::string& what, const ErrorSummary& e) {
  Node n = Node::object();
  n.set("cases_of", Node::text(what));
  n.set("cases", Node::integer(e.cases));
  n.set("median_abs", Node::number(e.median, Hint::percent));
  n.set("p90_abs", Node::number(e.p90, Hint::percent));
  return n;
}

std::vector<Column> graph_error_columns() {
  return {{"cases_of", "cases", Hint::text},
          {"cases", "n", Hint::integer},
          {"median_abs", "median", Hint::percent},
          {"p90_abs", "p90", Hint::percent}};
}

std::string refit_graph(const ProfileCalibrateArgs& a, Context& ctx, const Catalogue& cat, const Card& card,
                        const std::string& base, const std::string& out_path, std::string text, Report& r) {
  std::vector<std::string> files = a.from_steps;
  if (a.on_gpu) {
    const std::string dir = a.steps_out.empty() ? out_path + ".graph-steps" : a.steps_out;
    const std::string command = "cd '" + ctx.data_root + "' && python3 validation/scripts/production/fused_step_alone.py "
                                "--sweep --batches 1,8,32,64,128 --out '" + dir + "' --time-limit 420 >&2 && "
                                "echo 'fused_step_alone ok=1'";
    *ctx.err << "calibrate: " << command << "\n";
    parse_helper_result(run_python_helper(command, "calibrate --profile fused --only graph"), "fused_step_alone", {"ok"},
                        "calibrate --profile fused --only graph");
    files = {dir + "/results.jsonl"};
  }
  std::vector<GraphStep> steps;
  std::string joined;
  for (const std::string& f : files) {
    std::vector<GraphStep> one = read_steps(f, cat);
    steps.insert(steps.end(), one.begin(), one.end());
    joined += (joined.empty() ? "" : ", ") + f;
  }
  Calibration cal = load_calibration(base);
  const GraphGapFit f = fit_graph_gap(steps, card, cal, a.profile);
  const std::string why = "this machine (calibrate --profile " + a.profile + " --only graph, " + today_utc() +
                          "): median of (GPU-alone replay - kernel sum) / predicted launches over the " +
                          std::to_string(f.gap_fit_steps) + " even decode steps of " + joined;
  text = set_profile_key(text, a.profile, "graph_kernel_gap", us_text(f.gap_after_s), why);
  text = set_profile_key(text, a.profile, "graph_launch_per_node", us_text(f.node_after_s),
                         "host time, the same steps: median of host_launch_s / predicted launches over the " +
                             std::to_string(f.node_fit_steps) + " even steps",
                         "graph_kernel_gap");

  Node n = Node::object();
  n.set("steps_file", Node::text(joined));
  n.set("steps", Node::integer(static_cast<int64_t>(steps.size())));
  n.set("graph_kernel_gap_before_s", Node::number(f.gap_before_s, Hint::time));
  n.set("graph_kernel_gap_s", Node::number(f.gap_after_s, Hint::time));
  n.set("graph_launch_per_node_before_s", Node::number(f.node_before_s, Hint::time));
  n.set("graph_launch_per_node_s", Node::number(f.node_after_s, Hint::time));
  Node rows = Node::array();
  rows.push(graph_error_row("GPU-alone replay, held out (odd decode, prefill), before", f.gap_held_before));
  rows.push(graph_error_row("GPU-alone replay, held out (odd decode, prefill), after", f.gap_held_after));
  rows.push(graph_error_row("host launch, held out (odd steps), before", f.node_held_before));
  rows.push(graph_error_row("host launch, held out (odd steps), after", f.node_held_after));
  n.set("errors", std::move(rows));
  r.root.set("graph", std::move(n));
  r.fields.push_back({"graph keys of profile " + a.profile + " (" + card.name + ")", "graph",
                      {{"steps", "steps read", Hint::integer},
                       {"graph_kernel_gap_before_s", "graph_kernel_gap before", Hint::time},
                       {"graph_kernel_gap_s", "graph_kernel_gap now", Hint::time},
                       {"graph_launch_per_node_before_s", "graph_launch_per_node before", Hint::time},
                       {"graph_launch_per_node_s", "graph_launch_per_node now", Hint::time}}});
  r.tables.push_back({"|predicted / measured - 1| on the held-out steps (kernels measured; the keys' part priced)",
                      "graph.errors", graph_error_columns()});
  r.notes.push_back("profiles." + a.profile + ": graph_kernel_gap and graph_launch_per_node refitted on " + joined);
  return text;
}

}  // namespace perfmodel::cli
