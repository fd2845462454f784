#include "cli.hpp"

#include <ctime>
#include <fstream>
#include <iostream>

#include "perfmodel/errors.hpp"
#include "perfmodel/text.hpp"
#include "perfmodel/units.hpp"

namespace perfmodel::cli {

bool parse(const std::vector<std::string>& args, const po::options_description& desc,
           po::variables_map& vm, Context& ctx, const std::string& usage,
           const std::string& example, const po::positional_options_description* pos) {
  po::options_description all(desc);
  all.add_options()("help,h", "show this help");
  try {
    po::command_line_parser p(args);
    p.options(all).style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing);
    if (pos) p.positional(*pos);
    const po::parsed_options parsed = p.run();
    // A bare word was silently dropped (issue 14: `decode llama3-8b --card h100` priced the
    // default model): commands without positional arguments refuse it.
    if (!pos)
      for (const auto& o : parsed.options)
        if (o.position_key >= 0)
          throw UsageError("unexpected argument '" + (o.value.empty() ? std::string() : o.value.front()) +
                           "': every value follows its flag, e.g. --model NAME (see --help)");
    po::store(parsed, vm);
    if (vm.count("help")) {
      *ctx.out << usage << "\n\n" << desc << "\nExample:\n  " << example << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    std::string flag = e.get_option_name();
    std::string best;
    size_t best_d = 100;
    for (const auto& o : all.options()) {
      std::string name = "--" + o->long_name();
      size_t d = edit_distance(flag, name);
      if (d < best_d) best_d = d, best = name;
    }
    throw UsageError("unknown flag '" + flag + "'" + (best_d <= 3 ? "; did you mean " + best + "?" : "") +
                     " (see --help)");
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  return true;
}

void add_card(po::options_description& d, CardArgs& a, bool with_calibration) {
  d.add_options()("card", po::value(&a.card)->default_value(a.card),
                  "GPU: catalogue key, alias or path to a card YAML (`perfmodel cards` lists them)");
  if (with_calibration)
    d.add_options()("calibration", po::value(&a.calibration),
                    "calibration file to use (default: hardware/<card>.calibration.yaml when present)")(
        "no-calibration", po::bool_switch(&a.no_calibration),
        "ignore any calibration: datasheet peaks and documented default efficiencies");
}

Loaded load_card(const CardArgs& a, Context& ctx) {
  Catalogue cat(ctx.data_root);
  Loaded l{cat.card(a.card), std::nullopt, ""};
  for (const auto& w : l.card.warnings) *ctx.err << "warning: " << w << "\n";
  if (!a.calibration.empty() && a.no_calibration)
    throw UsageError("--calibration and --no-calibration exclude each other");
  std::string file = a.calibration;
  if (file.empty() && !a.no_calibration) {
    std::string beside = cat.calibration_path(l.card.key);
    if (std::ifstream(beside).good()) file = beside;
  }
  if (!file.empty()) {
    l.calibration = load_calibration(file);
    l.calibration_file = file;
    // Another card's roofs would price this one below its own roofline (issue 14: --card t4
    // with the H200's calibration). The calibration's card may be an alias of the key.
    const std::string resolved = cat.card_key(l.calibration->card_key);
    const std::string cal_card = resolved.empty() ? l.calibration->card_key : resolved;
    if (cal_card != l.card.key)
      throw UsageError("--calibration: '" + file + "' was measured on card '" + l.calibration->card_key +
                       "', not on '" + l.card.key + "'; pass that card's calibration or --no-calibration");
  }
  return l;
}

void add_workload(po::options_description& d, WorkloadArgs& a, bool with_model) {
  if (with_model)
    d.add_options()("model", po::value(&a.model)->default_value(a.model),
                    "model: catalogue key, alias, YAML path or Hugging Face config.json");
  d.add_options()("batch", po::value(&a.batch)->default_value(a.batch), "sequences per step")(
      "ctx", po::value(&a.ctx)->default_value(a.ctx),
      "context: decode = tokens in the KV cache (new one included); prefill = prompt length")(
      "dtype", po::value(&a.dtype)->default_value(a.dtype), "weights, activations and KV cache dtype (auto: bf16, or fp16 on cards without bf16)")(
      "weight-dtype", po::value(&a.weight_dtype), "weights dtype (overrides --dtype)")(
      "act-dtype", po::value(&a.act_dtype), "activations dtype (overrides --dtype)")(
      "kv-dtype", po::value(&a.kv_dtype), "KV-cache dtype (overrides --dtype)")(
      "impl", po::value(&a.impl)->default_value(a.impl),
      "implementation profile: fused (serving engine, CUDA graph), eager (HF transformers) or compiled (torch.compile of the HF model, CUDA graphs)")(
      "tf32", po::bool_switch(&a.tf32), "run fp32 matmuls on tensor cores (TF32)")(
      "mem-util", po::value(&a.mem_util)->default_value(a.mem_util),
      "share of device memory usable for weights + KV + activations (vLLM default 0.9)")(
      "routing-skew", po::value(&a.routing_skew)->default_value(a.routing_skew),
      "MoE: router skew, expert i picked with weight i^-skew (0 = uniform routing; fewer experts touched as it grows)");
}

std::string today_utc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) throw InputError("cannot write '" + path + "'");
  f << text;
}

