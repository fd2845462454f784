// `perfmodel validate --on-gpu --impl fused|eager|compiled` (issue 10, item 5): the step in that
// profile's production kernels, measured by validation/scripts/production/profile_step.py on the
// GPU, against the profile's prediction: wall time against step.time_s, GPU kernel time against
// step.device_time_s, graph replay against step.time_s where the step is one graph. fused: the
// serving engine's kernels, the step built by hand (fused_step.py); eager/compiled: Hugging Face
// transformers (PyTorch eager, or torch.compile reduce-overhead). PyTorch stays out of the C++
// build: the helper is a Python process, as the device's PyTorch environment runs it.
#include "gpu_profile.hpp"
#include "python_helper.hpp"
#include "perfmodel/errors.hpp"
#include "step_report.hpp"

namespace perfmodel::cli {

int validate_profile_step(const Model& m, const Workload& w, const Loaded& l, const PricedStep& p, Context& ctx,
                          const std::string& format) {
  if (m.source_file.empty() || m.source_file.find("/models/") == std::string::npos)
    throw UsageError("validate --impl " + to_string(w.impl) +
                     ": the helper builds the model from the catalogue (models/<key>.yaml); pass a catalogue key");
  const std::string key = m.source_file.substr(m.source_file.rfind('/') + 1, m.source_file.size() - m.source_file.rfind('/') - 6);
  const std::string command = "cd '" + ctx.data_root + "' && python3 validation/scripts/production/profile_step.py --impl " +
                              to_string(w.impl) + " --model " + key + " --phase " + to_string(w.phase) + " --batch " +
                              std::to_string(w.batch) + " --ctx " + std::to_string(w.ctx) +
                              // flash_attention_2: every SDPA call held to its FlashAttention-2 backend (the same kernels)
                              (w.eager_flash_attention_2 ? " --sdpa-backend flash" : "");
  *ctx.err << "validate: " << command << "\n";
  // The helper's last line: "profile_step ok=1 wall_s=... kernel_s=... device_s=... kernels=...".
  const auto r = parse_helper_result(run_python_helper(command, "validate --impl"), "profile_step", {"ok", "wall_s", "kernel_s"},
                                     "validate --impl");
  const double wall = r.at("wall_s"), kernel = r.at("kernel_s");
  Report rep;
  rep.command = "validate";
  rep.root.set("meta", make_meta("validate", ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(l));
  inputs.set("model", model_node(m));
  inputs.set("workload", workload_node(w));
  rep.root.set("inputs", std::move(inputs));
  Node s = Node::object();
  s.set("impl", Node::text(to_string(w.impl)));
  s.set("ok", Node::boolean(r.at("ok") > 0));
  s.set("predicted_s", Node::number(p.cost.time_s, Hint::time));
  s.set("measured_wall_s", Node::number(wall, Hint::time));
  s.set("error_vs_wall", Node::number(wall > 0 ? p.cost.time_s / wall - 1 : 0, Hint::percent));
  s.set("predicted_device_s", Node::number(p.cost.device_time_s, Hint::time));
  s.set("measured_kernel_s", Node::number(kernel, Hint::time));
  s.set("error_vs_kernels", Node::number(kernel > 0 ? p.cost.device_time_s / kernel - 1 : 0, Hint::percent));
  if (r.count("device_s") && r.at("device_s") > 0) {
    s.set("measured_graph_s", Node::number(r.at("device_s"), Hint::time));
    s.set("error_vs_graph", Node::number(p.cost.time_s / r.at("device_s") - 1, Hint::percent));
  }
  s.set("predicted_launches", Node::integer(p.step.launches()));
  s.set("measured_kernels", Node::number(r.count("kernels") ? r.at("kernels") : 0, Hint::none));
  rep.root.set("step", std::move(s));
  std::vector<Column> f{{"predicted_s", "step predicted (wall)", Hint::time},
                        {"measured_wall_s", "step measured (wall)", Hint::time},
                        {"error_vs_wall", "error vs wall", Hint::percent},
                        {"predicted_device_s", "kernel time predicted", Hint::time},
                        {"measured_kernel_s", "kernel time measured (profiler sum)", Hint::time},
                        {"error_vs_kernels", "error vs kernels", Hint::percent}};
  if (r.count("device_s") && r.at("device_s") > 0)
    f.insert(f.begin() + 3, {{"measured_graph_s", "graph replay measured (CUDA events)", Hint::time},
                             {"error_vs_graph", "error vs graph replay", Hint::percent}});
  f.push_back({"predicted_launches", "kernels predicted", Hint::integer});
  f.push_back({"measured_kernels", "kernels measured", Hint::none});
  const std::string what = w.impl == Impl::fused ? "serving-engine kernels (fused_step.py), one CUDA graph"
                                                  : "Hugging Face transformers";
  rep.fields.push_back({m.name + " " + to_string(w.phase) + " b=" + std::to_string(w.batch) + " ctx=" +
                            std::to_string(w.ctx) + ", " + what + ", profile " + to_string(w.impl),
                        "step", f});
  emit(rep, format, ctx);
  return r.at("ok") > 0 ? 0 : 1;
}

}  // namespace perfmodel::cli
