// perfmodel validate --on-gpu and perfmodel calibrate --on-gpu: the CUDA backend measures the
// very ops build_step produced and prints predicted against measured.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/units.hpp"
#include "perfmodel/validation/validation.hpp"
#include "perfmodel/version.hpp"
#include "accuracy_report.hpp"
#include "gpu_device.hpp"
#include "gpu_profile.hpp"
#include "step_report.hpp"

namespace perfmodel::cli {

namespace v = perfmodel::validation;

void require_device() {
  std::string why;
  if (!v::device_available(&why)) throw UsageError(why.empty() ? "no CUDA device found" : why);
}

// The catalogue card for the device the backend sees (H200 -> h200 ...), unless --card names one.
std::string card_for_device(const v::DeviceInfo& d) {
  std::string n = d.name;
  std::transform(n.begin(), n.end(), n.begin(), ::tolower);
  if (n.find("h200") != std::string::npos) return "h200";
  if (n.find("h100") != std::string::npos) return n.find("pcie") != std::string::npos ? "h100-pcie" : "h100-sxm";
  if (n.find("h800") != std::string::npos) return "h800";
  if (n.find("a100") != std::string::npos) return n.find("40gb") != std::string::npos ? "a100-40gb-sxm" : "a100-80gb-sxm";
  if (n.find("l40s") != std::string::npos) return "l40s";
  if (n.find("l4") != std::string::npos) return "l4";
  if (n.find("4090") != std::string::npos) return "rtx-4090";
  if (n.find("4080") != std::string::npos) return "rtx-4080";
  if (n.find("3090") != std::string::npos) return "rtx-3090";
  if (n.find("t4") != std::string::npos) return "t4";
  if (n.find("b200") != std::string::npos) return "b200";
  throw UsageError("cannot tell the catalogue card of device '" + d.name + "'; pass --card");
}

namespace {

// The backend case that runs an op of a step at its exact shapes (nullopt: no such kernel).
std::optional<v::Case> case_for(const Op& op, const Workload& w) {
  const int64_t q = w.new_tokens_per_seq();
  v::Case c;
  c.name = op.name;
  c.dtype = op.dtype == DType::fp64 || op.dtype == DType::int8 ? DType::bf16 : op.dtype;  // types the backend lacks
  const auto& a = op.attention;
  switch (op.kernel) {
    case KernelId::gemm: c.kernel = KernelId::gemm; c.m = op.gemm.m; c.n = op.gemm.n; c.k = op.gemm.k; break;
    case KernelId::embedding: c.kernel = KernelId::embedding; c.rows = op.rows; c.cols = op.cols; c.vocab = op.vocab > 0 ? op.vocab : 32000; break;
    case KernelId::rmsnorm:
      c.kernel = KernelId::rmsnorm; c.rows = op.rows; c.cols = op.cols;
      c.residual = op.residual;
      break;
    case KernelId::layernorm:
      if (op.residual) return std::nullopt;  // no fused-residual LayerNorm kernel
      c.kernel = KernelId::layernorm; c.rows = op.rows; c.cols = op.cols;
      break;
    case KernelId::silu_mul: c.kernel = KernelId::silu_mul; c.rows = op.rows; c.cols = op.cols; break;
    case KernelId::gelu_fused: c.kernel = KernelId::gelu_fused; c.rows = op.rows; c.cols = op.cols; break;
    case KernelId::add: c.kernel = KernelId::add; c.rows = op.rows; c.cols = op.cols; break;
    case KernelId::copy: c.kernel = KernelId::copy; c.rows = op.rows; c.cols = op.cols; break;
    case KernelId::rotary:
      c.kernel = KernelId::rotary; c.batch = w.batch; c.q_len = q; c.heads = a.heads; c.kv_heads = a.kv_heads;
      c.head_dim = a.head_dim; c.kv_len = w.ctx; break;
    case KernelId::kv_append:
      c.kernel = KernelId::kv_append; c.batch = w.batch; c.q_len = q; c.kv_len = w.ctx; c.kv_heads = a.kv_heads;
      c.head_dim = a.head_dim; break;
    case KernelId::attention_decode:
      c.kernel = KernelId::attention_decode; c.batch = a.batch; c.heads = a.heads; c.kv_heads = a.kv_heads;
      c.q_len = 1; c.kv_len = a.kv_len; c.head_dim = a.head_dim; break;
    case KernelId::attention_prefill_fused:
      c.kernel = KernelId::attention_prefill_fused; c.batch = a.batch; c.heads = a.heads; c.kv_heads = a.kv_heads;
      c.q_len = a.q_len; c.kv_len = a.kv_len; c.head_dim = a.head_dim; c.causal = a.causal; break;
    default: return std::nullopt;
  }
  return c;
}


// Every result file records the device it was measured on (nvbench's habit).
Node device_node(const v::DeviceInfo& d) {
  Node n = Node::object();
  n.set("name", Node::text(d.name));
  n.set("sm_count", Node::integer(d.sm_count));
  n.set("l2_bytes", Node::integer(d.l2_bytes));
  n.set("memory_bytes", Node::integer(d.memory_bytes));
  n.set("compute_capability", Node::text(std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)));
  n.set("sm_clock_max_mhz", Node::integer(d.sm_clock_max_mhz));
  n.set("mem_clock_mhz", Node::integer(d.mem_clock_mhz));
  n.set("driver_version", Node::text(d.driver_version));
  n.set("runtime_version", Node::text(d.runtime_version));
  n.set("cublas_version", Node::text(d.cublas_version));
  return n;
}

struct GpuArgs {
  bool on_gpu = false;
  std::string suite, output, card;
  double max_seconds = 1.0;
};

void add_gpu(po::options_description& d, GpuArgs& g) {
  d.add_options()("on-gpu", po::bool_switch(&g.on_gpu), "run on the CUDA device (required)")(
      "output", po::value(&g.output), "write the full results (JSON) to this file")(
      "max-seconds", po::value(&g.max_seconds)->default_value(g.max_seconds),
      "time budget of the hot sampling loop per case (stops earlier at 0.5 % spread)");
}

std::string meta_json(const v::DeviceInfo& d, const std::string& card_key, const Context& ctx) {
  std::ostringstream o;
  o << "{\"schema_version\":" << kSchemaVersion << ",\"perfmodel_version\":\"" << kVersion << "\",\"git_sha\":\"" << kGitSha
    << "\",\"git_dirty\":" << (kGitDirty ? "true" : "false") << ",\"date\":\"" << today_utc() << "\",\"card\":\"" << card_key
    << "\",\"device\":" << v::device_info_json(d) << ",\"argv\":";
  Node argv = Node::array();  // escaped by the library's JSON writer, compact (indent 0)
  for (const std::string& a : ctx.argv) argv.push(Node::text(a));
  std::string list = to_json(argv, 0);
  list.pop_back();  // to_json ends with a newline
  o << list << "}";
  return o.str();
}

int run_suite(Context& ctx, const Loaded& l, const v::DeviceInfo& dev, const v::Options& opt, const GpuArgs& g,
              const std::string& format) {
  const std::vector<v::Case> cases = v::kernel_suite();
  std::ostringstream body;
  const auto t0 = std::chrono::steady_clock::now();
  int done = 0, wrong = 0;
  for (const v::Case& c : cases) {
    v::Result res = v::run_case(c, opt);
    if (!res.ok || !res.correct) ++wrong;
    body << (done ? ",\n" : "") << v::result_json(c, res);
    ++done;
    if (done % 10 == 0 || done == static_cast<int>(cases.size())) {
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      *ctx.err << "validate: " << done << "/" << cases.size() << " cases, " << wrong << " wrong, " << static_cast<int>(el)
               << " s\n";
    }
  }
  const std::string text = "{\"schema_version\":1,\"meta\":" + meta_json(dev, l.card.key, ctx) + ",\n\"cases\":[\n" +
                           body.str() + "\n]}\n";
  const std::string out = g.output.empty() ? "kernels.json" : g.output;
  write_text_file(out, text);
  Measurements m;
  load_measurements(out, m);
  const Roofs roofs = make_roofs(l.card, l.calibration ? &*l.calibration : nullptr);
  Catalogue cat(ctx.data_root);
  const auto errors = evaluate(m, roofs, [&](const std::string& key) { return cat.model(key); });
  Report r = accuracy_report(ctx, l, m, errors);
  r.notes.push_back("wrote " + out + " (" + std::to_string(done) + " cases, " + std::to_string(wrong) + " wrong)");
  emit(r, format, ctx);
  return wrong ? 1 : 0;
}

int validate_step(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  GpuArgs g;
  CardArgs card;
  card.card = "";
  WorkloadArgs wl;
  std::string format, phase = "decode", kernels = "production";
  add_gpu(d, g);
  d.add_options()("suite", po::value(&g.suite), "run a whole suite instead of one step: kernels");
  add_card(d, card);
  add_workload(d, wl);
  d.add_options()("phase", po::value(&phase)->default_value(phase), "decode or prefill")(
      "kernels", po::value(&kernels)->default_value(kernels),
      "production: the step in its profile's production kernels (--impl fused: the serving engine's, "
      "built by validation/scripts/production/fused_step.py; eager/compiled: Hugging Face transformers), "
      "run by a Python helper; backend: this project's own CUDA kernels, op by op and as one graph "
      "(a self-check of the backend, --impl fused only)");
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx,
             "perfmodel validate --on-gpu: runs every op of a step (or the kernel suite) on the GPU and prints "
             "predicted against measured",
             "perfmodel validate --on-gpu --model llama2-7b --phase decode --batch 16 --ctx 2048"))
    return 0;
  if (!g.on_gpu) throw UsageError("validate needs --on-gpu (it runs kernels on the CUDA device)");
  if (phase != "decode" && phase != "prefill") throw UsageError("--phase must be decode or prefill");
  if (!g.suite.empty() && g.suite != "kernels") throw UsageError("--suite must be 'kernels'");
  if (kernels != "production" && kernels != "backend")
    throw UsageError("--kernels must be production or backend, got '" + kernels + "'");
  if (kernels == "backend" && g.suite.empty() && wl.impl != "fused")
    throw UsageError("--kernels backend runs this project's own kernels, which only --impl fused prices");
  require_device();
  const v::DeviceInfo dev = v::device_info();
  if (card.card.empty()) card.card = card_for_device(dev);
  Loaded l = load_card(card, ctx);
  v::Options opt;
  opt.max_seconds_per_case = g.max_seconds;
  if (!g.suite.empty()) return run_suite(ctx, l, dev, opt, g, format);

  Model m = load_model(wl, ctx);
  // No --moe-config auto here: the production step (fused_step.py) runs vLLM's default fused_moe config, so the step is
  // priced at it unless --moe-config names a file.
  Workload w = make_workload(wl, phase == "decode" ? Phase::decode : Phase::prefill, l.card);
  // A StaticCache attends over all its slots: the compiled step is priced at ctx + 40 (hf_compiled.py STEPS).
  Workload priced = w;
  if (w.impl == Impl::compiled) priced.ctx = w.ctx + 40;
  // profile_step.py keeps the eager DynamicCache contiguous between steps, as generate() does.
  if (w.impl == Impl::eager) priced.eager_cache_cropped = false;
  PricedStep p = price_workload(m, priced, l, wl.mem_util);
  // The fused step's helper attends over a cache of exactly ctx slots (fused_step.py): priced at ctx.
  if (kernels == "production") return validate_profile_step(m, w, l, p, ctx, format);
  if (!p.analysis.memory.fits)
    throw InputError("batch " + std::to_string(w.batch) + " does not fit; the largest is " +
                     std::to_string(p.analysis.memory.max_batch));

  Report r;
  r.command = "validate";
  r.root.set("meta", make_meta("validate", ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(l));
  inputs.set("model", model_node(m));
  inputs.set("workload", workload_node(w));
  inputs.set("device", Node::text(dev.name));
  r.root.set("inputs", std::move(inputs));
  r.root.set("device", device_node(dev));
  Node rows = Node::array();
  std::vector<v::Case> sequence;
  double measured_sum = 0;
  for (size_t i = 0; i < p.step.ops.size(); ++i) {
    const Op& op = p.step.ops[i];
    const OpCost& c = p.cost.ops[i];
    Node row = op_node(op, c, p.cost.time_s);
    row.set("predicted_s", Node::number(c.time_s, Hint::time));
    auto vc = case_for(op, w);
    if (!vc) {
      row.set("measured_s", Node());
      row.set("status", Node::text("no kernel"));
      rows.push(std::move(row));
      continue;
    }
    *ctx.err << "validate: " << op.name << " (" << op_shape(op) << ")\n";
    v::Result res = v::run_case(*vc, opt);
    if (!res.ok || !res.correct) {
      row.set("measured_s", Node());
      row.set("status", Node::text("WRONG: " + res.error));
    } else {
      row.set("measured_s", Node::number(res.median_s, Hint::time));
      row.set("measured_q1_s", Node::number(res.q1_s, Hint::time));
      row.set("measured_q3_s", Node::number(res.q3_s, Hint::time));
      row.set("error", Node::number(c.time_s / res.median_s - 1, Hint::percent));
      row.set("status", Node::text(res.converged ? "ok" : res.stop_reason));
      measured_sum += res.median_s * static_cast<double>(op.count);
    }
    for (int64_t k = 0; k < op.count; ++k) sequence.push_back(*vc);
    rows.push(std::move(row));
  }
  r.root.set("ops", std::move(rows));
  *ctx.err << "validate: the whole step as one graph (" << sequence.size() << " kernels)\n";
  // Every distinct case was checked above; the sequence repeats them per layer.
  v::Options seq_opt = opt;
  seq_opt.check = false;
  v::Result whole = v::run_sequence(sequence, seq_opt);
  Node step = Node::object();
  step.set("predicted_s", Node::number(p.cost.time_s, Hint::time));
  step.set("measured_sum_s", Node::number(measured_sum, Hint::time));
  step.set("measured_graph_s", whole.ok ? Node::number(whole.median_s, Hint::time) : Node());
  // The graph replays for seconds: a sustained load, whose SM clock the power cap may lower.
  step.set("graph_sm_clock_mhz", whole.ok && whole.sm_clock_mhz_median > 0 ? Node::number(whole.sm_clock_mhz_median) : Node());
  step.set("graph_power_w", whole.ok && whole.power_w_median > 0 ? Node::number(whole.power_w_median) : Node());
  step.set("error_vs_graph", whole.ok ? Node::number(p.cost.time_s / whole.median_s - 1, Hint::percent) : Node());
  step.set("error_vs_sum", measured_sum > 0 ? Node::number(p.cost.time_s / measured_sum - 1, Hint::percent) : Node());
  r.root.set("step", std::move(step));
  r.fields.push_back({m.name + " " + phase + " b=" + std::to_string(w.batch) + " ctx=" + std::to_string(w.ctx) + " on " + dev.name,
                      "step",
                      {{"predicted_s", "step predicted", Hint::time},
                       {"measured_graph_s", "step measured (one graph replay)", Hint::time},
                       {"error_vs_graph", "error vs graph", Hint::percent},
                       {"measured_sum_s", "sum of measured ops", Hint::time},
                       {"error_vs_sum", "error vs sum", Hint::percent}}});
  r.tables.push_back({"per op (per instance)", "ops",
                      {{"name", "op", Hint::text},
                       {"shape", "shape", Hint::text},
                       {"count", "x", Hint::integer},
                       {"predicted_s", "predicted", Hint::time},
                       {"measured_s", "measured", Hint::time},
                       {"error", "error", Hint::percent},
                       {"bound", "bound", Hint::text},
                       {"status", "status", Hint::text}}});
  if (!g.output.empty()) write_text_file(g.output, to_json(r.root));
  emit(r, format, ctx);
  return 0;
}

}  // namespace

int cmd_validate(const std::vector<std::string>& args, Context& ctx) { return validate_step(args, ctx); }


}  // namespace perfmodel::cli
