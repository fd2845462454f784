// perfmodel sweep-batch: decode step time and throughput against batch (seed 004 Day 16).
#include <cmath>
#include <sstream>

#include "commands.hpp"
#include "parallel_cli.hpp"
#include "step_report.hpp"

namespace perfmodel::cli {

int cmd_sweep_batch(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  CardArgs card;
  WorkloadArgs wl;
  std::string format, batches, phase = "decode";
  int64_t max_batch = 0;
  add_card(d, card);
  add_workload(d, wl);
  ParallelArgs par;
  add_parallel(d, par);
  d.add_options()("batches", po::value(&batches), "comma-separated batch list (default 1, 2, 4 ... up to the memory limit)")(
      "max-batch", po::value(&max_batch), "stop the doubling at this batch")(
      "phase", po::value(&phase)->default_value(phase), "decode or prefill");
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx,
             "perfmodel sweep-batch: step time, tokens/s, AI(b), bound and the gap to linear scaling for a range of batches",
             "perfmodel sweep-batch --model tinyllama --card t4 --ctx 256"))
    return 0;
  if (phase != "decode" && phase != "prefill") throw UsageError("--phase must be decode or prefill");
  if (vm.count("max-batch")) require_positive(max_batch, "--max-batch");
  Loaded l = load_card(card, ctx);
  Model m = load_model(wl, ctx);
  const Phase ph = phase == "decode" ? Phase::decode : Phase::prefill;
  Workload base = make_workload(wl, ph, l.card);
  apply_parallel(par, base);
  resolve_moe_config(wl, base, m, l.card, ctx);
  // Memory is per GPU: one GPU's share of the model under tp and pp.
  const int64_t fit = plan_memory(base.parallel.sharded() ? shard_model(m, base.parallel) : m, base, l.card, wl.mem_util).max_batch;

  std::vector<int64_t> list;
  if (!batches.empty()) {
    std::stringstream ss(batches);
    std::string item;
    while (std::getline(ss, item, ',')) {
      try {
        size_t pos = 0;
        long long b = std::stoll(item, &pos);
        if (pos != item.size()) throw std::invalid_argument("");
        require_positive(b, "--batches");
        list.push_back(b);
      } catch (const std::invalid_argument&) {
        throw UsageError("--batches: '" + item + "' is not an integer");
      } catch (const std::out_of_range&) {
        throw UsageError("--batches: '" + item + "' is out of range");
      }
    }
  } else {
    const int64_t limit = max_batch > 0 ? std::min(max_batch, std::max<int64_t>(fit, 1)) : std::max<int64_t>(fit, 1);
    for (int64_t b = 1; b <= limit; b *= 2) list.push_back(b);
    if (list.back() != limit && max_batch == 0 && fit > 0) list.push_back(limit);
  }

  Report r;
  r.command = "sweep-batch";
  r.root.set("meta", make_meta("sweep-batch", ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(l));
  inputs.set("model", model_node(m));
  inputs.set("workload", workload_node(base));
  r.root.set("inputs", std::move(inputs));
  Node rows = Node::array();
  double per_seq_rate_1 = 0;
  for (int64_t b : list) {
    Workload w = base;
    w.batch = b;
    PricedStep p = price_workload(m, w, l, wl.mem_util);
    Node row = Node::object();
    row.set("batch", Node::integer(b));
    row.set("time_s", Node::number(p.analysis.step_time_s, Hint::time));  // with stages: the pipeline's
    row.set("device_time_s", Node::number(p.cost.device_time_s, Hint::time));  // decode's step.device_time_s
    row.set("host_time_s", Node::number(p.cost.host_time_s, Hint::time));
    row.set("roofline_time_s", Node::number(p.cost.roofline_time_s, Hint::time));
    row.set("tokens_per_s", Node::number(p.analysis.tokens_per_s));
    row.set("ai", Node::number(p.analysis.ai, Hint::intensity));
    row.set("bound", Node::text(to_string(p.cost.bound)));
    // The side of the nominal ridge AI(b) is on: the seed's whole-step test, the one b* answers
    // (b >= b* exactly when AI(b) >= ridge). "bound" above is another question: which bound holds
    // the most predicted time when each op is priced on its own roofs (attention stays
    // memory-bound at any batch; GEMMs turn compute-bound below b* on the effective roofs).
    row.set("ridge_side", Node::text(p.analysis.ai >= p.analysis.ridge ? "compute" : "memory"));
    if (per_seq_rate_1 == 0) per_seq_rate_1 = p.analysis.tokens_per_s / static_cast<double>(b);
    // Gap to linear scaling: 1 - throughput(b) / (b x throughput(1) per sequence).
    const double linear = per_seq_rate_1 * static_cast<double>(b);
    row.set("gap_to_linear", Node::number(linear > 0 ? 1 - p.analysis.tokens_per_s / linear : 0, Hint::percent));
    row.set("fits", Node::boolean(p.analysis.memory.fits));
    row.set("footprint_bytes", Node::number(p.analysis.memory.total, Hint::bytes));
    row.set("mfu", Node::number(p.analysis.mfu, Hint::percent));
    if (p.parallel) row.set("tokens_per_s_per_gpu", Node::number(p.parallel->tokens_per_s_per_gpu));
    rows.push(std::move(row));
  }
  r.root.set("rows", std::move(rows));
  Node summary = Node::object();
  PricedStep p1 = price_workload(m, base, l, wl.mem_util);
  summary.set("max_batch", Node::integer(fit));
  summary.set("ai_max", Node::number(p1.analysis.ai_max, Hint::intensity));
  summary.set("ridge", Node::number(p1.analysis.ridge, Hint::intensity));
  summary.set("b_star", p1.analysis.b_star ? Node::number(*p1.analysis.b_star, Hint::intensity) : Node::text("never"));
  r.root.set("summary", std::move(summary));
  // What the profile's price does not count, at the sweep's largest batch (a caveat that holds there may not at
  // batch 1: the fused_moe re-reads from 4096 tokens a step), as the step commands say it.
  Workload largest = base;
  largest.batch = list.back();
  Node warnings = Node::array();
  for (const std::string& c : profile_caveats(largest, &m)) {
    warnings.push(Node::text(c));
    r.notes.push_back("note (batch " + std::to_string(largest.batch) + "): " + c);
  }
  r.root.set("warnings", std::move(warnings));
  r.fields.push_back({m.name + " on " + l.card.name + ", " + phase + ", ctx " + std::to_string(base.ctx) + ", " +
                          dtype_label(base) + ", " + impl_label(base),
                      "summary",
                      {{"max_batch", "largest batch that fits", Hint::integer},
                       {"ai_max", "AI_max", Hint::intensity},
                       {"ridge", "ridge (nominal)", Hint::intensity},
                       {"b_star", "b* (AI(b) reaches the nominal ridge)", Hint::intensity}}});
  r.tables.push_back({"", "rows",
                      {{"batch", "batch", Hint::integer},
                       {"time_s", "step time", Hint::time},
                       {"tokens_per_s", "tokens/s", Hint::none},
                       {"ai", "AI(b)", Hint::intensity},
                       {"ridge_side", "AI(b) vs ridge", Hint::text},
                       {"bound", "most time (per-op bounds)", Hint::text},
                       {"gap_to_linear", "gap to linear", Hint::percent},
                       {"fits", "fits", Hint::none},
                       {"mfu", "MFU", Hint::percent}}});
  if (base.parallel.any()) r.tables.back().columns.insert(r.tables.back().columns.begin() + 3, {"tokens_per_s_per_gpu", "tokens/s per GPU", Hint::none});
  // Eager's dispatch can hold the step flat over batch while the kernels grow: show them apart (issue 10).
  if (base.impl == Impl::eager)
    r.tables.back().columns.insert(r.tables.back().columns.begin() + 2, {{"device_time_s", "device", Hint::time},
                                                                         {"host_time_s", "host", Hint::time}});
  r.notes.push_back(
      "\"AI(b) vs ridge\" is the seed's whole-step test: compute from b* on. \"most time\" is the bound holding the "
      "largest share of the predicted time, each op on its own (effective) roofs: attention stays memory-bound at any "
      "batch, so it can read memory past b*, and GEMMs can read compute before it.");
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
