// perfmodel op: one kernel priced on its own.
#include "commands.hpp"
#include "explain_cli.hpp"
#include "perfmodel/kernel.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile.hpp"
#include "step_report.hpp"

namespace perfmodel::cli {

// The kernel a --kind names: any registered kernel with a stand-alone form (kernels.def), or a
// short name whose kernel follows from the shape and --unfused (gelu, softmax, attention).
KernelId kernel_for(const std::string& kind, bool unfused, const AttentionShape& a) {
  if (kind == "gelu") return unfused ? KernelId::gelu_unfused : KernelId::gelu_fused;
  if (kind == "softmax") return unfused ? KernelId::softmax_naive : KernelId::softmax_fused;
  if (kind == "attention") {
    if (unfused) return KernelId::attention_prefill_unfused;
    return a.q_len == 1 && !a.causal ? KernelId::attention_decode : KernelId::attention_prefill_fused;
  }
  std::string names = "gelu, softmax, attention";
  // GEMM kinds (plain and quantized) take m, n, k: `perfmodel gemm` prices them.
  auto is_gemm = [](KernelId k) { return k == KernelId::gemm || k == KernelId::gemm_wonly || k == KernelId::gemm_scaled; };
  for (const KernelDef* d : kernel_defs())
    if (d->from_case && !is_gemm(d->id)) names += ", " + std::string(d->name);
  const auto id = kernel_from_string(kind);
  if (id && is_gemm(*id))
    throw UsageError("--kind " + kind + ": GEMMs are priced by `perfmodel gemm --m M --n N --k K` (quantized: "
                     "--weight-dtype, --act-dtype, --group-size, --scaling, --act-quant)");
  if (!id || !kernel_def(*id).from_case) throw UsageError("--kind must be one of " + names + "; got '" + kind + "'");
  if (unfused) throw UsageError("--unfused applies to --kind gelu, softmax and attention only");
  return *id;
}

// Builds the op a kernel name stands for, through the kernel's definition.
Op make_kernel_op(const std::string& kind, int64_t rows, int64_t cols, DType t, bool unfused,
                  const AttentionShape& a) {
  KernelCase c;
  c.kernel = kernel_for(kind, unfused, a);
  c.name = kind;
  c.dtype = t;
  c.rows = rows;
  c.cols = cols;
  c.batch = a.batch;
  c.heads = a.heads;
  c.kv_heads = a.kv_heads;
  c.q_len = a.q_len;
  c.kv_len = a.kv_len;
  c.head_dim = a.head_dim;
  c.causal = a.causal;
  return to_op(c);
}

int cmd_op(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  CardArgs card;
  std::string kind, dtype = "bf16";
  Format format = Format::table;
  int64_t rows = 0, cols = 0;
  AttentionShape a;
  a.batch = 1;
  a.q_len = 1;
  bool unfused = false, eager = false;
  std::string impl = "fused";
  add_card(d, card);
  d.add_options()("kind", po::value(&kind)->required(),
                  "a kernel: add, copy, gelu, silu_mul, rmsnorm, layernorm, softmax, attention, or any kernel of kernels.def with a stand-alone form (an unknown name lists them)")(
      "rows", po::value(&rows), "rows (tokens) for row-wise kinds")(
      "cols", po::value(&cols), "columns (features) for row-wise kinds")(
      "dtype", po::value(&dtype)->default_value(dtype), "dtype")(
      "unfused", po::bool_switch(&unfused), "gelu: the 8-kernel eager form; softmax: the 5-kernel naive form; attention: the eager math path (S = QK^T, softmax, PV)")(
      "batch", po::value(&a.batch)->default_value(1), "attention: batch")(
      "heads", po::value(&a.heads), "attention: query heads")(
      "kv-heads", po::value(&a.kv_heads), "attention: KV heads (GQA)")(
      "q-len", po::value(&a.q_len)->default_value(1), "attention: query tokens (1 = decode)")(
      "kv-len", po::value(&a.kv_len), "attention: keys per sequence")(
      "head-dim", po::value(&a.head_dim), "attention: head dimension")(
      "causal", po::bool_switch(&a.causal), "attention: causal mask")(
      "impl", po::value(&impl)->default_value(impl),
      "implementation profile whose kernel is priced: fused (serving engine), eager (PyTorch eager: its kernels, floors and host time) or compiled (torch.compile: Inductor's kernel)")(
      "eager", po::bool_switch(&eager), "alias of --impl eager");
  bool explain = false;
  add_explain(d, explain);
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx, "perfmodel op: one kernel's FLOPs, bytes, roofline and predicted time",
             "perfmodel op --card rtx-4080 --kind add --rows 65536 --cols 1024"))
    return 0;
  const DType t = parse_dtype(dtype, "--dtype");
  const bool attention = kind == "attention" || kind.rfind("attention_", 0) == 0;
  if (attention) {
    for (auto [v, f] : {std::pair{a.batch, "--batch"}, {a.heads, "--heads"}, {a.kv_heads, "--kv-heads"},
                        {a.q_len, "--q-len"}, {a.kv_len, "--kv-len"}, {a.head_dim, "--head-dim"}})
      require_positive(v, f);
    if (a.heads % a.kv_heads) throw UsageError("--heads must be a multiple of --kv-heads");
    if (a.q_len > a.kv_len) throw UsageError("--q-len cannot exceed --kv-len");
  } else if (kind == "rotary" || kind == "kv_append") {
    // q_len new tokens of each of `batch` sequences, with their query and KV heads
    for (auto [v, f] : {std::pair{a.batch, "--batch"}, {a.heads, "--heads"}, {a.kv_heads, "--kv-heads"},
                        {a.q_len, "--q-len"}, {a.head_dim, "--head-dim"}})
      require_positive(v, f);
  } else {
    require_positive(rows, "--rows");
    require_positive(cols, "--cols");
  }
  // A flag the kind does not read is an error, not silently dropped (`--rows 2` on rotary priced one token).
  const bool by_heads = attention || kind == "rotary" || kind == "kv_append";
  for (const char* f : {"rows", "cols"})
    if (by_heads && vm.count(f))
      throw UsageError(std::string("--") + f + " does not apply to --kind " + kind +
                       ": its tokens are --batch x --q-len, its width --heads / --kv-heads x --head-dim");
  for (const char* f : {"heads", "kv-heads", "kv-len", "head-dim"})
    if (!by_heads && vm.count(f))
      throw UsageError(std::string("--") + f + " does not apply to --kind " + kind + ": it takes --rows and --cols");
  if (impl != "fused" && impl != "eager" && impl != "compiled")
    throw UsageError("--impl must be fused, eager or compiled, got '" + impl + "'");
  const Impl profile = eager || impl == "eager" ? Impl::eager : impl == "compiled" ? Impl::compiled : Impl::fused;
  Loaded l = load_card(card, ctx);
  Op op = make_kernel_op(kind, rows, cols, t, unfused, a);
  const Roofs roofs = make_roofs(l.card, l.calibration ? &*l.calibration : nullptr, profile);
  OpCost c = price(op, roofs, profile);
  // The op as the profile's step runs it (profile.hpp): eager, as PyTorch eager runs it
  // (transformers' modules), its kernels priced one after another with the host issuing each;
  // compiled, as Inductor's graph runs it (its kernels back to back, no host between them).
  std::vector<Op> kernels = profile == Impl::eager      ? eager_form(op, true)
                            : profile == Impl::compiled ? compiled_form(op)
                                                        : std::vector<Op>{op};
  Node kernel_rows = Node::array();
  ExplainSections explained;
  if (kernels.size() == 1 && kernels[0].kernel != op.kernel) {  // one kernel, another kind (cuDNN's decode)
    op = kernels[0];
    c = price(op, roofs, profile);
  } else if (kernels.size() > 1) {
    Step st;
    st.ops = kernels;
    const StepCost sc = price_step(st, roofs, profile == Impl::eager ? Impl::eager : Impl::fused);
    Op sum = op;
    sum.flops = sum.bytes_read = sum.bytes_written = 0;
    sum.launches = 0;
    for (const Op& k : kernels) {
      sum.flops += k.flops;
      sum.bytes_read += k.bytes_read;
      sum.bytes_written += k.bytes_written;
      sum.launches += k.launches;
    }
    OpCost total = price(sum, roofs, profile);  // the distances and the roofline of the whole
    total.time_s = sc.time_s;
    total.device_time_s = sc.device_time_s;
    total.host_time_s = sc.host_time_s;
    total.compute_time_s = sc.compute_time_s;
    total.memory_time_s = sc.memory_time_s;
    total.overhead_time_s = sc.overhead_time_s;
    total.bound = sc.bound;
    if (profile == Impl::compiled) {
      // A piece of a compiled graph: its kernels back to back; the graph's call (its host time) is
      // the step's, once, not the op's (decode --impl compiled prices it there).
      const double busy = std::max(sc.compute_time_s, sc.memory_time_s);
      total.time_s = sc.device_time_s;
      total.host_time_s = 0;
      total.overhead_time_s = std::max(0.0, sc.device_time_s - busy);
      total.bound = total.overhead_time_s > busy ? Bound::overhead : sc.compute_time_s >= sc.memory_time_s ? Bound::compute : Bound::memory;
    }
    for (size_t i = 0; i < kernels.size(); ++i) {
      kernel_rows.push(op_node(kernels[i], sc.ops[i], total.time_s));  // shares of the op's own time
      explained.emplace_back("kernel " + kernels[i].name, explain_op(kernels[i], sc.ops[i], roofs));
    }
    op = sum;
    c = total;
  }

  Report r;
  r.command = "op";
  r.root.set("meta", make_meta("op", ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(l));
  inputs.set("kind", Node::text(kind));
  inputs.set("dtype", Node::text(dtype));
  r.root.set("inputs", std::move(inputs));
  Node o = op_node(op, c, c.time_s);
  for (const auto& [k, v] : o.items()) r.root.set(k, v);
  const bool several = !kernel_rows.elements().empty();
  r.root.set("kernels", std::move(kernel_rows));
  r.fields.push_back({kind + " " + op_shape(op) + " " + dtype + " on " + l.card.name, "",
                      {{"time_s", "time (predicted)", Hint::time},
                       {"roofline_time_s", "roofline (nominal)", Hint::time},
                       {"bound", "bound", Hint::text},
                       {"flops", "FLOPs", Hint::flops},
                       {"bytes_read", "bytes read", Hint::bytes},
                       {"bytes_written", "bytes written", Hint::bytes},
                       {"intensity", "FLOP/B", Hint::intensity},
                       {"launches", "launches", Hint::integer},
                       {"distance_to_roof", "distance to roof", Hint::ratio},
                       {"distance_to_ridge", "distance to ridge", Hint::ratio}}});
  if (profile == Impl::eager) show_device_and_host(r.fields.back(), "dispatch");
  if (several)
    r.tables.push_back({profile == Impl::eager ? "PyTorch eager's kernels" : "the compiled graph's kernels", "kernels",
                        {{"name", "kernel", Hint::text},
                         {"shape", "shape", Hint::text},
                         {"device_time_s", "device", Hint::time},
                         {"host_time_s", "host", Hint::time},
                         {"bytes", "bytes", Hint::bytes}}});
  if (explain) {
    explained.insert(explained.begin(), {"op " + op.name + (kernels.size() > 1 ? " (its kernels summed; each below)" : ""),
                                         explain_op(op, c, roofs)});
    attach_explanation(r, explained);
  }
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
