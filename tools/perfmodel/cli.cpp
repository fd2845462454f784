#include "cli.hpp"

#include <ctime>
#include <fstream>
#include <iostream>

#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/quant.hpp"
#include "perfmodel/text.hpp"
#include "perfmodel/units.hpp"
#include "perfmodel/vllm_moe_configs.hpp"

namespace perfmodel::cli {

namespace {

// Boost.Program_options 1.74 fills its message template by replacing '%value%' and friends
// until none is left, so a value that itself contains '%value%' loops forever (found by
// fuzz_cli). A command line with any '%' gets a message built here, without the template.
std::string option_error_message(const po::error_with_option_name& e, const std::vector<std::string>& args) {
  bool has_percent = false;
  for (const auto& a : args) has_percent = has_percent || a.find('%') != std::string::npos;
  if (!has_percent) return e.what();
  const std::string flag = e.get_option_name();
  std::string value;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == flag && i + 1 < args.size()) value = args[i + 1];
    if (args[i].rfind(flag + "=", 0) == 0) value = args[i].substr(flag.size() + 1);
  }
  if (dynamic_cast<const po::invalid_option_value*>(&e) || dynamic_cast<const po::validation_error*>(&e))
    return "invalid value '" + value + "' for option '" + flag + "'";
  return "cannot parse option '" + flag + "'";
}

}  // namespace

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
  } catch (const po::error_with_option_name& e) {
    throw UsageError(option_error_message(e, args) + " (see --help)");
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
                    "calibration file to use (default: hardware/<card>.calibration.yaml when present; a file measured on another "
                    "card of the same die is carried to this one, as the catalogue's own is)")(
        "no-calibration", po::bool_switch(&a.no_calibration),
        "ignore any calibration: datasheet peaks and documented default efficiencies");
}

Loaded load_card(const CardArgs& a, Context& ctx) {
  Catalogue cat(ctx.data_root);
  Loaded l{cat.card(a.card), std::nullopt, "", ""};
  for (const auto& w : l.card.warnings) *ctx.err << "warning: " << w << "\n";
  if (!a.calibration.empty() && a.no_calibration)
    throw UsageError("--calibration and --no-calibration exclude each other");
  std::string file = a.calibration;
  if (file.empty() && !a.no_calibration) {
    std::string beside = cat.calibration_path(l.card.key);
    if (std::ifstream(beside).good()) file = beside;
  }
  if (file.empty() && !a.no_calibration) {
    // No calibration of its own: one measured on another card of its die, carried over.
    if ((l.calibration = sibling_calibration(cat, l.card))) {
      l.calibration_file = cat.calibration_path(cat.card_key(l.calibration->source_card));
      l.calibration_card = l.calibration->source_card;
    }
    return l;
  }
  if (!file.empty()) {
    l.calibration = load_calibration(file);
    l.calibration_file = file;
    l.calibration_card = l.card.key;
    // Another card's roofs would price this one below its own roofline (issue 14: --card t4
    // with the H200's calibration). The calibration's card may be an alias of the key.
    const std::string resolved = cat.card_key(l.calibration->card_key);
    const std::string cal_card = resolved.empty() ? l.calibration->card_key : resolved;
    if (cal_card != l.card.key) {
      // A file measured on a card of the same die is carried as the catalogue's own would be (a lease's calibration
      // of the H200 pricing an H100); any other card's is refused.
      const bool known = !resolved.empty();
      if (!known || !same_die(cat.card(cal_card), l.card))
        throw UsageError("--calibration: '" + file + "' was measured on card '" + l.calibration->card_key +
                         "', not on '" + l.card.key + "' nor on a card of its die; pass that card's calibration or "
                         "--no-calibration");
      l.calibration = transfer_calibration(*l.calibration, cat.card(cal_card), l.card);
      l.calibration_card = cal_card;
    }
  }
  return l;
}

