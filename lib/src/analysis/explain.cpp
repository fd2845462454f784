// `--explain` for a step's totals and its analyses (issue 14); the ops: explain_op.cpp.
// Each item's `substituted` uses the very numbers the report prints from, so that a reader can
// redo the arithmetic (tests/test_explain.cpp evaluates every one).
#include "perfmodel/explain.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "explain_text.hpp"
#include "perfmodel/analysis.hpp"
#include "perfmodel/quant.hpp"

namespace perfmodel {

using detail::num;

std::string explain_number(double v) {
  if (!std::isfinite(v)) return "0";
  if (v == std::floor(v) && std::fabs(v) < 1e7) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  std::string s = buf;
  // "6.738e+09" -> "6.738e9", "1.2e-05" -> "1.2e-5"
  const auto e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mant = s.substr(0, e), exp = s.substr(e + 1);
  const bool neg = exp[0] == '-';
  exp = exp.substr(exp[0] == '+' || exp[0] == '-' ? 1 : 0);
  while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
  return mant + "e" + (neg ? "-" : "") + exp;
}

std::vector<Explained> explain_step(const Evaluation& e, const Roofs& r) {
  std::vector<Explained> out;
  const Step& s = e.step;
  const StepCost& c = e.cost;
  std::string sum_time, sum_roof, sum_f, sum_m;
  double plain = 0;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const std::string k = num(s.ops[i].count) + " × ";
    const std::string sep = i ? " + " : "";
    sum_time += sep + k + num(c.ops[i].time_s);
    sum_roof += sep + k + num(c.ops[i].roofline_time_s);
    sum_f += sep + k + num(s.ops[i].flops);
    sum_m += sep + k + num(s.ops[i].bytes());
    plain += static_cast<double>(s.ops[i].count) * c.ops[i].time_s;
  }
  Explained t{"step time", "Σ count × t_op", sum_time, c.time_s, "s", {"t_op: each op's `time` (ops below)"}};
  if (std::fabs(c.time_s - plain) > 1e-9 * std::max(plain, 1e-12)) {
    t.formula += " + step terms";
    t.substituted += " + " + num(c.time_s - plain);
    t.inputs.push_back("step terms " + num(c.time_s - plain) + " s: kernel switches between different kernels (" +
                       num(r.kernel_switch_s) + " s each, " + r.source("kernel_switch") + "), the power cap's clock " +
                       num(c.clock_scale) + ", eager host/device overlap, collectives, a compiled call's host time (price_step)");
  }
  out.push_back(t);
  out.push_back({"roofline bound", "Σ count × max(F / P_nominal, M / BW_nominal)", sum_roof, c.roofline_time_s, "s",
                 {"the seeds' roofline per op at the card's datasheet roofs (seed 000)"}});
  out.push_back({"FLOPs", "Σ count × F", sum_f, s.flops(), "FLOP", {}});
  out.push_back({"bytes moved", "Σ count × M", sum_m, s.bytes(), "B", {}});
  if (s.bytes() > 0)
    out.push_back({"arithmetic intensity", "F / M", num(s.flops()) + " / " + num(s.bytes()), s.flops() / s.bytes(), "FLOP/B", {}});
  return out;
}

