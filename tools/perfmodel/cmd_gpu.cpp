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
#include <thread>

#include "commands.hpp"
#include "perfmodel/calibration_fit.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/units.hpp"
#include "perfmodel/validation/validation.hpp"
#include "perfmodel/version.hpp"
#include "accuracy_report.hpp"
#include "step_report.hpp"

namespace perfmodel::cli {

namespace v = perfmodel::validation;

namespace {

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

v::Dtype to_v(DType t) {
  switch (t) {
    case DType::fp32: return v::Dtype::fp32;
    case DType::tf32: return v::Dtype::tf32;
    case DType::fp16: return v::Dtype::fp16;
    case DType::fp8: return v::Dtype::fp8;
    default: return v::Dtype::bf16;
  }
}

// The backend case that runs an op of a step at its exact shapes (nullopt: no such kernel).
std::optional<v::Case> case_for(const Op& op, const Workload& w) {
  const int64_t q = w.new_tokens_per_seq();
  v::Case c;
  c.name = op.name;
  c.dtype = to_v(op.dtype);
  const auto& a = op.attention;
  switch (op.kernel) {
    case KernelId::gemm: c.kernel = v::Kernel::gemm; c.m = op.gemm.m; c.n = op.gemm.n; c.k = op.gemm.k; break;
    case KernelId::embedding: c.kernel = v::Kernel::embedding; c.rows = op.rows; c.cols = op.cols; c.vocab = op.vocab > 0 ? op.vocab : 32000; break;
    case KernelId::rmsnorm:
      c.kernel = v::Kernel::rmsnorm; c.rows = op.rows; c.cols = op.cols;
      c.residual = op.residual;
      break;
    case KernelId::layernorm:
      if (op.residual) return std::nullopt;  // no fused-residual LayerNorm kernel
      c.kernel = v::Kernel::layernorm; c.rows = op.rows; c.cols = op.cols;
      break;
    case KernelId::silu_mul: c.kernel = v::Kernel::silu_mul; c.rows = op.rows; c.cols = op.cols; break;
    case KernelId::gelu_fused: c.kernel = v::Kernel::gelu_fused; c.rows = op.rows; c.cols = op.cols; break;
    case KernelId::add: c.kernel = v::Kernel::add; c.rows = op.rows; c.cols = op.cols; break;
    case KernelId::copy: c.kernel = v::Kernel::copy; c.rows = op.rows; c.cols = op.cols; break;
    case KernelId::rotary:
      c.kernel = v::Kernel::rotary; c.batch = w.batch; c.q_len = q; c.heads = a.heads; c.kv_heads = a.kv_heads;
      c.head_dim = a.head_dim; c.kv_len = w.ctx; break;
    case KernelId::kv_append:
      c.kernel = v::Kernel::kv_append; c.batch = w.batch; c.q_len = q; c.kv_len = w.ctx; c.kv_heads = a.kv_heads;
      c.head_dim = a.head_dim; break;
    case KernelId::attention_decode:
      c.kernel = v::Kernel::attention_decode; c.batch = a.batch; c.heads = a.heads; c.kv_heads = a.kv_heads;
      c.q_len = 1; c.kv_len = a.kv_len; c.head_dim = a.head_dim; break;
    case KernelId::attention_prefill_fused:
      c.kernel = v::Kernel::attention_prefill_fused; c.batch = a.batch; c.heads = a.heads; c.kv_heads = a.kv_heads;
      c.q_len = a.q_len; c.kv_len = a.kv_len; c.head_dim = a.head_dim; c.causal = a.causal; break;
    default: return std::nullopt;
  }
  return c;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) o += ch == '"' ? std::string("\\\"") : ch == '\\' ? std::string("\\\\") : std::string(1, ch);
  return o;
}

}  // namespace

namespace {

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
    << "\",\"device\":" << v::device_info_json(d) << ",\"argv\":[";
  for (size_t i = 0; i < ctx.argv.size(); ++i) o << (i ? "," : "") << "\"" << json_escape(ctx.argv[i]) << "\"";
  o << "]}";
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
  std::string format, phase = "decode";
  add_gpu(d, g);
  d.add_options()("suite", po::value(&g.suite), "run a whole suite instead of one step: kernels");
  add_card(d, card);
  add_workload(d, wl);
  d.add_options()("phase", po::value(&phase)->default_value(phase), "decode or prefill");
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
  require_device();
  const v::DeviceInfo dev = v::device_info();
  if (card.card.empty()) card.card = card_for_device(dev);
  Loaded l = load_card(card, ctx);
  v::Options opt;
  opt.max_seconds_per_case = g.max_seconds;
  if (!g.suite.empty()) return run_suite(ctx, l, dev, opt, g, format);

