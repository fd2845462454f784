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
#include "perfmodel/errors.hpp"
#include "python_helper.hpp"

namespace perfmodel::cli {

namespace {

int indent_of(const std::string& line) {
  const auto at = line.find_first_not_of(' ');
  return at == std::string::npos ? -1 : static_cast<int>(at);
}

bool is_key(const std::string& line, int indent, const std::string& key) {
  return indent_of(line) == indent && line.compare(static_cast<size_t>(indent), key.size() + 1, key + ":") == 0;
}

std::string us_text(double s) {
  std::ostringstream o;
  o.precision(4);
  o << std::fixed << s * 1e6 << " us";
  return o.str();
}

// The file's text with profiles: eager: <key> set (replaced where it is, else added first in the block;
// the block, and profiles:, added when absent).
std::string set_eager_key(const std::string& text, const std::string& key, double seconds, const std::string& why) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::string entry = "    " + key + ": " + us_text(seconds) + "   # " + why;
  size_t profiles = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (is_key(lines[i], 0, "profiles")) profiles = i;
  if (profiles == lines.size()) {
    lines.push_back("profiles:");
    lines.push_back("  eager:");
    lines.push_back(entry);
  } else {
    size_t eager = lines.size(), end = lines.size();
    for (size_t i = profiles + 1; i < lines.size(); ++i) {
      const int ind = indent_of(lines[i]);
      if (ind == 0 && lines[i][0] != '#') { end = i; break; }
      if (is_key(lines[i], 2, "eager")) eager = i;
    }
    if (eager == lines.size()) {
      lines.insert(lines.begin() + static_cast<long>(profiles) + 1, {"  eager:", entry});
    } else {
      // The key where it is; else after host_per_kernel (the host keys together), else first in the block.
      size_t found = lines.size(), after = eager;
      for (size_t i = eager + 1; i < end; ++i) {
        const int ind = indent_of(lines[i]);
        if (ind >= 0 && ind <= 2 && lines[i][static_cast<size_t>(ind)] != '#') break;
        if (is_key(lines[i], 4, key)) { found = i; break; }
        if (is_key(lines[i], 4, "host_per_kernel")) after = i;
      }
      if (found != lines.size()) lines[found] = entry;
      else lines.insert(lines.begin() + static_cast<long>(after) + 1, entry);
    }
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

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

}  // namespace

int calibrate_profile(const ProfileCalibrateArgs& a, Context& ctx, Format format) {
  if (a.profile != "eager")
    throw UsageError("--profile " + a.profile +
                     ": only the eager profile's host is measured here; the fused and compiled profiles' kernels are fitted "
                     "by validation/scripts/production/fit_profiles.py, fit_compiled.py and fit_gemm.py");
  if (a.card.empty()) throw UsageError("calibrate --profile: name the card whose calibration file carries the profile (--card)");
  if (a.on_gpu == !a.from_probe.empty())
    throw UsageError("calibrate --profile: either --on-gpu (measure this host) or --from-probe FILE (refit a recorded probe)");
  Catalogue cat(ctx.data_root);
  const Card card = cat.card(a.card);
  const std::string base = a.calibration.empty() ? cat.calibration_path(card.key) : a.calibration;
  if (!std::ifstream(base).good()) throw InputError(base + ": no calibration file to refit (calibrate --on-gpu writes one)");
  const std::string out_path = a.output.empty() ? base : a.output;

  std::string record = a.from_probe;
  if (a.on_gpu) {
    cat.model(a.probe_model);  // an unknown --probe-model is refused here, not by the helper's traceback
    for (char ch : a.probe_layers)
      if (!std::isdigit(static_cast<unsigned char>(ch)) && ch != ',')
        throw UsageError("--probe-layers: one or two comma-separated layer counts, not '" + a.probe_layers + "'");
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

  std::ifstream in(base);
  std::stringstream text;
  text << in.rdbuf();
  std::ostringstream why;
  why << "this host (calibrate --profile eager, " << today_utc() << "): " << probe.model << " b" << probe.batch << " ctx"
      << probe.ctx;
  for (size_t i = 0; i < probe.depths.size(); ++i)
    why << ", " << probe.depths[i].layers << " layers " << probe.depths[i].host_call_s * 1e3 << " ms / " << f.launches[i]
        << " priced launches";
  why << " (" << us_text(f.per_kernel_before_s) << " before)";
  std::string edited = set_eager_key(text.str(), "host_per_kernel", f.per_kernel_after_s, why.str());
  if (probe.depths.size() == 2)
    edited = set_eager_key(edited, "host_per_step", f.per_step_after_s,
                           "this host: the forward's own host outside its ops, from the two depths above");
  write_text_file(out_path, edited);
  // The file written must read back with the values fitted.
  const Calibration back = load_calibration(out_path);
  const ProfileCalibration* e = find_profile(back.profiles, "eager");
  if (!e || !e->host_per_kernel_s || std::abs(*e->host_per_kernel_s / f.per_kernel_after_s - 1) > 1e-3)
    throw InputError(out_path + ": the refitted host_per_kernel did not read back");

  Report r;
  r.command = "calibrate";
  r.root.set("meta", make_meta("calibrate", ctx.argv));
  Node n = Node::object();
  n.set("profile", Node::text("eager"));
  n.set("probe_model", Node::text(probe.model));
  n.set("probe_batch", Node::integer(probe.batch));
  n.set("probe_ctx", Node::integer(probe.ctx));
  n.set("host_per_kernel_before_s", Node::number(f.per_kernel_before_s, Hint::time));
  n.set("host_per_kernel_s", Node::number(f.per_kernel_after_s, Hint::time));
  n.set("host_per_step_before_s", Node::number(f.per_step_before_s, Hint::time));
  n.set("host_per_step_s", Node::number(f.per_step_after_s, Hint::time));
  n.set("scale", Node::number(f.scale, Hint::ratio));
  n.set("probe_file", Node::text(record));
  n.set("calibration_file", Node::text(out_path));
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
  r.notes.push_back("wrote " + out_path + " (profiles.eager host_per_kernel" +
                    std::string(probe.depths.size() == 2 ? " and host_per_step" : "") + "; every other key as it was)");
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
