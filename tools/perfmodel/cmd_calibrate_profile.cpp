// `perfmodel calibrate --profile eager`: the eager profile's host rate measured on this machine (issue 10,
// item 2: what a profile's kernels and framework cost is the profile's, measured where it runs). The card's
// roofs are `calibrate --on-gpu`'s; this measures the host that issues transformers' eager step
// (validation/scripts/production/profile_host.py, a PyTorch process) and refits host_per_kernel so that the
// probe's step, as perfmodel lowers and prices it, takes the host time measured (eager_host_fit.hpp). The
// calibration file is edited in place of that one key (its comments and every other key kept).
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
      size_t found = lines.size();
      for (size_t i = eager + 1; i < end; ++i) {
        const int ind = indent_of(lines[i]);
        if (ind >= 0 && ind <= 2 && lines[i][static_cast<size_t>(ind)] != '#') break;
        if (is_key(lines[i], 4, key)) { found = i; break; }
      }
      if (found != lines.size()) lines[found] = entry;
      else lines.insert(lines.begin() + static_cast<long>(eager) + 1, entry);
    }
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

HostProbe probe_from_json(const std::string& path) {
  YAML::Node j;
  try {
    j = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    throw InputError(path + ": cannot read the probe record: " + e.what());
  }
  HostProbe p;
  auto need = [&](const char* k) {
    if (!j[k]) throw InputError(path + ": field '" + std::string(k) + "' missing (profile_host.py --out writes it)");
    return j[k];
  };
  try {
    p.model = need("model").as<std::string>();
    p.layers = need("layers").as<int64_t>();
    p.batch = need("batch").as<int64_t>();
    p.ctx = need("ctx").as<int64_t>();
    p.host_call_s = need("host_call_s").as<double>();
    p.wall_s = j["wall_s"] ? j["wall_s"].as<double>() : 0;
    p.kernels = j["kernels"] ? j["kernels"].as<double>() : 0;
    if (j["ok"] && j["ok"].as<int>() != 1) throw InputError(path + ": field 'ok': the probe's step did not check out");
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
  if (a.probe_layers < 1) throw UsageError("--probe-layers: at least 1");
  Catalogue cat(ctx.data_root);
  const Card card = cat.card(a.card);
  const std::string base = a.calibration.empty() ? cat.calibration_path(card.key) : a.calibration;
  if (!std::ifstream(base).good()) throw InputError(base + ": no calibration file to refit (calibrate --on-gpu writes one)");
  const std::string out_path = a.output.empty() ? base : a.output;

  HostProbe probe;
  std::string record = a.from_probe;
  if (a.on_gpu) {
    record = a.probe_out.empty() ? out_path + ".host-probe.json" : a.probe_out;
    const std::string command = "cd '" + ctx.data_root + "' && python3 validation/scripts/production/profile_host.py --model " +
                                a.probe_model + " --layers " + std::to_string(a.probe_layers) + " --out '" + record + "'";
    *ctx.err << "calibrate: " << command << "\n";
    parse_helper_result(run_python_helper(command, "calibrate --profile eager"), "profile_host", {"ok", "host_call_s"},
                        "calibrate --profile eager");
  }
  probe = probe_from_json(record);
  const Model model = cat.model(probe.model);
  Calibration cal = load_calibration(base);
  if (const ProfileCalibration* e = find_profile(cal.profiles, "eager"); e && e->host_per_aten_s)
    throw UsageError(base + ": profiles.eager prices ATen calls (host_per_aten); calibrate --profile refits host_per_kernel only");
  const EagerHostFit f = fit_eager_host(model, probe, card, cal);

  std::ifstream in(base);
  std::stringstream text;
  text << in.rdbuf();
  std::ostringstream why;
  why << "this host (calibrate --profile eager, " << today_utc() << "): " << probe.model << " cut to " << probe.layers
      << " layers, b" << probe.batch << " ctx" << probe.ctx << ", host " << probe.host_call_s * 1e3 << " ms over "
      << f.launches << " priced launches (" << us_text(f.per_kernel_before_s) << " before)";
  write_text_file(out_path, set_eager_key(text.str(), "host_per_kernel", f.per_kernel_after_s, why.str()));
  // The file written must read back with the value fitted.
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
  n.set("probe_layers", Node::integer(probe.layers));
  n.set("probe_batch", Node::integer(probe.batch));
  n.set("probe_ctx", Node::integer(probe.ctx));
  n.set("host_call_s", Node::number(probe.host_call_s, Hint::time));
  n.set("wall_s", Node::number(probe.wall_s, Hint::time));
  n.set("kernels_measured", Node::number(probe.kernels, Hint::none));
  n.set("launches_priced", Node::integer(f.launches));
  n.set("host_priced_before_s", Node::number(f.host_before_s, Hint::time));
  n.set("views_s", Node::number(f.fixed_s, Hint::time));
  n.set("host_per_kernel_before_s", Node::number(f.per_kernel_before_s, Hint::time));
  n.set("host_per_kernel_s", Node::number(f.per_kernel_after_s, Hint::time));
  n.set("scale", Node::number(f.scale, Hint::ratio));
  n.set("probe_file", Node::text(record));
  n.set("calibration_file", Node::text(out_path));
  r.root.set("host", std::move(n));
  r.fields.push_back({"eager host on this machine (" + card.name + ")", "host",
                      {{"probe_model", "probe: transformers class of", Hint::text},
                       {"probe_layers", "probe: decoder layers", Hint::integer},
                       {"host_call_s", "probe step's host time (GPU kept busy)", Hint::time},
                       {"wall_s", "probe step's wall", Hint::time},
                       {"kernels_measured", "kernels a step (profiler)", Hint::none},
                       {"launches_priced", "kernels a step (perfmodel)", Hint::integer},
                       {"host_priced_before_s", "host priced before", Hint::time},
                       {"host_per_kernel_before_s", "host_per_kernel before", Hint::time},
                       {"host_per_kernel_s", "host_per_kernel now", Hint::time},
                       {"scale", "this host / before", Hint::ratio}}});
  r.notes.push_back("wrote " + out_path + " (profiles.eager.host_per_kernel; every other key as it was)");
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