void add_workload(po::options_description& d, WorkloadArgs& a, bool with_model) {
  if (with_model)
    d.add_options()("model", po::value(&a.model)->default_value(a.model),
                    "model: catalogue key, alias, a catalogue model's Hugging Face repo id (Qwen/Qwen3-30B-A3B), YAML path or Hugging Face config.json");
  d.add_options()("batch", po::value(&a.batch)->default_value(a.batch), "sequences per step")(
      "ctx", po::value(&a.ctx)->default_value(a.ctx),
      "context: decode = tokens in the KV cache (new one included); prefill = prompt length")(
      "dtype", po::value(&a.dtype)->default_value(a.dtype), "weights, activations and KV cache dtype (auto: bf16, or fp16 on cards without bf16)")(
      "weight-dtype", po::value(&a.weight_dtype),
      "weights dtype (overrides --dtype): int4|int8 weight-only, fp8 (W8A8), nvfp4|mxfp4 (W4A4, Blackwell)")(
      "act-dtype", po::value(&a.act_dtype), "activations dtype (overrides --dtype); fp8|int8: the GEMMs' inputs (W8A8)")(
      "kv-dtype", po::value(&a.kv_dtype), "KV-cache dtype (overrides --dtype; fp8, fp8_e4m3 or fp8_e5m2 for an fp8 cache)")(
      "impl", po::value(&a.impl)->default_value(a.impl),
      "implementation profile: fused (serving engine, CUDA graph), eager (HF transformers) or compiled (torch.compile of the HF model, CUDA graphs)")(
      "tf32", po::bool_switch(&a.tf32), "run fp32 matmuls on tensor cores (TF32)")(
      "mem-util", po::value(&a.mem_util)->default_value(a.mem_util, "0.9"),
      "share of device memory usable for weights + KV + activations (vLLM default 0.9)")(
      "routing-skew", po::value(&a.routing_skew)->default_value(a.routing_skew),
      "MoE: router skew, expert i picked with weight i^-skew (0 = uniform routing; fewer experts touched as it grows)")(
      "moe-config", po::value(&a.moe_config)->default_value(a.moe_config),
      "MoE, fused profile: which fused_moe tiles vLLM runs. auto: the tuned file vLLM ships for the GPU's experts, their "
      "width on the GPU, the card and the dtype (hardware/vllm-fused-moe/E=..,N=..,device_name=...json), else its "
      "default config, as vLLM picks; default: vLLM's default config; or a tuned file's path. The entry nearest the "
      "step's tokens runs, as vLLM takes it")(
      "eager-cache", po::value(&a.eager_cache)->default_value(a.eager_cache),
      "eager: the DynamicCache's layout, contiguous (a generate() loop, what users run) or cropped (strided views after "
      "cache.crop() between steps, how the earliest transformers sets measured: a slower torch.cat of the whole cache)")(
      "attn-implementation", po::value(&a.attn_implementation)->default_value(a.attn_implementation),
      "eager: transformers' attn_implementation, sdpa (PyTorch SDPA: cuDNN on sm90) or flash_attention_2 (flash-attn 2's kernels)")(
      "gpu-rest", po::value(&a.gpu_rest)->default_value(a.gpu_rest),
      "seconds the GPU rests before each step (a harness's spin or sleep between replays); the power cap averages over it (0: a serving loop, back to back)");
  add_quant(d, a);
}

