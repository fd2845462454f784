// perfmodel decode | prefill | ops: one step, priced op by op.
#include <iostream>

#include "commands.hpp"
#include "explain_cli.hpp"
#include "parallel_cli.hpp"
#include "step_report.hpp"

namespace perfmodel::cli {

namespace {

int run_step(const std::vector<std::string>& args, Context& ctx, const std::string& command,
             Phase default_phase, bool detailed) {
  po::options_description d("Options");
  CardArgs card;
  WorkloadArgs wl;
  std::string format, phase = default_phase == Phase::decode ? "decode" : "prefill";
  add_card(d, card);
  add_workload(d, wl);
  ParallelArgs par;
  add_parallel(d, par);
  if (command == "ops") d.add_options()("phase", po::value(&phase)->default_value(phase), "decode or prefill");
  bool explain = false;
  add_explain(d, explain);
  add_format(d, format);
  const std::string usage =
      command == "ops" ? "perfmodel ops: every op of one step with FLOPs, bytes, time, bound, tiles, waves and the seed's distances"
      : command == "decode" ? "perfmodel decode: one decode step (one new token per sequence over a KV cache of --ctx tokens)"
                            : "perfmodel prefill: one prefill step (a prompt of --ctx tokens per sequence)";
  const std::string example = "perfmodel " + command + " --model llama2-7b --card a100 --batch 32 --ctx 2048";
  po::variables_map vm;
  if (!parse(args, d, vm, ctx, usage, example)) return 0;
  if (phase != "decode" && phase != "prefill") throw UsageError("--phase must be decode or prefill");
  Loaded l = load_card(card, ctx);
  Model m = load_model(wl, ctx);
  Workload w = make_workload(wl, phase == "decode" ? Phase::decode : Phase::prefill, l.card);
  apply_parallel(par, w);
  resolve_moe_config(wl, w, m, l.card, ctx);
  PricedStep p = price_workload(m, w, l, wl.mem_util);
  Report r = step_report(command, ctx, l, m, p, detailed);
  if (explain)
    attach_explanation(r, explain_evaluation(m, p, make_roofs(l.card, l.calibration ? &*l.calibration : nullptr, runs_as(w)),
                                             wl.mem_util));
  emit(r, format, ctx);
  if (!p.analysis.memory.fits) {
    *ctx.err << "perfmodel: batch " << w.batch << " does not fit on " << l.card.key << " at ctx " << w.ctx
             << "; the largest batch that fits is " << p.analysis.memory.max_batch << "\n";
    return 2;
  }
  return 0;
}

}  // namespace

int cmd_decode(const std::vector<std::string>& a, Context& c) { return run_step(a, c, "decode", Phase::decode, false); }
int cmd_prefill(const std::vector<std::string>& a, Context& c) { return run_step(a, c, "prefill", Phase::prefill, false); }
int cmd_ops(const std::vector<std::string>& a, Context& c) { return run_step(a, c, "ops", Phase::decode, true); }

}  // namespace perfmodel::cli
