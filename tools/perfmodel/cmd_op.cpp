// perfmodel op: one kernel priced on its own.
#include "commands.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "step_report.hpp"

namespace perfmodel::cli {

// Builds the op a kernel name stands for (shared with `accuracy`).
Op make_kernel_op(const std::string& kind, int64_t rows, int64_t cols, DType t, bool unfused,
                  const AttentionShape& a) {
  if (kind == "add") return ops::add("add", rows, cols, t);
  if (kind == "copy") return ops::copy("copy", rows, cols, t);
  if (kind == "gelu") return ops::gelu("gelu", rows, cols, t, !unfused);
  if (kind == "silu_mul") return ops::silu_mul("silu_mul", rows, cols, t);
  if (kind == "rmsnorm") return ops::rmsnorm("rmsnorm", rows, cols, t, false);
  if (kind == "layernorm") return ops::layernorm("layernorm", rows, cols, t, false);
  if (kind == "softmax") return ops::softmax("softmax", rows, cols, t, !unfused);
  if (kind == "attention") {
    if (a.q_len == 1 && !a.causal)
      return ops::attention_decode("attention", a.batch, a.heads, a.kv_heads, a.kv_len, a.head_dim, t, t);
    return ops::attention_prefill("attention", a.batch, a.heads, a.kv_heads, a.q_len, a.kv_len, a.head_dim,
                                  a.causal, t, t);
  }
  throw UsageError("--kind must be one of add, copy, gelu, silu_mul, rmsnorm, layernorm, softmax, attention; got '" +
                   kind + "'");
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
  add_card(d, card);
  d.add_options()("kind", po::value(&kind)->required(),
                  "add | copy | gelu | silu_mul | rmsnorm | layernorm | softmax | attention")(
      "rows", po::value(&rows), "rows (tokens) for row-wise kinds")(
      "cols", po::value(&cols), "columns (features) for row-wise kinds")(
      "dtype", po::value(&dtype)->default_value(dtype), "dtype")(
      "unfused", po::bool_switch(&unfused), "gelu: the 8-kernel eager form; softmax: the 5-kernel naive form")(
      "batch", po::value(&a.batch)->default_value(1), "attention: batch")(
      "heads", po::value(&a.heads), "attention: query heads")(
      "kv-heads", po::value(&a.kv_heads), "attention: KV heads (GQA)")(
      "q-len", po::value(&a.q_len)->default_value(1), "attention: query tokens (1 = decode)")(
      "kv-len", po::value(&a.kv_len), "attention: keys per sequence")(
      "head-dim", po::value(&a.head_dim), "attention: head dimension")(
      "causal", po::bool_switch(&a.causal), "attention: causal mask")(
      "eager", po::bool_switch(&eager), "add the host launch gap of eager execution");
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx, "perfmodel op: one kernel's FLOPs, bytes, roofline and predicted time",
             "perfmodel op --card rtx-4080 --kind add --rows 65536 --cols 1024"))
    return 0;
  const DType t = parse_dtype(dtype, "--dtype");
  if (kind == "attention") {
    for (auto [v, f] : {std::pair{a.batch, "--batch"}, {a.heads, "--heads"}, {a.kv_heads, "--kv-heads"},
                        {a.q_len, "--q-len"}, {a.kv_len, "--kv-len"}, {a.head_dim, "--head-dim"}})
      require_positive(v, f);
    if (a.heads % a.kv_heads) throw UsageError("--heads must be a multiple of --kv-heads");
    if (a.q_len > a.kv_len) throw UsageError("--q-len cannot exceed --kv-len");
  } else {
    require_positive(rows, "--rows");
    require_positive(cols, "--cols");
  }
  Loaded l = load_card(card, ctx);
  Op op = make_kernel_op(kind, rows, cols, t, unfused, a);
  const Roofs roofs = make_roofs(l.card, l.calibration ? &*l.calibration : nullptr);
  OpCost c = price(op, roofs, eager ? Impl::eager : Impl::fused);

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
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