DType parse_dtype(const std::string& s, const std::string& flag) {
  auto t = dtype_from_string(s);
  if (!t) throw UsageError(flag + ": unknown dtype '" + s + "'; expected one of " + dtype_names());
  return *t;
}

void require_positive(int64_t v, const std::string& flag) {
  if (v <= 0) throw UsageError(flag + " must be positive, got " + std::to_string(v));
}

Workload make_workload(const WorkloadArgs& a, Phase phase, const Card& card) {
  require_positive(a.batch, "--batch");
  require_positive(a.ctx, "--ctx");
  if (!(a.mem_util > 0 && a.mem_util <= 1)) throw UsageError("--mem-util must be in (0, 1]");
  Workload w;
  w.phase = phase;
  w.batch = a.batch;
  w.ctx = a.ctx;
  DType base = a.dtype == "auto" ? (card.supports(Precision::bf16) ? DType::bf16 : DType::fp16)
                                 : parse_dtype(a.dtype, "--dtype");
  w.weight_dtype = a.weight_dtype.empty() ? base : parse_dtype(a.weight_dtype, "--weight-dtype");
  w.act_dtype = a.act_dtype.empty() ? base : parse_dtype(a.act_dtype, "--act-dtype");
  w.kv_dtype = a.kv_dtype.empty() ? base : parse_dtype(a.kv_dtype, "--kv-dtype");
  if (w.act_dtype == DType::fp8 || w.act_dtype == DType::int8)
    throw UsageError("--act-dtype " + std::string(to_string(w.act_dtype)) +
                     ": 8-bit activations are not modelled; use --weight-dtype/--kv-dtype for fp8");
  if (a.impl == "fused") w.impl = Impl::fused;
  else if (a.impl == "eager") w.impl = Impl::eager;
  else if (a.impl == "compiled") w.impl = Impl::compiled;
  else throw UsageError("--impl must be fused, eager or compiled, got '" + a.impl + "'");
  w.allow_tf32 = a.tf32;
  if (!(a.routing_skew >= 0 && a.routing_skew <= 4)) throw UsageError("--routing-skew must be in [0, 4]");
  w.routing_skew = a.routing_skew;
  return w;
}

Model load_model(const WorkloadArgs& a, Context& ctx) {
  Catalogue cat(ctx.data_root);
  return cat.model(a.model);
}

Node card_node(const Loaded& l) {
  Node n = Node::object();
  n.set("key", Node::text(l.card.key));
  n.set("name", Node::text(l.card.name));
  n.set("sm_count", Node::integer(l.card.sm_count));
  n.set("bandwidth", Node::number(l.card.bandwidth, Hint::byte_rate));
  n.set("memory_bytes", Node::number(l.card.memory_bytes, Hint::bytes));
  n.set("l2_bytes", Node::number(l.card.l2_bytes, Hint::bytes));
  Node peaks = Node::object();
  for (int i = 0; i < kPrecisionCount; ++i)
    if (l.card.peak[i] > 0) peaks.set(std::string(to_string(static_cast<Precision>(i))), Node::number(l.card.peak[i], Hint::flop_rate));
  n.set("peaks", std::move(peaks));
  n.set("calibrated", Node::boolean(l.calibration.has_value()));
  n.set("calibration_file", l.calibration ? Node::text(l.calibration_file) : Node());
  return n;
}

Node model_node(const Model& m) {
  Node n = Node::object();
  n.set("key", Node::text(m.key));
  n.set("name", Node::text(m.name));
  n.set("parameters", Node::number(m.parameters(), Hint::integer));
  if (m.moe.enabled()) n.set("active_parameters", Node::number(m.active_parameters(), Hint::integer));
  n.set("hidden_size", Node::integer(m.hidden));
  n.set("intermediate_size", Node::integer(m.intermediate));
  n.set("num_hidden_layers", Node::integer(m.layers));
  n.set("num_attention_heads", Node::integer(m.heads));
  n.set("num_key_value_heads", Node::integer(m.kv_heads));
  n.set("head_dim", Node::integer(m.head_dim));
  n.set("vocab_size", Node::integer(m.vocab));
  return n;
}

Node workload_node(const Workload& w) {
  Node n = Node::object();
  n.set("phase", Node::text(to_string(w.phase)));
  n.set("batch", Node::integer(w.batch));
  n.set("ctx", Node::integer(w.ctx));
  n.set("weight_dtype", Node::text(std::string(to_string(w.weight_dtype))));
  n.set("act_dtype", Node::text(std::string(to_string(w.act_dtype))));
  n.set("kv_dtype", Node::text(std::string(to_string(w.kv_dtype))));
  n.set("impl", Node::text(to_string(w.impl)));
  n.set("tf32", Node::boolean(w.allow_tf32));
  if (w.routing_skew > 0) n.set("routing_skew", Node::number(w.routing_skew, Hint::none));
  return n;
}

}  // namespace perfmodel::cli