std::vector<Explained> explain_analysis(const Model& m, const Evaluation& e, const Card& card, double utilization) {
  std::vector<Explained> out;
  const Analysis& a = e.analysis;
  const Workload& w = e.workload;
  const std::string model_file = m.source_file.empty() ? "model " + m.key : m.source_file;
  const std::string card_file = card.source_file.empty() ? "card " + card.key : card.source_file;
  const double n = static_cast<double>(w.ctx), b = static_cast<double>(w.batch);
  const std::string N = "N = " + num(a.parameters) + " parameters (" + model_file + ", counted by the " + m.architecture +
                        " family)";
  const std::string W = "W = " + num(a.weight_bytes) + " B of weights (N × " + std::string(to_string(w.weight_dtype)) +
                        " bytes" + (is_quantized(w) ? " packed, scales included" : "") + ")";
  const std::string KV = "kv = " + num(a.kv_bytes_per_token) + " B per token";
  // The seed's "n kv": one sequence's KV at ctx n, sliding windows capped (analysis.hpp); written
  // as n × kv where no window caps it.
  const bool capped = std::fabs(a.kv_bytes_per_sequence - n * a.kv_bytes_per_token) > 1e-9 * a.kv_bytes_per_sequence;
  const std::string n_kv = capped ? num(a.kv_bytes_per_sequence) : num(n) + " × " + num(a.kv_bytes_per_token);
  const std::string NKV = capped ? "n kv = " + num(a.kv_bytes_per_sequence) +
                                       " B: one sequence's KV at ctx n, windowed layers holding at most the window "
                                       "(docs/model.md section 6)"
                                 : KV;
  const std::string BW = "BW = " + num(card.bandwidth) + " B/s (" + card_file + ")";
  if (a.tokens_per_s > 0)
    out.push_back({"tokens/s", "tokens in the step / step time", num(w.tokens()) + " / " + num(a.step_time_s),
                   a.tokens_per_s, "1/s", {"tokens = batch × new tokens per sequence"}});
  if (a.tpot_floor_s > 0)
    out.push_back({"TPOT floor", "(W_step + b × n × kv) / BW", "(" + num(a.decode_weight_bytes) + " + " + num(a.memory.kv) + ") / " +
                                                                  num(card.bandwidth),
                   a.tpot_floor_s, "s", {"W_step = " + num(a.decode_weight_bytes) + " B of weights this step reads", "b × n × kv = " + num(a.memory.kv) + " B: the KV cache of the batch (windowed layers capped)", BW, "seed 004 W2"}});
  out.push_back({"TTFT", "prefill step of n tokens for the whole batch", num(a.ttft_s), a.ttft_s, "s",
                 {"the prefill of the same batch priced like this step (perfmodel prefill --batch " + num(b) +
                  " --ctx " + num(n) + ")"}});
  if (a.ttft_per_request_s > 0)
    out.push_back({"TTFT per request", "prefill step of one prompt of n tokens (batch 1)", num(a.ttft_per_request_s),
                   a.ttft_per_request_s, "s",
                   {"one request's prefill alone, priced like this step (perfmodel prefill --batch 1 --ctx " + num(n) +
                    (w.parallel.any() ? ", on one replica" : "") + ")"}});
  {
    const double dense = 2.0 * static_cast<double>(m.layers * m.kv_heads * m.head_dim) * bytes_of(w.kv_dtype);
    Explained kv{"KV cache per token", "", "", a.kv_bytes_per_token, "B", {}};
    if (std::fabs(dense - a.kv_bytes_per_token) <= 1e-9 * dense) {
      kv.formula = "2 × layers × kv_heads × head_dim × bytes";
      kv.substituted = "2 × " + num(m.layers) + " × " + num(m.kv_heads) + " × " + num(m.head_dim) + " × " + num(bytes_of(w.kv_dtype));
      kv.inputs.push_back("K and V per layer (reference B.3); " + model_file);
    } else {
      kv.formula = "the family's cache layout (MLA latent, windowed or mixed layers)";
      kv.substituted = num(a.kv_bytes_per_token);
      kv.inputs.push_back(model_file + ", " + m.architecture + " family");
    }
    out.push_back(kv);
  }
  out.push_back({"weights", "N × bytes per weight", num(a.parameters) + " × " + num(a.weight_bytes / a.parameters),
                 a.weight_bytes, "B", {N, W}});
  // MoE: the seed's formula with the parameters a token uses and the weights this step reads
  // (the experts its tokens touch), analysis.hpp moe_decode_ai.
  const double n_used = a.moe ? a.active_parameters : a.parameters;
  const double w_read = a.moe ? a.decode_weight_bytes : a.weight_bytes;
  out.push_back({"AI(b)", "2 N b / (W + b n kv)", "2 × " + num(n_used) + " × " + num(b) + " / (" + num(w_read) + " + " +
                                                   num(b) + " × " + n_kv + ")",
                 a.ai, "FLOP/B", {N, W, NKV, "b = " + num(b) + ", n = " + num(n) + " (workload)", "seed 004 Day 16"}});
  if (a.moe)
    out.back().inputs.push_back("MoE: N = " + num(n_used) + " active parameters per token, W = " + num(w_read) +
                                " B read by this step (the experts its tokens touch)");
  out.push_back({"AI_max", "2 N / (n kv)", "2 × " + num(a.moe ? a.active_parameters : a.parameters) + " / (" + n_kv + ")",
                 a.ai_max, "FLOP/B", {N, NKV, "the limit of AI(b) as b grows (seed 004 Day 16)"}});
  out.push_back({"ridge", "P_nominal / BW", num(a.ridge * card.bandwidth) + " / " + num(card.bandwidth), a.ridge, "FLOP/B",
                 {"P_nominal: " + card_file + " peak of the linears' precision", BW}});
  if (a.b_star && !a.moe)
    out.push_back({"b*", "ridge × W / (2N - ridge × n × kv)", num(a.ridge) + " × " + num(a.weight_bytes) + " / (2 × " +
                                                                num(a.parameters) + " - " + num(a.ridge) + " × " + n_kv + ")",
                   *a.b_star, "", {"AI(b*) = ridge solved for b (seed 004 Day 17)"}});
  if (a.b_star && a.moe)
    out.push_back({"b*", "the smallest whole b with AI(b) >= ridge (AI(b) with the experts b tokens touch)", num(*a.b_star),
                   *a.b_star, "", {"bisection over the MoE AI(b) (analysis.hpp moe_decode_b_star)"}});
  const MemoryPlan& p = a.memory;
  out.push_back({"memory footprint", "weights + KV cache + activations", num(p.weights) + " + " + num(p.kv) + " + " + num(p.activations),
                 p.total, "B", {"KV cache = batch × KV bytes per sequence at ctx n", "activations: the widest live tensors and the logits"}});
  out.push_back({"usable memory", "capacity × utilization", num(p.capacity) + " × " + num(utilization), p.usable, "B",
                 {"capacity: " + card_file, "utilization: --mem-util (vLLM's gpu_memory_utilization)"}});
  const double per_seq = b > 0 ? (p.kv + p.activations) / b : 0;
  if (per_seq > 0)
    out.push_back({"largest batch that fits", "floor((usable - weights) / (KV + activations per sequence))",
                   "floor((" + num(p.usable) + " - " + num(p.weights) + ") / " + num(per_seq) + ")",
                   static_cast<double>(p.max_batch), "", {}});
  const double peak = a.ridge * card.bandwidth;
  if (a.step_time_s > 0 && peak > 0) {
    out.push_back({"MFU", "model FLOPs / step time / P_nominal", num(e.step.model_flops()) + " / " + num(a.step_time_s) + " / " + num(peak),
                   a.mfu, "", {"model FLOPs: what the model needs (no recomputation, no padding)"}});
    out.push_back({"HFU", "executed FLOPs / step time / P_nominal", num(e.step.flops()) + " / " + num(a.step_time_s) + " / " + num(peak),
                   a.hfu, "", {}});
  }
  return out;
}

std::string render_explained(const std::vector<Explained>& items, const std::string& indent) {
  std::ostringstream o;
  for (const Explained& e : items) {
    o << indent << e.name << " = " << e.formula << "\n";
    o << indent << std::string(e.name.size(), ' ') << " = " << e.substituted << "\n";
    o << indent << std::string(e.name.size(), ' ') << " = " << num(e.value) << (e.unit.empty() ? "" : " " + e.unit) << "\n";
    for (const std::string& in : e.inputs) o << indent << "    " << in << "\n";
  }
  return o.str();
}

}  // namespace perfmodel