void add_quant(po::options_description& d, WorkloadArgs& a) {
  d.add_options()("group-size", po::value(&a.group_size),
                  "weight-only int4/int8: input channels per scale and zero (AWQ/GPTQ; default 128 for int4, "
                  "0 = per channel)")(
      "scaling", po::value(&a.scaling), "W8A8 scales: tensor (default), row (per token x per channel) or block (128x128)")(
      "act-quant", po::value(&a.act_quant),
      "W8A8 activation scales: dynamic (default; amax + quantization kernels) or static (calibrated)");
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
  // --dtype int4|nvfp4|mxfp4 names the weights' format (and W4A4's GEMM inputs); the
  // activations and the KV cache keep the card's 16-bit type.
  const DType wide = card.supports(Precision::bf16) ? DType::bf16 : DType::fp16;
  if (base == DType::int4 || base == DType::nvfp4 || base == DType::mxfp4) base = base == DType::int4 ? wide : base;
  w.act_dtype = a.act_dtype.empty() ? base : parse_dtype(a.act_dtype, "--act-dtype");
  if (base == DType::nvfp4 || base == DType::mxfp4) base = wide;
  if (a.kv_dtype == "fp8_e4m3" || a.kv_dtype == "fp8_e5m2") {
    w.kv_dtype = DType::fp8;
    w.quant.kv_format = a.kv_dtype == "fp8_e5m2" ? Fp8Format::e5m2 : Fp8Format::e4m3;
  } else {
    w.kv_dtype = a.kv_dtype.empty() ? base : parse_dtype(a.kv_dtype, "--kv-dtype");
  }
  if (w.kv_dtype == DType::int4 || w.kv_dtype == DType::nvfp4 || w.kv_dtype == DType::mxfp4)
    throw UsageError("--kv-dtype " + std::string(to_string(w.kv_dtype)) + ": 4-bit KV caches are not modelled (fp8 or int8)");
  apply_quant(a, w, card);
  if (a.impl == "fused") w.impl = Impl::fused;
  else if (a.impl == "eager") w.impl = Impl::eager;
  else if (a.impl == "compiled") w.impl = Impl::compiled;
  else throw UsageError("--impl must be fused, eager or compiled, got '" + a.impl + "'");
  w.allow_tf32 = a.tf32;
  if (!(a.routing_skew >= 0 && a.routing_skew <= 4)) throw UsageError("--routing-skew must be in [0, 4]");
  w.routing_skew = a.routing_skew;
  if (a.moe_config.empty()) throw UsageError("--moe-config must be auto, default or a vLLM fused_moe file's path");
  if (a.moe_config != "auto" && a.moe_config != "default") {
    if (w.impl != Impl::fused) throw UsageError("--moe-config is vLLM's fused_moe file: it needs --impl fused");
    w.fused_moe_tiles = load_fused_moe_tiles(a.moe_config);
    w.fused_moe_tiles_file = a.moe_config;
  }
  if (a.eager_cache != "cropped" && a.eager_cache != "contiguous")
    throw UsageError("--eager-cache must be cropped or contiguous, got '" + a.eager_cache + "'");
  w.eager_cache_cropped = a.eager_cache == "cropped";
  if (a.attn_implementation != "sdpa" && a.attn_implementation != "flash_attention_2")
    throw UsageError("--attn-implementation must be sdpa or flash_attention_2, got '" + a.attn_implementation + "'");
  if (a.attn_implementation != "sdpa" && w.impl != Impl::eager)
    throw UsageError("--attn-implementation " + a.attn_implementation + " is transformers' switch: it needs --impl eager");
  w.eager_flash_attention_2 = a.attn_implementation == "flash_attention_2";
  if (!(a.gpu_rest >= 0 && a.gpu_rest <= 3600)) throw UsageError("--gpu-rest must be in [0, 3600] seconds");
  w.gpu_rest_s = a.gpu_rest;
  return w;
}

void resolve_moe_config(const WorkloadArgs& a, Workload& w, const Model& m, const Card& card, const Context& ctx) {
  if (a.moe_config != "auto" || w.impl != Impl::fused || !m.moe.enabled()) return;
  const std::string path = find_vllm_fused_moe_file(ctx.data_root, card, m, w);
  if (path.empty()) return;  // vLLM ships no file here that the catalogue holds: its default config
  w.fused_moe_tiles = load_fused_moe_tiles(path);
  w.fused_moe_tiles_file = path;
}

void apply_quant(const WorkloadArgs& a, Workload& w, const Card& card) {
  // 8- and 4-bit activations are the GEMMs' inputs; the other kernels keep the storage dtype.
  const DType act = w.act_dtype;
  const bool low = act == DType::fp8 || act == DType::int8 || act == DType::int4 || act == DType::nvfp4 ||
                   act == DType::mxfp4;
  if (low) {
    if (act == DType::int4) throw UsageError("--act-dtype int4: 4-bit activations are nvfp4 or mxfp4 (W4A4)");
    w.quant.gemm_act = act;
    w.act_dtype = card.supports(Precision::bf16) ? DType::bf16 : DType::fp16;
  }
  if (w.weight_dtype == DType::fp8 || w.weight_dtype == DType::nvfp4 || w.weight_dtype == DType::mxfp4) {
    if (!low) w.quant.gemm_act = w.weight_dtype;  // no weight-only kernel for these: W8A8 / W4A4
  }
  const LinearKind kind = linear_kind(w);
  if (a.group_size != -1) {
    if (a.group_size < 0) throw UsageError("--group-size must be 0 (per channel) or positive, got " + std::to_string(a.group_size));
    if (kind != LinearKind::weight_only)
      throw UsageError("--group-size is for weight-only --weight-dtype int4|int8 (W4A16/W8A16)");
    w.quant.group_size = a.group_size;
  }
  if (!a.scaling.empty()) {
    auto s = scaling_from_string(a.scaling);
    if (!s) throw UsageError("--scaling must be tensor, row or block, got '" + a.scaling + "'");
    if (kind != LinearKind::scaled) throw UsageError("--scaling is for W8A8 (--weight-dtype fp8|int8 with --act-dtype fp8|int8)");
    w.quant.scaling = *s;
  }
  if (!a.act_quant.empty()) {
    auto q = act_quant_from_string(a.act_quant);
    if (!q) throw UsageError("--act-quant must be dynamic or static, got '" + a.act_quant + "'");
    if (kind != LinearKind::scaled) throw UsageError("--act-quant is for W8A8 (--act-dtype fp8|int8)");
    w.quant.act_quant = *q;
  }
  const std::string problem = quant_problem(w, card);
  if (!problem.empty()) throw UsageError(problem);
}

