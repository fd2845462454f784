// `perfmodel calibrate --profile eager`: the eager profile's host rate measured on this machine (issue 10,
// item 2: what a profile's kernels and framework cost is the profile's, measured where it runs). The card's
// roofs are `calibrate --on-gpu`'s; this measures the host that issues transformers' eager step
// (validation/scripts/production/profile_host.py, a PyTorch process) and refits host_per_kernel so that the
// probe's step, as perfmodel lowers and prices it, takes the host time measured (eager_host_fit.hpp). The
// calibration file is edited in place of that one key (its comments and every other key kept).
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "commands.hpp"
#include "perfmodel/eager_host_fit.hpp"
#include "perfmodel/profile_attention_fit.hpp"
#include "perfmodel/errors.hpp"
#include "profile_yaml_edit.hpp"
#include "python_helper.hpp"

namespace perfmodel::cli {

namespace {

// profile_host.py's record: `depths` (one entry a depth), or one depth's fields at the top (its first form).
HostProbe probe_from_json(const std::string& path) {
  YAML::Node j;
  try {
    j = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    throw InputError(path + ": cannot read the probe record: " + e.what());
  }
  auto need = [&](const YAML::Node& n, const std::string& k) {
    if (!n[k]) throw InputError(path + ": field '" + k + "' missing (profile_host.py --out writes it)");
    return n[k];
  };
  HostProbe p;
  try {
    p.model = need(j, "model").as<std::string>();
    p.batch = need(j, "batch").as<int64_t>();
    p.ctx = need(j, "ctx").as<int64_t>();
    if (j["ok"] && j["ok"].as<int>() != 1) throw InputError(path + ": field 'ok': the probe's step did not check out");
    auto depth = [&](const YAML::Node& n) {
      HostProbeDepth d;
      d.layers = need(n, "layers").as<int64_t>();
      d.host_call_s = need(n, "host_call_s").as<double>();
      d.wall_s = n["wall_s"] ? n["wall_s"].as<double>() : 0;
      d.kernels = n["kernels"] ? n["kernels"].as<double>() : 0;
      return d;
    };
    if (j["depths"]) {
      if (!j["depths"].IsSequence()) throw InputError(path + ": field 'depths': a list of the probe's depths");
      for (const auto& n : j["depths"]) p.depths.push_back(depth(n));
    } else {
      p.depths.push_back(depth(j));
    }
  } catch (const YAML::Exception& e) {
    throw InputError(path + ": a field is not of its type: " + e.what());
  }
  return p;
}

// The host part (eager): the probe measured or read, host_per_kernel (and host_per_step) refitted; `text` edited.
std::string refit_host(const ProfileCalibrateArgs& a, Context& ctx, const Catalogue& cat, const Card& card,
                       const std::string& base, const std::string& out_path, std::string text, Report& r) {
  std::string record = a.from_probe;
  if (a.on_gpu) {
    record = a.probe_out.empty() ? out_path + ".host-probe.json" : a.probe_out;
    const std::string command = "cd '" + ctx.data_root + "' && python3 validation/scripts/production/profile_host.py --model " +
                                a.probe_model + " --layers " + a.probe_layers + " --out '" + record + "'";
    *ctx.err << "calibrate: " << command << "\n";
    parse_helper_result(run_python_helper(command, "calibrate --profile eager"), "profile_host", {"ok"}, "calibrate --profile eager");
  }
  const HostProbe probe = probe_from_json(record);
  const Model model = cat.model(probe.model);
  Calibration cal = load_calibration(base);
  const EagerHostFit f = fit_eager_host(model, probe, card, cal);
  std::ostringstream why;
  why << "this host (calibrate --profile eager, " << today_utc() << "): " << probe.model << " b" << probe.batch << " ctx"
      << probe.ctx;
  for (size_t i = 0; i < probe.depths.size(); ++i)
    why << ", " << probe.depths[i].layers << " layers " << probe.depths[i].host_call_s * 1e3 << " ms / " << f.launches[i]
        << " priced launches";
  why << " (" << us_text(f.per_kernel_before_s) << " before)";
  text = set_profile_key(text, "eager", "host_per_kernel", us_text(f.per_kernel_after_s), why.str());
  if (probe.depths.size() == 2)
    text = set_profile_key(text, "eager", "host_per_step", us_text(f.per_step_after_s),
                           "this host: the forward's own host outside its ops, from the two depths above", "host_per_kernel");

  Node n = Node::object();
  n.set("probe_model", Node::text(probe.model));
  n.set("probe_batch", Node::integer(probe.batch));
  n.set("probe_ctx", Node::integer(probe.ctx));
  n.set("host_per_kernel_before_s", Node::number(f.per_kernel_before_s, Hint::time));
  n.set("host_per_kernel_s", Node::number(f.per_kernel_after_s, Hint::time));
  n.set("host_per_step_before_s", Node::number(f.per_step_before_s, Hint::time));
  n.set("host_per_step_s", Node::number(f.per_step_after_s, Hint::time));
  n.set("scale", Node::number(f.scale, Hint::ratio));
  n.set("probe_file", Node::text(record));
  Node depths = Node::array();
  for (size_t i = 0; i < probe.depths.size(); ++i) {
    Node d = Node::object();
    d.set("layers", Node::integer(probe.depths[i].layers));
    d.set("host_call_s", Node::number(probe.depths[i].host_call_s, Hint::time));
    d.set("wall_s", Node::number(probe.depths[i].wall_s, Hint::time));
    d.set("kernels_measured", Node::number(probe.depths[i].kernels, Hint::none));
    d.set("launches_priced", Node::integer(f.launches[i]));
    d.set("host_priced_before_s", Node::number(f.host_before_s[i], Hint::time));
    d.set("host_priced_after_s", Node::number(f.host_after_s[i], Hint::time));
    depths.push(std::move(d));
  }
  n.set("depths", std::move(depths));
  r.root.set("host", std::move(n));
  r.fields.push_back({"eager host on this machine (" + card.name + "), probe " + probe.model, "host",
                      {{"host_per_kernel_before_s", "host_per_kernel before", Hint::time},
                       {"host_per_kernel_s", "host_per_kernel now", Hint::time},
                       {"host_per_step_before_s", "host_per_step before", Hint::time},
                       {"host_per_step_s", "host_per_step now", Hint::time},
                       {"scale", "host_per_kernel now / before", Hint::ratio}}});
  r.tables.push_back({"the probe's steps (GPU kept busy: the host alone)", "host.depths",
                      {{"layers", "layers", Hint::integer},
                       {"host_call_s", "host measured", Hint::time},
                       {"wall_s", "wall measured", Hint::time},
                       {"kernels_measured", "kernels (profiler)", Hint::none},
                       {"launches_priced", "kernels (perfmodel)", Hint::integer},
                       {"host_priced_before_s", "host priced before", Hint::time},
                       {"host_priced_after_s", "host priced now", Hint::time}}});
  r.notes.push_back("profiles.eager: host_per_kernel" + std::string(probe.depths.size() == 2 ? " and host_per_step" : "") +
                    " refitted on " + record);
  return text;
}

Node errors_node(const ErrorSummary& e) {
  Node n = Node::object();
  n.set("cases", Node::integer(e.cases));
  n.set("median_abs", Node::number(e.median, Hint::percent));
  n.set("p90_abs", Node::number(e.p90, Hint::percent));
  return n;
}

// The attention part (any profile): cuDNN SDPA prefill measured (run_all.py) or read, the profile's four keys
// refitted on the even cases; `text` edited.
std::string refit_attention(const ProfileCalibrateArgs& a, Context& ctx, const Card& card, const std::string& base,
                            const std::string& out_path, std::string text, Report& r) {
  std::string file = a.from_kernels;
  if (a.on_gpu) {
    const std::string dir = a.kernels_out.empty() ? out_path + ".attention" : a.kernels_out;
    const std::string command = "cd '" + ctx.data_root + "' && python3 validation/scripts/production/run_all.py '" + dir +
                                "' --groups attention --budget 240 >&2 && echo 'run_all ok=1'";
    *ctx.err << "calibrate: " << command << "\n";
    parse_helper_result(run_python_helper(command, "calibrate --profile attention"), "run_all", {"ok"},
                        "calibrate --profile attention");
    file = dir + "/kernels.json";
  }
  Measurements m;
  load_measurements(file, m);
  Calibration cal = load_calibration(base);
  const Impl profile = a.profile == "eager" ? Impl::eager : a.profile == "compiled" ? Impl::compiled : Impl::fused;
  const AttentionFit f = fit_profile_attention(m, card, cal, profile);
  const std::string why = "cuDNN SDPA prefill on this card (calibrate --profile " + a.profile + ", " + today_utc() + "): " +
                          std::to_string(f.fit_after.cases) + " even cases of " + file;
  std::ostringstream share;
  share.precision(4);
  share << std::fixed << f.after.softmax_share;
  text = set_profile_key(text, a.profile, "attention_peak", tflops_text(f.after.peak), why);
  text = set_profile_key(text, a.profile, "attention_softmax_share", share.str(), "the same fit", "attention_peak");
  text = set_profile_key(text, a.profile, "attention_cta_fixed", us_text(f.after.cta_fixed_s), "the same fit",
                         "attention_softmax_share");
  text = set_profile_key(text, a.profile, "attention_call_floor", us_text(f.after.call_floor_s), "the same fit",
                         "attention_cta_fixed");

  Node n = Node::object();
  n.set("kernels_file", Node::text(file));
  n.set("attention_peak_before", Node::number(f.before.peak, Hint::flop_rate));
  n.set("attention_peak", Node::number(f.after.peak, Hint::flop_rate));
  n.set("attention_softmax_share_before", Node::number(f.before.softmax_share, Hint::ratio));
  n.set("attention_softmax_share", Node::number(f.after.softmax_share, Hint::ratio));
  n.set("attention_cta_fixed_before_s", Node::number(f.before.cta_fixed_s, Hint::time));
  n.set("attention_cta_fixed_s", Node::number(f.after.cta_fixed_s, Hint::time));
  n.set("attention_call_floor_before_s", Node::number(f.before.call_floor_s, Hint::time));
  n.set("attention_call_floor_s", Node::number(f.after.call_floor_s, Hint::time));
  n.set("fit_before", errors_node(f.fit_before));
  n.set("fit_after", errors_node(f.fit_after));
  n.set("held_out_before", errors_node(f.held_before));
  n.set("held_out_after", errors_node(f.held_after));
  n.set("held_out_datasheet", errors_node(f.held_datasheet));
  r.root.set("attention", std::move(n));
  r.fields.push_back({"prefill attention of profile " + a.profile + " (cuDNN SDPA, " + card.name + ")", "attention",
                      {{"attention_peak_before", "attention_peak before", Hint::flop_rate},
                       {"attention_peak", "attention_peak now", Hint::flop_rate},
                       {"attention_softmax_share", "softmax share now", Hint::ratio},
                       {"attention_cta_fixed_s", "CTA fixed cost now", Hint::time},
                       {"attention_call_floor_s", "call floor now", Hint::time}}});
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
  r.root.set("attention_errors", std::move(rows));
  r.tables.push_back({"|predicted / measured - 1| on the file's cuDNN prefill calls", "attention_errors",
                      {{"cases_of", "cases", Hint::text},
                       {"cases", "n", Hint::integer},
                       {"median_abs", "median", Hint::percent},
                       {"p90_abs", "p90", Hint::percent}}});
  r.notes.push_back("profiles." + a.profile + ": the four prefill attention keys refitted on " + file);
  return text;
}

}  // namespace

int calibrate_profile(const ProfileCalibrateArgs& a, Context& ctx, Format format) {
  if (a.profile != "eager" && a.profile != "fused" && a.profile != "compiled")
    throw UsageError("--profile: fused, eager or compiled, not '" + a.profile + "'");
  if (a.card.empty()) throw UsageError("calibrate --profile: name the card whose calibration file carries the profile (--card)");
  const bool recorded = !a.from_probe.empty() || !a.from_kernels.empty();
  if (a.on_gpu == recorded)
    throw UsageError("calibrate --profile: either --on-gpu (measure here) or --from-probe / --from-kernels FILE (refit a "
                     "recorded measurement)");
  // What is measured: --only host,attention with --on-gpu (default: eager's host, the other profiles' attention);
  // what the recorded files are, without.
  bool host = !a.from_probe.empty(), attention = !a.from_kernels.empty();
  if (a.on_gpu) {
    const std::string parts = a.parts.empty() ? (a.profile == "eager" ? "host" : "attention") : a.parts;
    std::istringstream in(parts);
    for (std::string p; std::getline(in, p, ',');) {
      if (p == "host") host = true;
      else if (p == "attention") attention = true;
      else throw UsageError("--only with --profile: host and / or attention, not '" + p + "'");
    }
  }
  if (host && a.profile != "eager")
    throw UsageError("--profile " + a.profile + ": the host is measured for the eager profile only (a graph profile's host "
                     "is its graph launch: graph_call_host, fitted by validation/scripts/production/fit_graph_gap.py)");
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
  if (attention) text = refit_attention(a, ctx, card, base, out_path, text, r);
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
