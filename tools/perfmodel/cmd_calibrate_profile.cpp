// `perfmodel calibrate --profile fused|eager|compiled`: a profile's own keys measured on this machine (issue 10,
// item 2: what a profile's kernels and framework cost is the profile's, measured where it runs; the card's roofs
// are `calibrate --on-gpu`'s). Parts (--only):
//   host (eager): the host that issues transformers' eager step (cmd_calibrate_host.cpp);
//   graph (fused, compiled): the step's CUDA-graph replay (cmd_calibrate_graph.cpp, cmd_calibrate_compiled_graph.cpp);
//   attention, decode, gemm: the profile's production calls (run_all.py's attention and gemm groups, or recorded
//     kernels.json files), the part's keys refitted on the even cases (profile_key_fit.hpp).
// The calibration file is edited in place of those keys (its comments and every other key kept).
#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "cmd_calibrate_graph.hpp"
#include "cmd_calibrate_host.hpp"
#include "commands.hpp"
#include "perfmodel/profile_key_fit.hpp"
#include "perfmodel/errors.hpp"
#include "profile_yaml_edit.hpp"
#include "python_helper.hpp"

namespace perfmodel::cli {

namespace {

Node errors_node(const ErrorSummary& e) {
  Node n = Node::object();
  n.set("cases", Node::integer(e.cases));
  n.set("median_abs", Node::number(e.median, Hint::percent));
  n.set("p90_abs", Node::number(e.p90, Hint::percent));
  return n;
}

// The calibration file's text of a fitted value, and its JSON hint.
std::string value_text(const FittedKey& k) {
  switch (k.unit) {
    case KeyUnit::seconds: return k.after < 1e-7 ? ns_text(k.after) : us_text(k.after);
    case KeyUnit::flop_per_s: return tflops_text(k.after);
    case KeyUnit::bytes_per_s: return gbps_text(k.after);
    case KeyUnit::per_s: {
      std::ostringstream o;
      o.precision(4);
      o << std::scientific << k.after;
      return o.str();
    }
    case KeyUnit::share:
    case KeyUnit::ratio: break;
  }
  std::ostringstream o;
  o.precision(4);
  o << std::fixed << k.after;
  return o.str();
}

Hint hint_of(KeyUnit u) {
  switch (u) {
    case KeyUnit::seconds: return Hint::time;
    case KeyUnit::flop_per_s: return Hint::flop_rate;
    case KeyUnit::bytes_per_s: return Hint::byte_rate;
    case KeyUnit::per_s: return Hint::none;
    case KeyUnit::share:
    case KeyUnit::ratio: break;
  }
  return Hint::ratio;
}

// A key's JSON names: its last path segment, "_before" for the start, "_s" after a time (attention_cta_fixed_s).
std::string json_name(const FittedKey& k, bool before) {
  std::string leaf = k.path.substr(k.path.rfind('.') == std::string::npos ? 0 : k.path.rfind('.') + 1);
  return leaf + (before ? "_before" : "") + (k.unit == KeyUnit::seconds ? "_s" : "");
}

// run_all.py's group that measures a part's calls.
std::string run_all_group(ProfilePart part) {
  return part == ProfilePart::gemm ? "gemm" : part == ProfilePart::small ? "ops" : "attention";
}

// A kernel part (any profile): its production calls measured (run_all.py) or read, the part's keys refitted on the
// even cases; `text` edited.
std::string refit_part(ProfilePart part, const ProfileCalibrateArgs& a, const Measurements& m, const std::string& files,
                       const Card& card, Calibration& cal, std::string text, Report& r) {
  const Impl profile = a.profile == "eager" ? Impl::eager : a.profile == "compiled" ? Impl::compiled : Impl::fused;
  const ProfileFit f = fit_profile_part(m, card, cal, profile, part);
  const std::string name = to_string(part);
  const std::string why = f.cases_of + " on this card (calibrate --profile " + a.profile + " --only " + name + ", " +
                          today_utc() + "): " + std::to_string(f.fit_after.cases) + " even cases of " + files;
  std::string previous;
  bool told = false;  // the first fitted key's comment says where the fit comes from; the others refer to it
  Node n = Node::object();
  n.set("kernels_file", Node::text(files));
  std::vector<Column> fields;
  Node undetermined = Node::array();
  for (const FittedKey& k : f.keys) {
    const std::string comment = !k.determined ? "not determined by these calls: the value before kept"
                                : told        ? "the same fit (--only " + name + ")"
                                              : why;
    told = told || k.determined;
    text = set_profile_key(text, a.profile, k.path, value_text(k), comment, previous);
    if (!k.determined) undetermined.push(Node::text(k.path));
    previous = k.path.substr(k.path.rfind('.') == std::string::npos ? 0 : k.path.rfind('.') + 1);
    n.set(json_name(k, true), Node::number(k.before, hint_of(k.unit)));
    n.set(json_name(k, false), Node::number(k.after, hint_of(k.unit)));
    fields.push_back({json_name(k, false), k.path + " now", hint_of(k.unit)});
  }
  const bool any_undetermined = !undetermined.elements().empty();
  n.set("undetermined", std::move(undetermined));
  n.set("fit_before", errors_node(f.fit_before));
  n.set("fit_after", errors_node(f.fit_after));
  n.set("held_out_before", errors_node(f.held_before));
  n.set("held_out_after", errors_node(f.held_after));
  n.set("held_out_datasheet", errors_node(f.held_datasheet));
  r.root.set(name, std::move(n));
  r.fields.push_back({name + " of profile " + a.profile + " (" + f.cases_of + ", " + card.name + ")", name, fields});
  Node rows = Node::array();
  for (const auto& [what, e] : {std::pair<std::string, ErrorSummary>{"fit (even cases), before", f.fit_before},
                                {"fit (even cases), after", f.fit_after},
                                {"held out (odd cases), before", f.held_before},
                                {"held out (odd cases), after", f.held_after},
                                {"held out, datasheet defaults", f.held_datasheet}}) {
    Node row = errors_node(e);
    row.set("cases_of", Node::text(what));
    rows.push(std::move(row));
  }
  r.root.set(name + "_errors", std::move(rows));
  r.tables.push_back({"|predicted / measured - 1| on the file's " + f.cases_of, name + "_errors",
                      {{"cases_of", "cases", Hint::text},
                       {"cases", "n", Hint::integer},
                       {"median_abs", "median", Hint::percent},
                       {"p90_abs", "p90", Hint::percent}}});
  r.notes.push_back("profiles." + a.profile + ": the " + name + " keys refitted on " + files);
  if (any_undetermined)
    r.notes.push_back("the " + name + " keys no call of the files prices with were kept as they were (JSON " + name +
                      ".undetermined): measure calls that run those kernels to fit them");
  if (f.held_after.median > f.held_before.median + 0.0025)  // a quarter of a point: not the search's last digits
    r.notes.push_back("warning: the " + name + " refit does worse on the held-out calls than the values it replaces (median " +
                      format_value(Node::number(f.held_before.median), Hint::percent) + " -> " +
                      format_value(Node::number(f.held_after.median), Hint::percent) +
                      "): fit on more calls (repeat --from-kernels), or keep the file as it was");
  return text;
}

// FlashAttention-2's mechanism sets, measured beside the default shapes when its parts are: no default shape runs a
// head dim short of its kernel's (uneven_dim: validation/results/h200-oddsplit's pairs) or leaves a CTA alone on its
// SM (lone_pace: h200-lonecta's small grids), so without them those keys are undetermined and kept.
const char* const kFlash2Sets[] = {"oddsplit", "lonecta"};

bool flash2_part(ProfilePart p) { return p == ProfilePart::flash2 || p == ProfilePart::flash2_decode; }

// The kernel parts' calls: run_all.py's groups measured into one folder, or the recorded files read.
Measurements kernel_calls(const ProfileCalibrateArgs& a, Context& ctx, const std::vector<ProfilePart>& parts,
                          const std::string& out_path, std::string& files) {
  std::vector<std::string> paths = a.from_kernels, flash2_paths;
  if (a.on_gpu) {
    std::string groups;
    for (ProfilePart p : parts)
      if (groups.find(run_all_group(p)) == std::string::npos) groups += (groups.empty() ? "" : ",") + run_all_group(p);
    const std::string dir = a.kernels_out.empty() ? out_path + ".kernels" : a.kernels_out;
    std::string command = "cd '" + ctx.data_root + "' && python3 validation/scripts/production/run_all.py '" + dir +
                          "' --groups " + groups + " --budget 240 >&2";
    if (std::any_of(parts.begin(), parts.end(), flash2_part))
      for (const char* set : kFlash2Sets) {
        command += " && python3 validation/scripts/production/run_all.py '" + dir + "/" + set +
                   "' --groups attention --shapes " + set + " --budget 90 >&2";
        flash2_paths.push_back(dir + "/" + set + "/kernels.json");
      }
    command += " && echo 'run_all ok=1'";
    *ctx.err << "calibrate: " << command << "\n";
    parse_helper_result(run_python_helper(command, "calibrate --profile"), "run_all", {"ok"}, "calibrate --profile");
    paths = {dir + "/kernels.json"};
  }
  Measurements m;
  auto add = [&](const std::string& p, bool flash2_only) {
    Measurements one;
    load_measurements(p, one);  // case indices are each file's own: the even / odd split holds per file
    for (MeasuredCase& c : one.cases)  // a mechanism set's cuDNN calls stay out of the other parts' fits
      if (!flash2_only || c.implementation == "torch.sdpa.flash") m.cases.push_back(std::move(c));
    files += (files.empty() ? "" : ", ") + p + (flash2_only ? " (its FlashAttention-2 calls)" : "");
  };
  for (const std::string& p : paths) add(p, false);
  for (const std::string& p : flash2_paths) add(p, true);
  return m;
}

}  // namespace

int calibrate_profile(const ProfileCalibrateArgs& a, Context& ctx, Format format) {
  if (a.profile != "eager" && a.profile != "fused" && a.profile != "compiled")
    throw UsageError("--profile: fused, eager or compiled, not '" + a.profile + "'");
  if (a.card.empty()) throw UsageError("calibrate --profile: name the card whose calibration file carries the profile (--card)");
  const bool recorded = !a.from_probe.empty() || !a.from_kernels.empty() || !a.from_steps.empty();
  if (a.on_gpu == recorded)
    throw UsageError("calibrate --profile: either --on-gpu (measure here) or --from-probe / --from-kernels / --from-steps "
                     "FILE (refit a recorded measurement)");
  // What is refitted: --only's parts; without it, every part of the profile the measurement holds: with --on-gpu all
  // of them are measured (eager: its host too), recorded files refit the kernel parts they hold enough calls for
  // (defaulted parts without are skipped with a note), a recorded probe the host.
  const bool defaulted = a.parts.empty();
  const std::string kernel_parts = a.profile == "fused"      ? "attention,decode,gemm"
                                   : a.profile == "compiled" ? "attention,decode,gemm,small"
                                                             : "attention,decode,gemm,small,flash2,flash2_decode";
  std::string only = a.parts;
  if (defaulted) {
    if (a.on_gpu) {
      only = (a.profile == "eager" ? "host," : "") + kernel_parts + (a.profile != "eager" ? ",graph" : "");
    } else {
      std::vector<std::string> recorded_parts;
      if (!a.from_probe.empty()) recorded_parts.push_back("host");
      if (!a.from_kernels.empty()) recorded_parts.push_back(kernel_parts);
      if (!a.from_steps.empty()) recorded_parts.push_back("graph");
      for (const std::string& p : recorded_parts) only += (only.empty() ? "" : ",") + p;
    }
  }
  bool host = false, graph = false;
  std::vector<ProfilePart> parts;
  std::istringstream in_parts(only);
  for (std::string p; std::getline(in_parts, p, ',');) {
    if (p == "host") host = true;
    else if (p == "graph") graph = true;
    else if (p == "attention") parts.push_back(ProfilePart::attention);
    else if (p == "decode") parts.push_back(ProfilePart::decode);
    else if (p == "gemm") parts.push_back(ProfilePart::gemm);
    else if (p == "small") parts.push_back(ProfilePart::small);
    else if (p == "flash2") parts.push_back(ProfilePart::flash2);
    else if (p == "flash2_decode") parts.push_back(ProfilePart::flash2_decode);
    else throw UsageError("--only with --profile: host, attention, decode, gemm, small, flash2, flash2_decode and / or graph, not '" + p + "'");
  }
  if (host && a.profile != "eager")
    throw UsageError("--profile " + a.profile + ": the host is measured for the eager profile only (a graph profile's host "
                     "is its graph's: --only graph)");
  if (graph && a.profile == "eager")
    throw UsageError("--only graph: a graph profile's keys (fused or compiled); the eager profile replays no graph");
  if (!a.on_gpu && graph && a.from_steps.empty())
    throw UsageError("--only graph without --on-gpu: name the recorded steps (--from-steps)");
  if (!a.on_gpu && host && a.from_probe.empty())
    throw UsageError("--only host without --on-gpu: name the recorded probe (--from-probe)");
  if (!a.on_gpu && !parts.empty() && a.from_kernels.empty())
    throw UsageError("--only " + only + " without --on-gpu: name the recorded calls (--from-kernels)");
  Catalogue cat(ctx.data_root);
  const Card card = cat.card(a.card);
  const std::string base = a.calibration.empty() ? cat.calibration_path(card.key) : a.calibration;
  if (!std::ifstream(base).good()) throw InputError(base + ": no calibration file to refit (calibrate --on-gpu writes one)");
  const std::string out_path = a.output.empty() ? base : a.output;
  if (host && a.on_gpu) {
    cat.model(a.probe_model);  // an unknown --probe-model is refused here, not by the helper's traceback
    for (char ch : a.probe_layers)
      if (!std::isdigit(static_cast<unsigned char>(ch)) && ch != ',')
        throw UsageError("--probe-layers: one or two comma-separated layer counts, not '" + a.probe_layers + "'");
    if (a.probe_processes < 1 || a.probe_processes > 64)
      throw UsageError("--probe-processes: 1 to 64 processes, not " + std::to_string(a.probe_processes));
  }

  std::ifstream in(base);
  std::stringstream original;
  original << in.rdbuf();
  std::string text = original.str();
  Report r;
  r.command = "calibrate";
  r.root.set("meta", make_meta("calibrate", ctx.argv));
  r.root.set("profile", Node::text(a.profile));
  if (host) text = refit_host(a, ctx, cat, card, base, out_path, text, r);
  if (graph)
    text = a.profile == "compiled" ? refit_compiled_graph(a, ctx, cat, card, base, out_path, text, r)
                                   : refit_graph(a, ctx, cat, card, base, out_path, text, r);
  if (!parts.empty()) {
    std::string files;
    const Measurements m = kernel_calls(a, ctx, parts, out_path, files);
    // The parts' keys are disjoint; a later part prices with the earlier ones' refitted values.
    Calibration cal = load_calibration(base);
    const Impl profile = a.profile == "eager" ? Impl::eager : a.profile == "compiled" ? Impl::compiled : Impl::fused;
    int refitted = 0;
    for (ProfilePart p : parts) {
      if (defaulted && profile_part_fit_calls(m, profile, p) < 4) {
        r.notes.push_back(to_string(p) + ": skipped, too few of its calls in " + files + " (at least 4 with an even index)");
        continue;
      }
      text = refit_part(p, a, m, files, card, cal, text, r);
      ++refitted;
    }
    if (refitted == 0)
      throw InputError(files + ": no calls of a part of profile " + a.profile +
                       " to refit (run_all.py's attention, gemm and ops groups measure them)");
  }
  write_text_file(out_path, text);
  // The file written must read back (load_calibration checks every key and unit).
  const Calibration back = load_calibration(out_path);
  if (!find_profile(back.profiles, a.profile)) throw InputError(out_path + ": the profile block did not read back");
  r.root.set("calibration_file", Node::text(out_path));
  r.notes.push_back("wrote " + out_path + " (every other line as it was)");
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
