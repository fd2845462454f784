// `calibrate --profile compiled --only graph` (cmd_calibrate_graph.hpp): torch.compile'd decode steps measured with
// compiled_gaps.py or read from its records, the compiled block's graph keys refitted on the even steps, the odd
// ones held out (compiled_graph_fit.hpp).
#include "cmd_calibrate_graph.hpp"
#include "jsonl_records.hpp"
#include "perfmodel/compiled_graph_fit.hpp"
#include "perfmodel/errors.hpp"
#include "profile_yaml_edit.hpp"
#include "python_helper.hpp"

namespace perfmodel::cli {

namespace {

// The on-GPU sweep: one model a process (dynamo's and the cudagraph tree's state would carry over), two shapes each,
// at depths whose graphs hold 52-124 static inputs; about a minute a process on the H200 (validation/results/
// h200-compiled2: 10-37 s to compile and warm up).
const char* const kSweep[] = {"llama3-8b 4 1:512,16:2048", "qwen2.5-7b 4 1:1024,8:2048", "llama2-7b 8 1:1024,32:512"};

// compiled_gaps.py's records (`"mode": "reduce-overhead"`, torch.compile's mode; host_probe.py's `"mode": "compiled"`
// records alike): a JSON object a line; host_probe.py's records of its other modes (eager, generate, source, ...) and
// points that failed (`"ok": false`) are skipped.
std::vector<CompiledGraphStep> read_compiled_steps(const std::string& path, const Catalogue& cat) {
  std::vector<CompiledGraphStep> steps;
  for_each_json_record(path, "compiled_gaps.py", [&](const JsonRecord& j) {
    const std::string mode = j.node["mode"] ? j.node["mode"].as<std::string>("") : "";
    if (!mode.empty() && mode != "reduce-overhead" && mode != "compiled") return;
    if (j.node["ok"] && !j.node["ok"].as<bool>(false)) return;
    CompiledGraphStep s;
    s.source = j.where;
    s.model = j.model(cat, "model");
    s.model.layers = j.count("layers", s.model.layers);
    s.batch = j.count("batch", 65536);
    s.kv_len = j.count("kv_len", int64_t{1} << 24);
    s.kernel_s = j.time("kernel_s");
    s.alone_s = j.time("graph_pure_s");
    s.replay_s = j.time("device_s");
    steps.push_back(std::move(s));
  });
  if (steps.empty()) throw InputError(path + ": no compiled step that checked out");
  return steps;
}

std::string measure_steps(const ProfileCalibrateArgs& a, Context& ctx, const std::string& out_path) {
  const std::string dir = a.steps_out.empty() ? out_path + ".compiled-steps" : a.steps_out;
  const std::string file = dir + "/compiled_steps.jsonl";
  std::string command = "cd '" + ctx.data_root + "' && mkdir -p '" + dir + "' && rm -f '" + file + "'";
  for (const char* spec : kSweep)
    command += " && timeout 240 python3 validation/scripts/production/compiled_gaps.py " + std::string(spec) + " --out '" +
               file + "' >&2";
  command += " && echo 'compiled_gaps ok=1'";
  *ctx.err << "calibrate: " << command << "\n";
  parse_helper_result(run_python_helper(command, "calibrate --profile compiled --only graph"), "compiled_gaps", {"ok"},
                      "calibrate --profile compiled --only graph");
  return file;
}

Node step_row(const CompiledGraphStepFit& s) {
  Node n = Node::object();
  n.set("source", Node::text(s.source));
  n.set("fit", Node::text(s.fit ? "fit" : "held out"));
  n.set("launches", Node::integer(s.launches));
  n.set("graph_inputs", Node::integer(s.graph_inputs));
  n.set("gap_s", Node::number(s.gap_s, Hint::time));
  n.set("host_s", Node::number(s.host_s, Hint::time));
  n.set("replay_s", Node::number(s.replay_s, Hint::time));
  n.set("replay_before_s", Node::number(s.replay_before_s, Hint::time));
  n.set("replay_after_s", Node::number(s.replay_after_s, Hint::time));
  n.set("error_before", Node::number(s.replay_before_s / s.replay_s - 1, Hint::percent));
  n.set("error_after", Node::number(s.replay_after_s / s.replay_s - 1, Hint::percent));
  return n;
}

}  // namespace

std::string refit_compiled_graph(const ProfileCalibrateArgs& a, Context& ctx, const Catalogue& cat, const Card& card,
                                 const std::string& base, const std::string& out_path, std::string text, Report& r) {
  const std::vector<std::string> files = a.on_gpu ? std::vector<std::string>{measure_steps(a, ctx, out_path)} : a.from_steps;
  std::vector<CompiledGraphStep> steps;
  std::string joined;
  for (const std::string& f : files) {
    std::vector<CompiledGraphStep> one = read_compiled_steps(f, cat);
    steps.insert(steps.end(), one.begin(), one.end());
    joined += (joined.empty() ? "" : ", ") + f;
  }
  Calibration cal = load_calibration(base);
  const CompiledGraphFit f = fit_compiled_graph(steps, card, cal);
  const std::string when = "this machine (calibrate --profile compiled --only graph, " + today_utc() + "): ";
  text = set_profile_key(text, "compiled", "graph_kernel_gap", us_text(f.gap_after_s),
                         when + "median of (GPU-alone replay - kernel sum) / predicted launches over the " +
                             std::to_string(f.fit_steps) + " even steps of " + joined);
  if (f.shape_inputs > 0) {
    text = set_profile_key(text, "compiled", "graph_call_host", us_text(f.host_after_s),
                           when + "median of (replay - kernels - gap x launches) / (1 + inputs / " +
                               std::to_string(static_cast<long>(std::lround(f.shape_inputs))) + ") over the same steps");
    text = set_profile_key(text, "compiled", "graph_call_host_per_input", us_text(f.per_input_after_s),
                           "graph_call_host / n0, n0 = " + std::to_string(static_cast<long>(std::lround(f.shape_inputs))) +
                               " inputs kept from the calibration (hostreplay_shape.py)",
                           "graph_call_host");
  } else {
    text = set_profile_key(text, "compiled", "graph_call_host", us_text(f.host_after_s),
                           when + "median of (replay - kernels - gap x launches) over the same steps (flat: no per-input key)");
  }

  Node n = Node::object();
  n.set("steps_file", Node::text(joined));
  n.set("steps", Node::integer(static_cast<int64_t>(steps.size())));
  n.set("fit_steps", Node::integer(f.fit_steps));
  n.set("graph_kernel_gap_before_s", Node::number(f.gap_before_s, Hint::time));
  n.set("graph_kernel_gap_s", Node::number(f.gap_after_s, Hint::time));
  n.set("graph_call_host_before_s", Node::number(f.host_before_s, Hint::time));
  n.set("graph_call_host_s", Node::number(f.host_after_s, Hint::time));
  n.set("graph_call_host_per_input_before_s", Node::number(f.per_input_before_s, Hint::time));
  n.set("graph_call_host_per_input_s", Node::number(f.per_input_after_s, Hint::time));
  n.set("shape_inputs", Node::number(f.shape_inputs, Hint::none));
  Node rows = Node::array();
  rows.push(graph_error_row("GPU-alone replay, held out (odd steps), before", f.alone_held_before));
  rows.push(graph_error_row("GPU-alone replay, held out (odd steps), after", f.alone_held_after));
  rows.push(graph_error_row("timed replay with the host before it, held out (odd steps), before", f.replay_held_before));
  rows.push(graph_error_row("timed replay with the host before it, held out (odd steps), after", f.replay_held_after));
  n.set("errors", std::move(rows));
  Node per_step = Node::array();
  for (const CompiledGraphStepFit& s : f.steps) per_step.push(step_row(s));
  n.set("per_step", std::move(per_step));
  r.root.set("graph", std::move(n));
  r.fields.push_back({"graph keys of profile compiled (" + card.name + ")", "graph",
                      {{"steps", "steps read", Hint::integer},
                       {"graph_kernel_gap_before_s", "graph_kernel_gap before", Hint::time},
                       {"graph_kernel_gap_s", "graph_kernel_gap now", Hint::time},
                       {"graph_call_host_before_s", "graph_call_host before", Hint::time},
                       {"graph_call_host_s", "graph_call_host now", Hint::time},
                       {"graph_call_host_per_input_s", "graph_call_host_per_input now", Hint::time}}});
  r.tables.push_back({"|predicted / measured - 1| on the held-out steps (kernels measured; the keys' part priced)",
                      "graph.errors", graph_error_columns()});
  r.tables.push_back({"each step: the host before the replay and the timed replay, priced before and after",
                      "graph.per_step",
                      {{"source", "step", Hint::text},
                       {"fit", "half", Hint::text},
                       {"launches", "launches", Hint::integer},
                       {"graph_inputs", "inputs", Hint::integer},
                       {"host_s", "host", Hint::time},
                       {"replay_s", "replay", Hint::time},
                       {"error_before", "before", Hint::percent},
                       {"error_after", "after", Hint::percent}}});
  r.notes.push_back("profiles.compiled: graph_kernel_gap, graph_call_host and graph_call_host_per_input refitted on " + joined +
                    "; the host's shape over the graph's inputs (n0) is kept, its level is this machine's");
  return text;
}

}  // namespace perfmodel::cli