std::string impl_label(const Workload& w) {
  std::string s(to_string(w.impl));
  if (!w.fused_moe_tiles.empty()) {
    const std::string& f = w.fused_moe_tiles_file;
    s += " (fused_moe tiles: " + f.substr(f.find_last_of('/') == std::string::npos ? 0 : f.find_last_of('/') + 1) + ")";
  }
  return s;
}

void show_device_and_host(FieldsView& v, const std::string& host_label) {
  v.fields.insert(v.fields.begin() + 1, {{"device_time_s", "  device (kernel) time", Hint::time},
                                         {"host_time_s", "  host (" + host_label + ") time", Hint::time}});
}

std::string dtype_label(const Workload& w) {
  if (!is_quantized(w) && w.weight_dtype == w.act_dtype && w.kv_dtype == w.act_dtype)
    return std::string(to_string(w.act_dtype));
  std::string s = "weights " + std::string(to_string(w.weight_dtype));
  const LinearKind kind = linear_kind(w);
  if (kind == LinearKind::weight_only) {
    const int64_t g = effective_group(w.weight_dtype, w.quant);
    s += g > 0 ? " g" + std::to_string(g) : " per channel";
  }
  if (kind == LinearKind::scaled) {
    s += ", GEMM inputs " + std::string(to_string(gemm_input(w)));
    if (w.quant.gemm_act == DType::fp8 || w.quant.gemm_act == DType::int8)
      s += " (" + std::string(to_string(w.quant.scaling)) + ", " + std::string(to_string(w.quant.act_quant)) + ")";
  }
  s += ", activations " + std::string(to_string(w.act_dtype)) + ", KV " + std::string(to_string(w.kv_dtype));
  if (w.kv_dtype == DType::fp8) s += " " + std::string(to_string(w.quant.kv_format));
  return s;
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
  n.set("calibration_card", l.calibration ? Node::text(l.calibration_card) : Node());
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
  if (is_quantized(w) || w.kv_dtype == DType::fp8) {  // only then: unquantized JSON stays as it was
    Node q = Node::object();
    q.set("gemm_input_dtype", Node::text(std::string(to_string(gemm_input(w)))));
    q.set("linear", Node::text(linear_kind(w) == LinearKind::weight_only ? "weight_only"
                               : linear_kind(w) == LinearKind::scaled    ? "scaled"
                                                                         : "dense"));
    q.set("group_size", Node::integer(effective_group(w.weight_dtype, w.quant)));
    q.set("scaling", Node::text(std::string(to_string(w.quant.scaling))));
    q.set("act_quant", Node::text(std::string(to_string(w.quant.act_quant))));
    q.set("kv_format", Node::text(std::string(to_string(w.quant.kv_format))));
    n.set("quant", std::move(q));
  }
  n.set("impl", Node::text(to_string(w.impl)));
  n.set("tf32", Node::boolean(w.allow_tf32));
  if (w.routing_skew > 0) n.set("routing_skew", Node::number(w.routing_skew, Hint::none));
  if (!w.fused_moe_tiles.empty()) n.set("moe_config", Node::text(w.fused_moe_tiles_file));
  if (w.impl == Impl::eager) n.set("eager_cache", Node::text(w.eager_cache_cropped ? "cropped" : "contiguous"));
  if (w.eager_flash_attention_2) n.set("attn_implementation", Node::text("flash_attention_2"));
  if (w.gpu_rest_s > 0) n.set("gpu_rest_s", Node::number(w.gpu_rest_s, Hint::none));
  return n;
}

}  // namespace perfmodel::cli