  Model m = load_model(wl, ctx);
  Workload w = make_workload(wl, phase == "decode" ? Phase::decode : Phase::prefill, l.card);
  if (w.impl != Impl::fused) throw UsageError("validate runs the fused profile (the backend has no eager kernels)");
  PricedStep p = price_workload(m, w, l, wl.mem_util);
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


namespace {

// Tiny launches of each small kernel, hot in L2 (one buffer set), at shapes the kernel suite does
// not hold: what they take beyond a copy of the same bytes is the thread's dependent chain
// (calibration_fit.cpp, "thread_chain").
std::vector<v::Case> thread_chain_cases() {
  std::vector<v::Case> out;
  auto add = [&](v::Kernel k, int64_t n) {
    v::Case c;
    c.kernel = k;
    c.l2_resident = true;
    switch (k) {
      case v::Kernel::rotary:
        c.batch = 1, c.q_len = n, c.kv_len = n, c.heads = 32, c.kv_heads = 8, c.head_dim = 128, c.rows = n;
        break;
      case v::Kernel::kv_append:
        c.batch = 1, c.q_len = n, c.kv_len = n, c.heads = 32, c.kv_heads = 8, c.head_dim = 128;
        break;
      case v::Kernel::embedding:
        c.rows = n, c.cols = 4096, c.vocab = 32000;
        break;
      default:
        c.rows = n, c.cols = 4096;
    }
    c.name = "thread_chain_" + v::to_string(k) + "_" + std::to_string(n);
    out.push_back(c);
  };
  for (v::Kernel k : {v::Kernel::copy, v::Kernel::add, v::Kernel::gelu_fused, v::Kernel::gelu_unfused,
                      v::Kernel::silu_mul, v::Kernel::rmsnorm, v::Kernel::layernorm, v::Kernel::softmax_fused,
                      v::Kernel::softmax_naive, v::Kernel::rotary, v::Kernel::kv_append, v::Kernel::embedding})
    for (int64_t n : {3, 6}) add(k, n);
  return out;
}

}  // namespace

RawCalibration measure_calibration(Context& ctx, std::string& key, const std::string& raw_out,
                                   const std::vector<std::string>& only) {
  require_device();
  const v::DeviceInfo dev = v::device_info();
  if (key.empty()) key = card_for_device(dev);
  auto want = [&](const char* section) { return only.empty() || std::find(only.begin(), only.end(), section) != only.end(); };
  v::Options opt;
  v::CalibrationData data;
  data.device = dev;
  if (want("roofs"))
    data = v::collect_calibration(opt, [&](const std::string& msg) { *ctx.err << "calibrate: " << msg << "\n"; });
  // The flash attention kernel's throughput at a large causal prefill (its own roof).
  v::Case att;
  att.name = "attention_peak";
  att.kernel = v::Kernel::attention_prefill_fused;
  using A = CalibrationAttentionCase;
  att.batch = A::batch, att.heads = A::heads, att.kv_heads = A::kv_heads, att.q_len = A::seq, att.kv_len = A::seq;
  att.head_dim = A::head_dim;
  att.causal = true;
  std::string json = v::calibration_json(data);
  std::string extra;
  char buf[512];
  if (want("attention")) *ctx.err << "calibrate: flash attention throughput\n";
  const v::Result ar = want("attention") ? v::run_case(att, opt) : v::Result{};
  if (ar.ok && ar.correct && ar.median_s > 0) {
    const double flops = 4.0 * A::batch * A::heads * A::head_dim * (A::seq * (A::seq + 1.0) / 2.0);
    std::snprintf(buf, sizeof buf, "{\"what\":\"attention_peak\",\"dtype\":\"bf16\",\"flops\":%.9g,\"seconds\":%.9g}", flops, ar.median_s);
    extra += buf;
  }
  // The same kernel at a smaller head dim and on short sequences (shapes outside the kernel
  // suite): what of a tile's time does not scale with the head dim (the softmax), and what a
  // CTA pays once (its Q tile in, its O tile out) (calibration_fit.cpp, "attention_shape").
  const std::vector<std::array<int64_t, 5>> att_shapes{{4, 32, 4, 4096, 64}, {16, 32, 8, 384, 128}, {16, 32, 4, 384, 64}};
  for (const auto& [b, h, kvh, seq, d] : att_shapes) {
    if (!want("attention")) break;
    v::Case a = att;
    a.name = "attention_shape";
    a.batch = b, a.heads = h, a.kv_heads = kvh, a.q_len = seq, a.kv_len = seq, a.head_dim = d;
    const v::Result r = v::run_case(a, opt);
    if (!r.ok || !r.correct) continue;
    std::snprintf(buf, sizeof buf,
                  "{\"what\":\"attention_shape\",\"dtype\":\"bf16\",\"batch\":%lld,\"heads\":%lld,\"kv_heads\":%lld,"
                  "\"q_len\":%lld,\"kv_len\":%lld,\"head_dim\":%lld,\"causal\":true,\"seconds\":%.9g}",
                  static_cast<long long>(b), static_cast<long long>(h), static_cast<long long>(kvh), static_cast<long long>(seq),
                  static_cast<long long>(seq), static_cast<long long>(d), r.median_s);
    *ctx.err << "calibrate: attention b" << b << " h" << h << "/" << kvh << " s" << seq << " d" << d << ": " << r.median_s * 1e6 << " us\n";
    extra += (extra.empty() ? "" : ",") + std::string(buf);
  }
  // Weight-streaming GEMMs over the reduction depth K and the output width N: what the GEMM's
  // fixed cost depends on (the M ramp of collect_calibration holds K and N at 4096).
  if (want("gemm")) *ctx.err << "calibrate: GEMM K and N ramps\n";
  const std::vector<std::array<int64_t, 3>> ramp{{1, 4096, 512},  {1, 4096, 1024}, {1, 4096, 2048},
                                                 {1, 4096, 8192}, {1, 4096, 16384}, {16, 4096, 8192},
                                                 {1, 1024, 4096}, {1, 16384, 4096}, {1, 65536, 4096},
                                                 {64, 96, 256},   {1, 512, 1024}};
  for (const auto& [m, n, k] : ramp) {
    if (!want("gemm")) break;
    v::Case g;
    g.name = "gemm_k_ramp";
    g.kernel = v::Kernel::gemm;
    g.m = m, g.n = n, g.k = k;
    v::Result gr = v::run_case(g, opt);
    if (!gr.ok || !gr.correct) continue;
    std::snprintf(buf, sizeof buf, "{\"what\":\"gemm_k_ramp\",\"dtype\":\"bf16\",\"m\":%lld,\"n\":%lld,\"k\":%lld,\"seconds\":%.9g}",
                  static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k), gr.median_s);
    extra += (extra.empty() ? "" : ",") + std::string(buf);
  }
  // Flash-decoding at shapes the kernel suite does not hold (the suite stays a held-out test):
  // both kernel paths (GQA groups of 2 and of 8), several context lengths.
  if (want("decode")) *ctx.err << "calibrate: decode attention ramp\n";
  // The last five hold many key tiles per CTA (few splits), so the fit can tell a CTA's fixed
  // cost from its per-tile cost.
  const std::vector<std::array<int64_t, 5>> dec{{1, 32, 16, 512, 128},  {1, 32, 16, 2048, 128}, {1, 32, 16, 6144, 128},
                                                {1, 64, 8, 512, 128},   {1, 64, 8, 2048, 128},  {1, 64, 8, 6144, 128},
                                                {4, 32, 4, 3072, 128},  {2, 16, 2, 1536, 128},  {16, 32, 16, 1536, 128},
                                                {16, 32, 8, 3000, 128}, {64, 32, 4, 1500, 128}, {48, 32, 4, 700, 64},
                                                {24, 64, 8, 2500, 128}, {96, 32, 4, 384, 128}};
  for (const auto& [b, h, kvh, len, d] : dec) {
    if (!want("decode")) break;
    v::Case a;
    a.name = "decode_ramp";
    a.kernel = v::Kernel::attention_decode;
    a.batch = b, a.heads = h, a.kv_heads = kvh, a.q_len = 1, a.kv_len = len, a.head_dim = d;
    v::Result r = v::run_case(a, opt);
    if (!r.ok || !r.correct) continue;
    std::snprintf(buf, sizeof buf,
                  "{\"what\":\"decode_ramp\",\"dtype\":\"bf16\",\"batch\":%lld,\"heads\":%lld,\"kv_heads\":%lld,\"kv_len\":%lld,\"head_dim\":%lld,\"seconds\":%.9g}",
                  static_cast<long long>(b), static_cast<long long>(h), static_cast<long long>(kvh), static_cast<long long>(len),
                  static_cast<long long>(d), r.median_s);
    extra += (extra.empty() ? "" : ",") + std::string(buf);
  }
  // Issue-bound kernels: fused softmaxes over rows the suite does not hold; their instructions
  // are counted (perfmodel/instructions.hpp), so the time gives the share of issue slots used.
  if (want("issue")) *ctx.err << "calibrate: issue rate (fused softmax)\n";
  for (const auto& [rows, cols] : std::vector<std::array<int64_t, 2>>{{8192, 8192}, {32768, 2048}, {16384, 3072}}) {
    if (!want("issue")) break;
    v::Case s;
    s.name = "issue_softmax";
    s.kernel = v::Kernel::softmax_fused;
    s.rows = rows, s.cols = cols;
    v::Result r = v::run_case(s, opt);
    if (!r.ok || !r.correct) continue;
    std::snprintf(buf, sizeof buf, "{\"what\":\"issue_softmax\",\"dtype\":\"bf16\",\"m\":%lld,\"n\":%lld,\"seconds\":%.9g}",
                  static_cast<long long>(rows), static_cast<long long>(cols), r.median_s);
    extra += (extra.empty() ? "" : ",") + std::string(buf);
  }
  // Small kernels as single launches: what each takes and the bytes the harness cycled through.
  auto kernel_point = [&](const char* what, const v::Case& c) {
    const v::Result r = v::run_case(c, opt);
    if (!r.ok || !r.correct) return;
    std::snprintf(buf, sizeof buf,
                  "{\"what\":\"%s\",\"dtype\":\"bf16\",\"kernel\":\"%s\",\"rows\":%lld,\"cols\":%lld,\"vocab\":%lld,"
                  "\"batch\":%lld,\"heads\":%lld,\"kv_heads\":%lld,\"q_len\":%lld,\"kv_len\":%lld,\"head_dim\":%lld,"
                  "\"l2_resident\":%s,\"rotated_bytes\":%.9g,\"seconds\":%.9g}",
                  what, v::to_string(c.kernel).c_str(), static_cast<long long>(c.rows), static_cast<long long>(c.cols),
                  static_cast<long long>(c.vocab), static_cast<long long>(c.batch), static_cast<long long>(c.heads),
                  static_cast<long long>(c.kv_heads), static_cast<long long>(c.q_len), static_cast<long long>(c.kv_len),
                  static_cast<long long>(c.head_dim), c.l2_resident ? "true" : "false", r.rotated_bytes, r.median_s);
    *ctx.err << "calibrate: " << c.name << ": " << r.median_s * 1e6 << " us, " << r.rotated_bytes / 1e6 << " MB cycled\n";
    extra += (extra.empty() ? "" : ",") + std::string(buf);
  };
  if (want("chains")) *ctx.err << "calibrate: thread chains of small kernels\n";
  for (const v::Case& c : want("chains") ? thread_chain_cases() : std::vector<v::Case>{}) kernel_point("thread_chain", c);
  // L2 residency: copies whose rotating buffer sets (1000 launches, one set each) total 25 to
  // 115 MB, around the L2's size (calibration_fit.cpp, "l2_residency").
  if (want("l2")) *ctx.err << "calibrate: L2 residency of cycled working sets\n";
  for (int64_t rows : {3, 5, 7, 9, 11, 14}) {
    if (!want("l2")) break;
    v::Case c;
    c.kernel = v::Kernel::copy;
    c.rows = rows, c.cols = 2048;
    c.name = "l2_residency_copy_" + std::to_string(rows) + "x2048";
    kernel_point("l2_residency", c);
  }
  // Kernel switches: six different small kernels, hot in L2, back to back in one graph against
  // each one repeated alone. What the mixed graph takes beyond the sum is what a step pays per
  // kernel for following a different one (calibration_fit.cpp, "kernel_switch").
  if (want("switch")) {
    *ctx.err << "calibrate: switching between kernels\n";
    std::vector<v::Case> mix;
    auto add_case = [&](v::Kernel k, int64_t rows, int64_t cols) {
      v::Case c;
      c.kernel = k;
      c.rows = rows, c.cols = cols;
      c.l2_resident = true;
      if (k == v::Kernel::gemm) c.m = rows, c.n = cols, c.k = cols, c.rows = c.cols = 0;
      c.name = "switch_" + v::to_string(k);
      mix.push_back(c);
    };
    add_case(v::Kernel::copy, 16, 2048);
    add_case(v::Kernel::rmsnorm, 16, 2048);
    add_case(v::Kernel::gemm, 16, 512);  // 0.5 MB of weights: twenty copies stay in L2 too
    add_case(v::Kernel::silu_mul, 16, 2048);
    add_case(v::Kernel::add, 16, 2048);
    add_case(v::Kernel::softmax_fused, 16, 2048);
    double alone = 0;
    bool ok = true;
    for (const v::Case& c : mix) {
      const v::Result r = v::run_case(c, opt);
      ok = ok && r.ok && r.correct;
      alone += r.median_s;
    }
    const int reps = 20;
    std::vector<v::Case> seq;
    for (int i = 0; i < reps; ++i) seq.insert(seq.end(), mix.begin(), mix.end());
    v::Options so = opt;
    so.check = false;
    so.cold = false;
    const v::Result r = v::run_sequence(seq, so);
    if (ok && r.ok) {
      const double mixed = r.median_s / reps;  // one pass over the six
      std::snprintf(buf, sizeof buf, "{\"what\":\"kernel_switch\",\"kernels\":%d,\"alone_s\":%.9g,\"seconds\":%.9g}",
                    static_cast<int>(mix.size()), alone, mixed);
      *ctx.err << "calibrate: six kernels mixed " << mixed * 1e6 << " us, alone " << alone * 1e6 << " us\n";
      extra += (extra.empty() ? "" : ",") + std::string(buf);
    }
  }
  // Sustained tensor load: the board's power cap. A large GEMM timed in a short burst (the GPU
  // rested first), then the same GEMM back to back for seconds in one graph, with the SM clock
  // and the board power read after every replay (power.cpp uses the pair).
  if (want("power")) {
    *ctx.err << "calibrate: sustained tensor load (power cap)\n";
    std::this_thread::sleep_for(std::chrono::seconds(3));
    const v::PowerInfo idle = v::power_info();
    v::Case g;
    g.name = "power_gemm";
    g.kernel = v::Kernel::gemm;
    g.m = g.n = g.k = 8192;
    const v::Result burst = v::run_case(g, opt);
    v::Options so = opt;
    so.check = false;
    so.cold = false;
    so.min_samples = 60;
    so.target_rel_spread = 0;  // run the whole budget: the clock settles after ~0.5 s
    so.max_seconds_per_case = 4;
    const int n = 24;
    const v::Result sus = v::run_sequence(std::vector<v::Case>(n, g), so);
    if (burst.ok && burst.correct && sus.ok) {
      std::snprintf(buf, sizeof buf,
                    "{\"what\":\"sustained_gemm\",\"dtype\":\"bf16\",\"m\":8192,\"n\":8192,\"k\":8192,\"seconds\":%.9g,"
                    "\"burst_seconds\":%.9g,\"clock_mhz\":%.6g,\"burst_clock_mhz\":%.6g,\"power_w\":%.6g,"
                    "\"idle_power_w\":%.6g,\"power_limit_w\":%.6g}",
                    sus.median_s / n, burst.median_s, sus.sm_clock_mhz_median, burst.sm_clock_mhz_median, sus.power_w_median,
                    idle.draw_w, idle.limit_w);
      *ctx.err << "calibrate: sustained GEMM " << sus.median_s / n * 1e6 << " us at " << sus.sm_clock_mhz_median << " MHz, "
               << sus.power_w_median << " W (burst " << burst.median_s * 1e6 << " us at " << burst.sm_clock_mhz_median
               << " MHz; idle " << idle.draw_w << " W, cap " << idle.limit_w << " W)\n";
      extra += (extra.empty() ? "" : ",") + std::string(buf);
    }
  }
  const std::string key_text = "\"points\":[";
  const size_t at = json.find(key_text);
  if (at != std::string::npos && !extra.empty()) {
    const size_t pos = at + key_text.size();
    const size_t next = json.find_first_not_of(" \n", pos);
    const bool empty = next != std::string::npos && json[next] == ']';
    json.insert(pos, extra + (empty ? "" : ","));
  }
  const std::string tmp = raw_out.empty() ? std::string("/tmp/perfmodel-calibration-raw.json") : raw_out;
  write_text_file(tmp, json);
  return load_raw_calibration(tmp);
}

}  // namespace perfmodel::cli
