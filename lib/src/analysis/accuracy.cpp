#include "perfmodel/accuracy.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/kernel.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "perfmodel/errors.hpp"
#include "perfmodel/step.hpp"
#include "catalogue/yaml_reader.hpp"

namespace fs = std::filesystem;

namespace perfmodel {

namespace {

int64_t get_int(const YAML::Node& n, const char* key) { return n[key] ? n[key].as<int64_t>() : 0; }

void load_one(const std::string& path, Measurements& into) try {
  YAML::Node root = detail::load_file(path);
  if (!root.IsMap()) throw ConfigError(path, 0, 0, "", "expected a JSON object");
  into.files.push_back(path);
  if (root["meta"] && root["meta"]["card"] && into.card.empty()) into.card = root["meta"]["card"].as<std::string>();
  if (root["meta"] && root["meta"]["device"] && root["meta"]["device"]["name"] && into.device.empty())
    into.device = root["meta"]["device"]["name"].as<std::string>();
  if (root["cases"]) {
    int case_index = -1;
    for (const auto& c : root["cases"]) {
      ++case_index;
      if (!c["ok"] || !c["ok"].as<bool>() || !c["correct"] || !c["correct"].as<bool>()) continue;
      const std::string kname = c["kernel"].as<std::string>();
      auto k = kernel_from_string(kname);
      if (!k || !c["measured_s"] || c["measured_s"].IsNull()) continue;
      MeasuredCase mc;
      KernelCase& kc = mc.kernel;
      kc.name = c["name"] ? c["name"].as<std::string>() : kname;
      kc.kernel = *k;
      auto dt = dtype_from_string(c["dtype"].as<std::string>());
      if (!dt) continue;
      kc.dtype = *dt;
      kc.m = get_int(c, "m"), kc.n = get_int(c, "n"), kc.k = get_int(c, "k");
      kc.rows = get_int(c, "rows"), kc.cols = get_int(c, "cols"), kc.vocab = get_int(c, "vocab");
      kc.batch = get_int(c, "batch"), kc.heads = get_int(c, "heads"), kc.kv_heads = get_int(c, "kv_heads");
      kc.q_len = get_int(c, "q_len"), kc.kv_len = get_int(c, "kv_len"), kc.head_dim = get_int(c, "head_dim");
      kc.causal = c["causal"] && c["causal"].as<bool>();
      kc.residual = c["residual"] && c["residual"].as<bool>();
      kc.l2_resident = c["l2_resident"] && c["l2_resident"].as<bool>();
      if (c["rotated_bytes"] && !c["rotated_bytes"].IsNull()) kc.rotated_bytes = c["rotated_bytes"].as<double>();
      mc.measured_s = c["measured_s"].as<double>();
      // Production kernels (issue 10): which implementation ran, and the case's place in the file
      // (the profile fit takes the even ones).
      if (c["implementation"] && c["implementation"].IsScalar()) mc.implementation = c["implementation"].as<std::string>();
      mc.index = case_index;
      if (!std::isfinite(mc.measured_s)) throw ConfigError(path, c["measured_s"].Mark().line + 1, 0, "measured_s", "not a finite time");
      if (mc.measured_s > 0) into.cases.push_back(mc);
    }
  }
  if (root["step"] && root["inputs"] && root["step"]["measured_graph_s"] && !root["step"]["measured_graph_s"].IsNull()) {
    MeasuredStep s;
    const YAML::Node in = root["inputs"];
    s.model = in["model"]["key"].as<std::string>();
    const YAML::Node w = in["workload"];
    s.workload.phase = w["phase"].as<std::string>() == "prefill" ? Phase::prefill : Phase::decode;
    s.workload.batch = w["batch"].as<int64_t>();
    s.workload.ctx = w["ctx"].as<int64_t>();
    if (auto t = dtype_from_string(w["act_dtype"].as<std::string>())) s.workload.act_dtype = *t;
    if (auto t = dtype_from_string(w["weight_dtype"].as<std::string>())) s.workload.weight_dtype = *t;
    if (auto t = dtype_from_string(w["kv_dtype"].as<std::string>())) s.workload.kv_dtype = *t;
    const std::string impl = w["impl"].as<std::string>();
    s.workload.impl = impl == "eager" ? Impl::eager : impl == "compiled" ? Impl::compiled : Impl::fused;
    s.measured_s = root["step"]["measured_graph_s"].as<double>();
    if (root["meta"] && root["inputs"]["card"] && into.card.empty())
      into.card = root["inputs"]["card"]["key"].as<std::string>();
    into.steps.push_back(s);
  }
} catch (const YAML::Exception& e) {  // a missing or mistyped field (issue 14: exit 1 without the file)
  throw ConfigError(path, e.mark.line + 1, e.mark.column + 1, "", e.msg);
}

}  // namespace

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos)), hi = static_cast<size_t>(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

void load_measurements(const std::string& path, Measurements& into) {
  if (fs::is_directory(path)) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(path))
      // calibration*.json are the fit's inputs, selftest.json the backend's correctness checks
      // (few samples): none is part of the accuracy data set.
      if (e.is_regular_file() && e.path().extension() == ".json" &&
          e.path().filename().string().rfind("calibration", 0) != 0 && e.path().filename() != "selftest.json")
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) load_one(f, into);
    return;
  }
  if (!fs::exists(path)) throw InputError("measurement file '" + path + "' does not exist");
  try {
    load_one(path, into);
  } catch (const YAML::Exception& e) {
    throw ConfigError(path, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
}

std::string accuracy_set(KernelId k) { return std::string(kernel_def(k).accuracy_set); }

std::vector<CaseError> evaluate(const Measurements& m, const Roofs& roofs,
                                const std::function<Model(const std::string&)>& model_lookup) {
  std::vector<CaseError> out;
  for (const MeasuredCase& c : m.cases) {
    Op op;
    try {
      op = to_op_on(c.kernel, roofs.l2_cyclic_capacity);
    } catch (const InputError&) {
      continue;
    }
    const double predicted = price(op, roofs, Impl::fused).time_s;
    CaseError e{accuracy_set(c.kernel.kernel), c.kernel.name, to_string(c.kernel.kernel), predicted, c.measured_s,
                predicted / c.measured_s - 1};
    out.push_back(e);
  }
  for (const MeasuredStep& s : m.steps) {
    Model model = model_lookup(s.model);
    const StepCost cost = evaluate(model, s.workload, roofs, {.with_ttft = false}).cost;
    CaseError e{"step",
                s.model + " " + to_string(s.workload.phase) + " b" + std::to_string(s.workload.batch) + " ctx" +
                    std::to_string(s.workload.ctx),
                "step", cost.time_s, s.measured_s, cost.time_s / s.measured_s - 1};
    out.push_back(e);
  }
  return out;
}

std::vector<SetStats> summarize(const std::vector<CaseError>& errors) {
  std::vector<SetStats> out;
  for (const char* set : {"gemm", "elementwise", "attention", "step"}) {
    SetStats s;
    s.set = set;
    std::vector<double> abs;
    std::vector<CaseError> mine;
    double sum = 0;
    for (const CaseError& e : errors) {
      if (e.set != set) continue;
      abs.push_back(std::fabs(e.error));
      sum += e.error;
      mine.push_back(e);
    }
    s.cases = static_cast<int>(abs.size());
    if (s.cases == 0) continue;
    s.median_abs = percentile(abs, 0.5);
    s.p90_abs = percentile(abs, 0.9);
    s.mean_signed = sum / s.cases;
    std::sort(mine.begin(), mine.end(), [](const CaseError& a, const CaseError& b) { return std::fabs(a.error) > std::fabs(b.error); });
    mine.resize(std::min<size_t>(5, mine.size()));
    s.worst = mine;
    out.push_back(s);
  }
  return out;
}

}  // namespace perfmodel
