// `calibrate --profile eager --only host` (cmd_calibrate_host.hpp): the probe's processes measured or read, their
// median fitted, each process's spread reported.
#include "cmd_calibrate_host.hpp"

#include <algorithm>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "perfmodel/eager_host_fit.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/host_probe_set.hpp"
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

// A record's path for process k of n: the name itself for one process, <stem>.<k>.json for several.
std::string process_record(const std::string& path, int64_t k, int64_t n) {
  if (n == 1) return path;
  const std::string stem = path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0 ? path.substr(0, path.size() - 5) : path;
  return stem + "." + std::to_string(k) + ".json";
}

}  // namespace

// The host part (eager): the probe measured in --probe-processes processes or read from each --from-probe record,
// the depths' medians taken (host_probe_set.hpp), host_per_kernel (and host_per_step) refitted; `text` edited.
std::string refit_host(const ProfileCalibrateArgs& a, Context& ctx, const Catalogue& cat, const Card& card,
                       const std::string& base, const std::string& out_path, std::string text, Report& r) {
  std::vector<std::string> records = a.from_probe;
  if (a.on_gpu) {
    records.clear();
    const std::string path = a.probe_out.empty() ? out_path + ".host-probe.json" : a.probe_out;
    for (int64_t k = 1; k <= a.probe_processes; ++k) {
      const std::string record = process_record(path, k, a.probe_processes);
      const std::string command = "cd '" + ctx.data_root + "' && python3 validation/scripts/production/profile_host.py --model " +
                                  a.probe_model + " --layers " + a.probe_layers + " --out '" + record + "'";
      *ctx.err << "calibrate: host probe, process " << k << " of " << a.probe_processes << ": " << command << "\n";
      parse_helper_result(run_python_helper(command, "calibrate --profile eager"), "profile_host", {"ok"}, "calibrate --profile eager");
      records.push_back(record);
    }
  }
  std::vector<HostProbe> probes;
  for (const std::string& record : records) probes.push_back(probe_from_json(record));
  const HostProbeSet set = combine_probes(probes, records);
  const HostProbe& probe = set.median;
  std::string record;
  for (const std::string& f : records) record += (record.empty() ? "" : ", ") + f;
  const double slowest = *std::max_element(set.ratios.begin(), set.ratios.end());
  const double fastest = *std::min_element(set.ratios.begin(), set.ratios.end());
  const Model model = cat.model(probe.model);
  Calibration cal = load_calibration(base);
  const EagerHostFit f = fit_eager_host(model, probe, card, cal);
  std::ostringstream why;
  why << "this host (calibrate --profile eager, " << today_utc() << "): " << probe.model << " b" << probe.batch << " ctx"
      << probe.ctx;
  if (probes.size() > 1)
    why << ", the median of " << probes.size() << " processes (" << format_value(Node::number(fastest), Hint::ratio) << "-"
        << format_value(Node::number(slowest), Hint::ratio) << "x it by process)";
  for (size_t i = 0; i < probe.depths.size(); ++i)
    why << ", " << probe.depths[i].layers << " layers " << probe.depths[i].host_call_s * 1e3 << " ms / " << f.launches[i]
        << " priced launches";
  const std::string rate_key = f.per_aten ? "host_per_aten" : "host_per_kernel";
  why << " (" << us_text(f.per_aten ? f.per_aten_before_s : f.per_kernel_before_s) << " before)";
  text = set_profile_key(text, "eager", rate_key, us_text(f.per_aten ? f.per_aten_after_s : f.per_kernel_after_s), why.str());
  if (f.per_aten)
    text = set_profile_key(text, "eager", "host_per_aten_view", us_text(f.per_aten_after_s * f.view_ratio),
                           "this host: host_per_aten at its ratio before", "host_per_aten");
  if (probe.depths.size() == 2)
    text = set_profile_key(text, "eager", "host_per_step", us_text(f.per_step_after_s),
                           "this host: the forward's own host outside its ops, from the two depths above", rate_key);

  Node n = Node::object();
  n.set("probe_model", Node::text(probe.model));
  n.set("probe_batch", Node::integer(probe.batch));
  n.set("probe_ctx", Node::integer(probe.ctx));
  n.set("host_per_kernel_before_s", Node::number(f.per_kernel_before_s, Hint::time));
  n.set("host_per_kernel_s", Node::number(f.per_kernel_after_s, Hint::time));
  n.set("rate_key", Node::text(rate_key));
  n.set("host_per_aten_before_s", Node::number(f.per_aten_before_s, Hint::time));
  n.set("host_per_aten_s", Node::number(f.per_aten_after_s, Hint::time));
  n.set("host_per_step_before_s", Node::number(f.per_step_before_s, Hint::time));
  n.set("host_per_step_s", Node::number(f.per_step_after_s, Hint::time));
  n.set("scale", Node::number(f.scale, Hint::ratio));
  n.set("probe_file", Node::text(record));
  n.set("processes_count", Node::integer(static_cast<int64_t>(probes.size())));
  n.set("process_ratio_min", Node::number(fastest, Hint::ratio));
  n.set("process_ratio_max", Node::number(slowest, Hint::ratio));
  Node processes = Node::array();
  for (size_t i = 0; i < probes.size(); ++i) {
    Node p = Node::object();
    p.set("probe_file", Node::text(records[i]));
    p.set("host_call_s", Node::number(probes[i].depths.front().host_call_s, Hint::time));
    p.set("ratio", Node::number(set.ratios[i], Hint::ratio));
    processes.push(std::move(p));
  }
  n.set("processes", std::move(processes));
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
                      {{rate_key + "_before_s", rate_key + " before", Hint::time},
                       {rate_key + "_s", rate_key + " now", Hint::time},
                       {"host_per_step_before_s", "host_per_step before", Hint::time},
                       {"host_per_step_s", "host_per_step now", Hint::time},
                       {"scale", rate_key + " now / before", Hint::ratio},
                       {"processes_count", "processes probed (their median fitted)", Hint::integer},
                       {"process_ratio_min", "fastest process / median", Hint::ratio},
                       {"process_ratio_max", "slowest process / median", Hint::ratio}}});
  r.tables.push_back({"the probe's steps (GPU kept busy: the host alone)", "host.depths",
                      {{"layers", "layers", Hint::integer},
                       {"host_call_s", "host measured", Hint::time},
                       {"wall_s", "wall measured", Hint::time},
                       {"kernels_measured", "kernels (profiler)", Hint::none},
                       {"launches_priced", "kernels (perfmodel)", Hint::integer},
                       {"host_priced_before_s", "host priced before", Hint::time},
                       {"host_priced_after_s", "host priced now", Hint::time}}});
  if (probes.size() > 1) {
    r.tables.push_back({"each process's probe (the first depth; ratio: its host over the median's, every depth)",
                        "host.processes",
                        {{"probe_file", "record", Hint::text},
                         {"host_call_s", "host measured", Hint::time},
                         {"ratio", "/ median", Hint::ratio}}});
    // A fifth either side: past it one process's eager wall strays from the prediction more than issue 10's 20 %.
    if (slowest / fastest > 1.2)
      r.notes.push_back("this host's pace changes from process to process (" + format_value(Node::number(fastest), Hint::ratio) +
                        "-" + format_value(Node::number(slowest), Hint::ratio) +
                        "x the median process's): the refit prices the median process; one process's eager host may be that "
                        "far from it (validation/results/h200-heldout32/cores: not the vCPU, not steal time)");
  } else {
    r.notes.push_back("one process probed: the host's pace changes from process to process (2.5x over 28 processes on one "
                      "H200 lease); --probe-processes 5 (the default) fits their median");
  }
  r.notes.push_back("profiles.eager: " + rate_key + (f.per_aten ? " (and host_per_aten_view)" : "") +
                    std::string(probe.depths.size() == 2 ? " and host_per_step" : "") +
                    " refitted on " + record);
  return text;
}

}  // namespace perfmodel::cli
