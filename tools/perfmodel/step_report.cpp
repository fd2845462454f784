#include "step_report.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "parallel_cli.hpp"
#include "perfmodel/quant.hpp"
#include "perfmodel/units.hpp"

namespace perfmodel::cli {

PricedStep price_workload(const Model& m, const Workload& w, const Loaded& card, double mem_util) {
  EvaluateOptions o;
  o.memory_utilization = mem_util;
  return evaluate(m, w, card.card, card.calibration ? &*card.calibration : nullptr, o);
}

std::string op_shape(const Op& op) {
  char buf[128];
  if (op.kind == OpKind::gemm) {
    std::snprintf(buf, sizeof buf, "%lldx%lldx%lld", static_cast<long long>(op.gemm.m),
                  static_cast<long long>(op.gemm.n), static_cast<long long>(op.gemm.k));
  } else if (op.kind == OpKind::attention) {
    const AttentionShape& a = op.attention;
    std::snprintf(buf, sizeof buf, "b%lld h%lld/%lld q%lld kv%lld d%lld%s", static_cast<long long>(a.batch),
                  static_cast<long long>(a.heads), static_cast<long long>(a.kv_heads),
                  static_cast<long long>(a.q_len), static_cast<long long>(a.kv_len),
                  static_cast<long long>(a.head_dim), a.causal ? " causal" : "");
  } else {
    std::snprintf(buf, sizeof buf, "%lldx%lld", static_cast<long long>(op.rows), static_cast<long long>(op.cols));
  }
  return buf;
}

// The p10-p90 band as JSON [low, high] and as the table's text (measured time relative to the
// prediction, e.g. "-7% / +12%"; error_band.hpp).
Node band_node(const TimeBand& b) {
  if (!(b.high_s > 0)) return Node();  // null: no measurements of this kind
  Node a = Node::array();
  a.push(Node::number(b.low_s, Hint::time));
  a.push(Node::number(b.high_s, Hint::time));
  return a;
}

std::string band_text(const TimeBand& b, double time_s) {
  if (!(time_s > 0)) return "-";
  if (!(b.high_s > 0)) return "n/a";  // no measurements of this kind
  char buf[48];
  std::snprintf(buf, sizeof buf, "%+.0f%% / %+.0f%%", (b.low_s / time_s - 1) * 100, (b.high_s / time_s - 1) * 100);
  return buf;
}

Node op_node(const Op& op, const OpCost& c, double step_time) {
  const double n = static_cast<double>(op.count);
  Node o = Node::object();
  o.set("name", Node::text(op.name));
  o.set("kind", Node::text(to_string(op.kind)));
  o.set("kernel", Node::text(to_string(op.kernel)));
  o.set("shape", Node::text(op_shape(op)));
  o.set("dtype", Node::text(std::string(to_string(op.dtype))));
  o.set("precision", Node::text(std::string(to_string(op.precision))));
  o.set("count", Node::integer(op.count));
  o.set("launches", Node::integer(op.launches * op.count));
  o.set("flops", Node::number(n * op.flops, Hint::flops));
  o.set("bytes", Node::number(n * op.bytes(), Hint::bytes));
  o.set("bytes_read", Node::number(n * op.bytes_read, Hint::bytes));
  o.set("bytes_written", Node::number(n * op.bytes_written, Hint::bytes));
  o.set("intensity", Node::number(op.intensity(), Hint::intensity));
  o.set("time_s", Node::number(n * c.time_s, Hint::time));
  o.set("roofline_time_s", Node::number(n * c.roofline_time_s, Hint::time));
  o.set("device_time_s", Node::number(n * c.device_time_s, Hint::time));
  o.set("host_time_s", Node::number(n * c.host_time_s, Hint::time));
  o.set("time_per_instance_s", Node::number(c.time_s, Hint::time));
  o.set("time_band_s", band_node({n * c.time_band.low_s, n * c.time_band.high_s}));
  o.set("band", Node::text(band_text(c.time_band, c.time_s)));
  o.set("bound", Node::text(to_string(c.bound)));
  o.set("overlaps", Node::boolean(op.overlaps));
  o.set("share", Node::number(step_time > 0 ? n * c.time_s / step_time : 0, Hint::percent));
  o.set("distance_to_roof", Node::number(c.distance_to_roof, Hint::ratio));
  o.set("distance_to_ridge", Node::number(c.distance_to_ridge, Hint::ratio));
  o.set("roof_gap", Node::number(c.roof_gap, Hint::ratio));
  if (c.tiling) {
    o.set("tile", Node::text(c.tiling->tile.name()));
    o.set("tiles", Node::integer(c.tiling->tiles));
    o.set("waves", Node::integer(c.tiling->waves));
    o.set("wave_efficiency", Node::number(c.tiling->wave_efficiency, Hint::percent));
    o.set("split_k", Node::integer(c.tiling->split_k));
  }
  return o;
}

Node step_node(const PricedStep& p) {
  Node s = Node::object();
  s.set("time_s", Node::number(p.cost.time_s, Hint::time));
  s.set("time_band_s", band_node(p.cost.time_band));
  s.set("band", Node::text(band_text(p.cost.time_band, p.cost.time_s) + " (p10-p90 of measured errors: " +
                           p.band_source + ")"));
  s.set("device_time_s", Node::number(p.cost.device_time_s, Hint::time));
  s.set("host_time_s", Node::number(p.cost.host_time_s, Hint::time));
  s.set("roofline_time_s", Node::number(p.cost.roofline_time_s, Hint::time));
  s.set("flops", Node::number(p.step.flops(), Hint::flops));
  s.set("bytes", Node::number(p.step.bytes(), Hint::bytes));
  s.set("intensity", Node::number(p.step.bytes() > 0 ? p.step.flops() / p.step.bytes() : 0, Hint::intensity));
  s.set("launches", Node::integer(p.step.launches()));
  s.set("bound", Node::text(to_string(p.cost.bound)));
  s.set("clock_scale", Node::number(p.cost.clock_scale, Hint::percent));
  s.set("memory_bound_share", Node::number(p.cost.time_s > 0 ? p.cost.memory_time_s / p.cost.time_s : 0, Hint::percent));
  s.set("compute_bound_share", Node::number(p.cost.time_s > 0 ? p.cost.compute_time_s / p.cost.time_s : 0, Hint::percent));
  s.set("overhead_bound_share", Node::number(p.cost.time_s > 0 ? p.cost.overhead_time_s / p.cost.time_s : 0, Hint::percent));
  return s;
}

Node analysis_node(const Analysis& a) {
  Node n = Node::object();
  n.set("parameters", Node::number(a.parameters, Hint::integer));
  n.set("weight_bytes", Node::number(a.weight_bytes, Hint::bytes));
  if (a.moe) {  // mixture of experts: what a token uses and what this decode step reads
    n.set("active_parameters", Node::number(a.active_parameters, Hint::integer));
    n.set("decode_weight_bytes", Node::number(a.decode_weight_bytes, Hint::bytes));
  }
  n.set("kv_bytes_per_token", Node::number(a.kv_bytes_per_token, Hint::bytes));
  n.set("ai", Node::number(a.ai, Hint::intensity));
  n.set("ai_max", Node::number(a.ai_max, Hint::intensity));
  n.set("ridge", Node::number(a.ridge, Hint::intensity));
  n.set("b_star", a.b_star ? Node::number(*a.b_star, Hint::intensity) : Node::text("never"));
  n.set("max_batch", Node::integer(a.memory.max_batch));
  n.set("fits", Node::boolean(a.memory.fits));
  n.set("footprint_bytes", Node::number(a.memory.total, Hint::bytes));
  n.set("kv_cache_bytes", Node::number(a.memory.kv, Hint::bytes));
  n.set("activation_bytes", Node::number(a.memory.activations, Hint::bytes));
  n.set("usable_memory_bytes", Node::number(a.memory.usable, Hint::bytes));
  n.set("tpot_s", a.tpot_s > 0 ? Node::number(a.tpot_s, Hint::time) : Node());
  n.set("tpot_floor_s", a.tpot_floor_s > 0 ? Node::number(a.tpot_floor_s, Hint::time) : Node());
  n.set("ttft_s", Node::number(a.ttft_s, Hint::time));  // the whole batch's prefill
  n.set("ttft_per_request_s", a.ttft_per_request_s > 0 ? Node::number(a.ttft_per_request_s, Hint::time) : Node());
  n.set("kv_bytes_per_sequence", Node::number(a.kv_bytes_per_sequence, Hint::bytes));
  n.set("tokens_per_s", Node::number(a.tokens_per_s, Hint::none));
  n.set("mfu", Node::number(a.mfu, Hint::percent));
  n.set("hfu", Node::number(a.hfu, Hint::percent));
  return n;
}

// From this many tokens a step the default fused_moe tile's long-K down projections run slower than priced: vLLM's
// align scatters each expert's rows over the input, which those GEMMs pay for and the price does not count
// (h100-roworder: sorted rows run at the price; h100-tunedbig, h100-slabcheck; docs/model.md, "Long prefills at the
// default tile").
constexpr int64_t kFusedMoeScatterTokens = 4096;

std::vector<std::string> profile_caveats(const Workload& w, const Model* m) {
  std::vector<std::string> out;
  if (m && m->moe.enabled() && w.impl == Impl::fused && w.fused_moe_tiles.empty() &&
      w.tokens() >= kFusedMoeScatterTokens)
    out.push_back("at " + std::to_string(w.tokens()) + " tokens vLLM's default fused_moe tile walks each expert's "
                  "rows in the order vLLM's align scatters them, which slows long-K down projections by a cost the "
                  "price does not count (Mixtral's w2 1.07 / 1.38 / 1.50x its sorted-row time at 4096 / 8192 / 16384 "
                  "tokens on an H100, validation/results/h100-roworder): measured on an H100 at 4096-24576 tokens, "
                  "the default's grouped GEMMs are 10.3 / 13.6 % off median / p90, long-K down projections up to 37 % "
                  "fast and fine-grained experts 6-15 % slow (h100-slabcheck); a vLLM tuned file (--moe-config) "
                  "prices 2.8 / 9.3 % there");
  if (w.impl == Impl::fused && linear_kind(w) == LinearKind::weight_only)
    out.push_back(std::string("the fused profile prices ") + (w.weight_dtype == DType::int8 ? "W8A16" : "W4A16") +
                  " linears as a serving engine's mixed-input GEMM (Marlin / Machete, TensorRT-LLM's fpA_intB): its "
                  "bf16 GEMM over the packed weights and scales. Not measured: those kernels are not installed on the "
                  "lent H200; PyTorch's own kernels (tinygemm, int8pack) are --impl eager / compiled");
  return out;
}

Report step_report(const std::string& command, const Context& ctx, const Loaded& card,
                   const Model& m, const PricedStep& p, bool detailed) {
  Report r;
  r.command = command;
  r.root.set("meta", make_meta(command, ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(card));
  inputs.set("model", model_node(m));
  inputs.set("workload", workload_node(p.workload));
  if (p.workload.parallel.any()) inputs.set("parallelism", parallelism_node(p.workload.parallel));
  r.root.set("inputs", std::move(inputs));
  r.root.set("step", step_node(p));
  Node ops = Node::array();
  for (size_t i = 0; i < p.step.ops.size(); ++i) ops.push(op_node(p.step.ops[i], p.cost.ops[i], p.cost.time_s));
  r.root.set("ops", std::move(ops));
  r.root.set("analysis", analysis_node(p.analysis));
  Node status = Node::object();
  status.set("fits", Node::boolean(p.status.fits));
  status.set("reason", p.status.fits ? Node() : Node::text(p.status.reason));
  r.root.set("status", std::move(status));
  Node warnings = Node::array();
  for (const auto& w : card.card.warnings) warnings.push(Node::text(w));
  for (const std::string& c : profile_caveats(p.workload, &m)) {
    warnings.push(Node::text(c));
    r.notes.push_back("note: " + c);
  }
  r.root.set("warnings", std::move(warnings));

  const bool decode = p.workload.phase == Phase::decode;
  r.fields.push_back({m.name + " on " + card.card.name + " — " + to_string(p.workload.phase) + ", batch " +
                          std::to_string(p.workload.batch) + ", ctx " + std::to_string(p.workload.ctx) + ", " +
                          dtype_label(p.workload) + ", " + impl_label(p.workload) +
                          (p.workload.parallel.any() ? ", " + to_string(p.workload.parallel) : "") +
                          (!card.calibration                        ? ", datasheet roofs"
                           : card.calibration_card == card.card.key ? ", calibrated"
                                                                    : ", calibrated on " + card.calibration_card + " (same die)"),
                      "step",
                      {{"time_s", p.cost.host_time_s > 0 ? "step time (predicted wall)" : "step time (predicted)", Hint::time},
                       {"band", "  measured range", Hint::text},
                       {"roofline_time_s", "roofline bound (nominal)", Hint::time},
                       {"bound", "bound by", Hint::text},
                       {"flops", "FLOPs", Hint::flops},
                       {"bytes", "bytes moved", Hint::bytes},
                       {"intensity", "arithmetic intensity (FLOP/B)", Hint::intensity},
                       {"launches", "kernel launches", Hint::integer}}});
  // The wall time and the GPU's kernel time differ where the host takes part: eager issues every
  // kernel; a graph profile's host launches the graph (cudaGraphLaunch, per node), which a loop that
  // waits on each step waits for and a pipelined engine hides (docs/model.md, "Graph replay gap and
  // graph launch").
  if (p.cost.host_time_s > 0)
    show_device_and_host(r.fields.back(), p.workload.impl == Impl::eager ? "dispatch" : "graph launch");
  std::vector<Column> an{{"tokens_per_s", "tokens/s", Hint::none}};
  if (decode) {
    an.push_back({"tpot_s", "TPOT (time per output token)", Hint::time});
    an.push_back({"tpot_floor_s", "TPOT floor (bytes / nominal BW)", Hint::time});
  }
  // TTFT: the batch's prefill is what the last request of a batch admitted at once waits for;
  // one request's own prefill (batch 1) is the figure a lone user sees.
  an.insert(an.end(), {{"ttft_s", "TTFT, whole batch (prefill of " + std::to_string(p.workload.batch) + " x " +
                                      std::to_string(p.workload.ctx) + " tokens)", Hint::time},
                       {"ttft_per_request_s", "TTFT per request (one prompt of " + std::to_string(p.workload.ctx) +
                                                  " tokens, batch 1)", Hint::time},
                       {"weight_bytes", "weights", Hint::bytes}});
  if (p.analysis.moe)
    an.insert(an.end(), {{"parameters", "parameters (total, all experts resident)", Hint::integer},
                         {"active_parameters", "active parameters per token", Hint::integer},
                         {"decode_weight_bytes", "weights read by this step (touched experts)", Hint::bytes}});
  an.insert(an.end(), {{"kv_bytes_per_token", "KV cache per token", Hint::bytes},
                       {"kv_bytes_per_sequence", "KV per sequence (n kv, windows capped)", Hint::bytes},
                       {"ai", "AI(b) = 2Nb / (W + b n kv)", Hint::intensity},
                       {"ai_max", "AI_max = 2N / (n kv)", Hint::intensity},
                       {"ridge", "ridge (nominal peak / BW)", Hint::intensity},
                       {"b_star", "b* (batch to reach the ridge)", Hint::intensity},
                       {"footprint_bytes", "memory footprint", Hint::bytes},
                       {"usable_memory_bytes", "usable memory", Hint::bytes},
                       {"max_batch", "largest batch that fits", Hint::integer},
                       {"mfu", "MFU", Hint::percent},
                       {"hfu", "HFU", Hint::percent}});
  r.fields.push_back({"analysis", "analysis", an});
  std::vector<Column> cols{{"name", "op", Hint::text},     {"kind", "kind", Hint::text},
                           {"shape", "shape", Hint::text}, {"count", "x", Hint::integer},
                           {"time_s", "time", Hint::time}, {"band", "±", Hint::text},
                           {"share", "share", Hint::percent},
                           {"roofline_time_s", "roofline", Hint::time}, {"bound", "bound", Hint::text},
                           {"intensity", "FLOP/B", Hint::intensity}};
  // Eager's ops wait on the host's dispatch: their kernels' own time beside the wall (issue 10).
  if (p.workload.impl == Impl::eager) cols.insert(cols.begin() + 5, {"device_time_s", "device", Hint::time});
  if (detailed) {
    cols.insert(cols.end(), {{"flops", "FLOPs", Hint::flops},
                             {"bytes", "bytes", Hint::bytes},
                             {"tile", "tile", Hint::text},
                             {"waves", "waves", Hint::integer},
                             {"wave_efficiency", "wave eff", Hint::percent},
                             {"distance_to_roof", "to roof", Hint::ratio},
                             {"distance_to_ridge", "to ridge", Hint::ratio}});
  }
  add_parallel_report(r, p);
  r.tables.push_back({"ops (times are all instances in the step)", "ops", cols});
  if (p.cost.clock_scale < 1)
    r.notes.push_back("power cap: run back to back, these steps would draw more than the board's cap; the clock settles at " +
                      std::to_string(static_cast<int>(std::lround(p.cost.clock_scale * 100))) +
                      " % of full and compute-bound ops stretch with it (docs/model.md, \"power cap\").");
  // Where the wall is the host's, say how far a host may be from the one priced (docs/calibration.md, "By process,
  // not by vCPU"): the same eager probe ran 2.5x apart in 28 processes of one H200 lease.
  if (p.workload.impl == Impl::eager && p.cost.host_time_s > p.cost.device_time_s)
    r.notes.push_back("host-bound: the wall is PyTorch's dispatch, priced at one measured host's pace; that pace changes "
                      "by machine and from one process to the next (2.5x over 28 processes of one H200 lease), which the "
                      "measured range above carries. `perfmodel calibrate --on-gpu --profile eager` measures this "
                      "machine's (the median of 5 processes).");
  if (!p.status.fits) r.notes.push_back("DOES NOT FIT: " + p.status.reason + ".");
  return r;
}

}  // namespace perfmodel::cli
