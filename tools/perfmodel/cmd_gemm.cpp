// perfmodel gemm: one GEMM with its CTA tiles, waves and wave efficiency (seed 001 slide 44).
#include <algorithm>
#include <cstdio>

#include "commands.hpp"
#include "explain_cli.hpp"
#include "step_report.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/quant.hpp"

namespace perfmodel::cli {

namespace {
Tile tile_flag(const std::string& s) {
  auto t = parse_tile(s);
  if (!t) throw UsageError("--tile must look like 256x128 (sides 1.." + std::to_string(kMaxTileSide) + "), got '" + s + "'");
  return *t;
}
}  // namespace

int cmd_gemm(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  CardArgs card;
  int64_t m = 0, n = 0, k = 0;
  std::string dtype = "bf16", tile, impl = "fused", accumulate = "fp32";
  Format format = Format::table;
  bool tf32 = false;
  WorkloadArgs quant;  // --weight-dtype, --act-dtype and the quantization flags (issue 12)
  add_card(d, card);
  d.add_options()("m", po::value(&m)->required(), "rows of x and y (tokens)")(
      "n", po::value(&n)->required(), "output features (rows of W)")(
      "k", po::value(&k)->required(), "input features (the reduction)")(
      "dtype", po::value(&dtype)->default_value(dtype), "operand dtype")(
      "tf32", po::bool_switch(&tf32), "fp32 on tensor cores")(
      "accumulate", po::value(&accumulate)->default_value(accumulate),
      "accumulator of an fp16 GEMM: fp32, or fp16 (the card's fp16_acc16 peak: twice fp32's on GeForce "
      "parts, the same on datacenter ones)")(
      "tile", po::value(&tile), "price with this CTA tile, e.g. 256x128 (default: the best tile)")(
      "weight-dtype", po::value(&quant.weight_dtype), "weights: int4|int8 (weight-only), fp8 (W8A8), nvfp4|mxfp4 (default: --dtype)")(
      "act-dtype", po::value(&quant.act_dtype), "GEMM inputs: fp8|int8 (W8A8) (default: --dtype)")(
      "impl", po::value(&impl)->default_value(impl),
      "implementation profile: fused, eager or compiled. All three run cuBLASLt's kernels; eager prices "
      "them with its measured kernel-only GEMM block (the card's GEMM keys otherwise) and adds PyTorch's "
      "host time per call; compiled runs a W8A16 linear as Inductor does (the weight's bf16 copy, the "
      "bf16 GEMM, the scale). Weight-only int4 / int8: fused prices a serving engine's mixed-input GEMM "
      "(Marlin / Machete class: the bf16 GEMM over the packed weights; not measured), eager and compiled "
      "PyTorch's kernels (tinygemm; int8 as above)");

  add_quant(d, quant);
  bool explain = false;
  add_explain(d, explain);
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx,
             "perfmodel gemm: y[m,n] = x[m,k] W[n,k]^T priced with CTA tiles, waves over the SMs and wave quantization",
             "perfmodel gemm --card a100 --m 1793 --n 1793 --k 1793 --tile 256x128"))
    return 0;
  require_positive(m, "--m");
  require_positive(n, "--n");
  require_positive(k, "--k");
  Loaded l = load_card(card, ctx);
  const DType t = parse_dtype(dtype, "--dtype");
  if (accumulate != "fp32" && accumulate != "fp16")
    throw UsageError("--accumulate must be fp32 or fp16, got '" + accumulate + "'");
  // fp16 accumulation exists only for fp16 operands (HMMA.F16; cublasGemmEx with
  // CUBLAS_COMPUTE_16F): the card files' fp16_acc16 peak.
  const bool acc16 = accumulate == "fp16";
  if (acc16 && t != DType::fp16) throw UsageError("--accumulate fp16 needs --dtype fp16, got --dtype " + dtype);
  if (impl != "fused" && impl != "eager" && impl != "compiled")
    throw UsageError("--impl must be fused, eager or compiled, got '" + impl + "'");
  const Impl profile = impl == "eager" ? Impl::eager : impl == "compiled" ? Impl::compiled : Impl::fused;
  // A quantized linear when any quantization flag is given (the bare `--dtype fp8` GEMM stays
  // the plain cuBLASLt product it always was).
  const bool quantized = !quant.weight_dtype.empty() || !quant.act_dtype.empty() || quant.group_size != -1 ||
                         !quant.scaling.empty() || !quant.act_quant.empty();
  if (acc16 && quantized) throw UsageError("--accumulate fp16 prices a plain fp16 GEMM; drop the quantization flags");
  if (acc16 && !l.card.supports(Precision::fp16_acc16))
    throw UsageError("--accumulate fp16: card '" + l.card.key + "' gives no fp16_acc16 peak");
  Workload w;
  w.weight_dtype = quant.weight_dtype.empty() ? t : parse_dtype(quant.weight_dtype, "--weight-dtype");
  w.act_dtype = quant.act_dtype.empty() ? t : parse_dtype(quant.act_dtype, "--act-dtype");
  if (quantized) {
    if (w.act_dtype == DType::int4 && quant.act_dtype.empty()) w.act_dtype = DType::bf16;  // --dtype int4: W4A16
    if (w.act_dtype == DType::int8 && quant.act_dtype.empty() && quant.scaling.empty() &&
        quant.act_quant.empty())
      w.act_dtype = DType::bf16;  // --dtype int8 alone: W8A16 weight-only
    apply_quant(quant, w, l.card);
  }
  std::vector<Op> kernels =
      !(quantized && is_quantized(w))  ? std::vector<Op>{ops::gemm("gemm", m, n, k, t, t, acc16 ? Precision::fp16_acc16 : matmul_precision(t, tf32))}
      : profile == Impl::fused ? quantized_linear("gemm", m, n, k, w, false)
                               : torch_quantized_linear("gemm", m, n, k, w, false, profile);
  // The product itself: the last GEMM-kind kernel (the compiled W8A16's scale runs after it).
  const Op& op = *std::find_if(kernels.rbegin(), kernels.rend(), [](const Op& o) { return o.kind == OpKind::gemm; });
  const Roofs roofs = make_roofs(l.card, l.calibration ? &*l.calibration : nullptr, profile);
  std::optional<Tile> forced;
  if (!tile.empty()) forced = tile_flag(tile);
  OpCost c = price(op, roofs, profile, forced ? &*forced : nullptr);
  // The linear's other kernels (activation amax and quantization) run before the GEMM.
  Node parts = Node::array();
  ExplainSections explained;
  double total = 0, roofline = 0, flops = 0, bytes = 0, device = 0, host = 0;
  for (const Op& k_op : kernels) {
    const OpCost kc = &k_op == &op ? c : price(k_op, roofs, profile);
    explained.emplace_back("kernel " + k_op.name, explain_op(k_op, kc, roofs));
    total += kc.time_s;
    device += kc.device_time_s;
    host += kc.host_time_s;
    roofline += kc.roofline_time_s;
    flops += k_op.flops;
    bytes += k_op.bytes();
    Node row = Node::object();
    row.set("name", Node::text(k_op.name));
    row.set("kernel", Node::text(to_string(k_op.kernel)));
    row.set("time_s", Node::number(kc.time_s, Hint::time));
    row.set("bytes", Node::number(k_op.bytes(), Hint::bytes));
    row.set("bound", Node::text(to_string(kc.bound)));
    parts.push(std::move(row));
  }

  Report r;
  r.command = "gemm";
  r.root.set("meta", make_meta("gemm", ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(l));
  inputs.set("m", Node::integer(m));
  inputs.set("n", Node::integer(n));
  inputs.set("k", Node::integer(k));
  inputs.set("dtype", Node::text(dtype));
  if (quantized) {
    inputs.set("weight_dtype", Node::text(std::string(to_string(w.weight_dtype))));
    inputs.set("act_dtype", Node::text(std::string(to_string(w.act_dtype))));
    inputs.set("workload", workload_node(w));
  }
  inputs.set("precision", Node::text(std::string(to_string(op.precision))));
  inputs.set("impl", Node::text(impl));
  r.root.set("inputs", std::move(inputs));
  r.root.set("time_s", Node::number(total, Hint::time));
  r.root.set("device_time_s", Node::number(device, Hint::time));
  r.root.set("host_time_s", Node::number(host, Hint::time));
  r.root.set("roofline_time_s", Node::number(roofline, Hint::time));
  r.root.set("flops", Node::number(flops, Hint::flops));
  r.root.set("bytes", Node::number(bytes, Hint::bytes));
  r.root.set("intensity", Node::number(bytes > 0 ? flops / bytes : 0, Hint::intensity));
  r.root.set("achieved_flops", Node::number(total > 0 ? flops / total : 0, Hint::flop_rate));
  if (quantized) r.root.set("kernels", std::move(parts));
  r.root.set("bound", Node::text(to_string(c.bound)));
  r.root.set("tile", Node::text(c.tiling->tile.name()));
  r.root.set("tiles", Node::integer(c.tiling->tiles));
  r.root.set("waves", Node::integer(c.tiling->waves));
  r.root.set("wave_efficiency", Node::number(c.tiling->wave_efficiency, Hint::percent));
  r.root.set("split_k", Node::integer(c.tiling->split_k));
  r.root.set("ctas_per_sm", Node::integer(c.tiling->ctas_per_sm));
  Node cands = Node::array();
  for (const Tile& tt : default_tiles()) {
    TilePlan p = plan_tile(m, n, k, 1, tt, l.card.sm_count, roofs.peak[static_cast<int>(op.precision)]);
    Node row = Node::object();
    row.set("tile", Node::text(tt.name()));
    row.set("tiles", Node::integer(p.tiles));
    row.set("ctas_per_sm", Node::integer(p.ctas_per_sm));
    row.set("waves", Node::integer(p.waves));
    row.set("wave_efficiency", Node::number(p.wave_efficiency, Hint::percent));
    row.set("tile_efficiency", Node::number(p.tile_efficiency, Hint::percent));
    row.set("compute_time_s", Node::number(p.compute_time_s, Hint::time));
    cands.push(std::move(row));
  }
  r.root.set("candidates", std::move(cands));
  r.fields.push_back({"GEMM " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
                          (quantized ? dtype_label(w) : dtype + (acc16 ? " (fp16 accumulate)" : "")) +
                          " on " + l.card.name + " (" + std::to_string(l.card.sm_count) + " SMs)",
                      "",
                      {{"time_s", "time (predicted)", Hint::time},
                       {"roofline_time_s", "roofline (nominal)", Hint::time},
                       {"bound", "bound", Hint::text},
                       {"intensity", "FLOP/B", Hint::intensity},
                       {"achieved_flops", "achieved", Hint::flop_rate},
                       {"tile", "tile", Hint::text},
                       {"tiles", "tiles", Hint::integer},
                       {"waves", "waves", Hint::integer},
                       {"wave_efficiency", "wave efficiency", Hint::percent},
                       {"split_k", "split-K", Hint::integer}}});
  // Where a host pays per call (eager's dispatch), the wall hides the kernel: show both, as `op` does (issue 10).
  if (host > 0) show_device_and_host(r.fields.back(), "dispatch");
  r.tables.push_back({"tile candidates", "candidates",
                      {{"tile", "tile", Hint::text},
                       {"tiles", "tiles", Hint::integer},
                       {"ctas_per_sm", "CTAs/SM", Hint::integer},
                       {"waves", "waves", Hint::integer},
                       {"wave_efficiency", "wave eff", Hint::percent},
                       {"tile_efficiency", "tile eff", Hint::percent},
                       {"compute_time_s", "compute time", Hint::time}}});
  if (explain) attach_explanation(r, explained);
  if (quantized) {
    w.impl = profile;
    for (const std::string& c : profile_caveats(w)) r.notes.push_back("note: " + c);
  }
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
