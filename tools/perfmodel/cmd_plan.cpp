// perfmodel plan: the deployments of a model on a card that serve requests within a TTFT and a
// TPOT, best tokens/s per GPU first, and why the best of the others fail (perfmodel::plan).
#include <algorithm>

#include "commands.hpp"
#include "parallel_cli.hpp"
#include "perfmodel/plan.hpp"
#include "perfmodel/units.hpp"

namespace perfmodel::cli {

namespace {

double parse_time(const std::string& text, const std::string& flag) {
  std::string why;
  auto v = parse_quantity(text, Dimension::seconds, &why);
  if (!v) throw UsageError(flag + ": " + why + " (a time such as 2s or 50ms)");
  return *v;
}

// "bf16,fp8" -> the dtypes, each checked as --weight-dtype / --kv-dtype are.
std::vector<DType> parse_dtypes(const std::string& list, const std::string& flag) {
  std::vector<DType> v;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    v.push_back(parse_dtype(item, flag));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return v;
}

Node deployment_node(const Deployment& d, int rank) {
  Node n = parallelism_node(d.parallel);
  if (rank > 0) n.set("rank", Node::integer(rank));
  n.set("batch", Node::integer(d.batch));
  n.set("weight_dtype", Node::text(std::string(to_string(d.weight_dtype))));
  n.set("kv_dtype", Node::text(std::string(to_string(d.kv_dtype))));
  n.set("impl", Node::text(to_string(d.impl)));
  n.set("ttft_s", Node::number(d.ttft_s, Hint::time));
  n.set("tpot_s", Node::number(d.tpot_s, Hint::time));
  n.set("prefill_s", Node::number(d.prefill_s, Hint::time));
  n.set("tokens_per_s", Node::number(d.tokens_per_s, Hint::none));
  n.set("tokens_per_s_per_gpu", Node::number(d.tokens_per_s_per_gpu, Hint::none));
  n.set("memory_per_gpu_bytes", Node::number(d.memory_per_gpu, Hint::bytes));
  n.set("max_batch", Node::integer(d.max_batch));
  n.set("meets_slo", Node::boolean(d.meets));
  n.set(d.meets ? "batch_limit" : "reason", Node::text(d.limit));
  return n;
}

}  // namespace

int cmd_plan(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  CardArgs card;
  WorkloadArgs wl;
  wl.model = "llama3-70b";
  card.card = "h200";
  PlanRequest req;
  std::string ttft = "2s", tpot = "50ms", format, impl = "all", weight_dtypes, kv_dtypes;
  int top = 10;
  add_card(d, card);
  d.add_options()("model", po::value(&wl.model)->default_value(wl.model),
                  "model: catalogue key, alias, a catalogue model's Hugging Face repo id (Qwen/Qwen3-30B-A3B), YAML path or Hugging Face config.json")(
      "ctx", po::value(&req.ctx)->default_value(req.ctx), "prompt tokens per request")(
      "output-len", po::value(&req.output_len)->default_value(req.output_len), "generated tokens per request")(
      "ttft", po::value(&ttft)->default_value(ttft),
      "SLO: time to first token = prefill of one request's prompt (batch 1, through every pipeline stage) + one "
      "decode step of the running batch")(
      "tpot", po::value(&tpot)->default_value(tpot),
      "SLO: time per output token = one decode step of the batch at the mean context ctx + output-len / 2")(
      "gpus", po::value(&req.max_gpus)->default_value(req.max_gpus), "GPUs available (0: one node of the card)")(
      "users", po::value(&req.users)->default_value(req.users),
      "concurrent requests to serve: replicas (dp) are added for them (0: one replica at its best batch)")(
      "impl", po::value(&impl)->default_value(impl), "profiles searched: fused, eager or all")(
      "weight-dtypes", po::value(&weight_dtypes), "weight dtypes searched, e.g. bf16,fp8 (default: bf16, and fp8 where the card has it)")(
      "kv-dtypes", po::value(&kv_dtypes), "KV-cache dtypes searched (default as --weight-dtypes)")(
      "top", po::value(&top)->default_value(top), "deployments listed")(
      "mem-util", po::value(&req.memory_utilization)->default_value(req.memory_utilization, "0.9"),
      "share of each GPU's memory usable for weights + KV + activations (vLLM default 0.9)");
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx,
             "perfmodel plan: deployments (GPUs, TP/PP/EP/DP, batch, weight and KV dtypes, profile) that meet a TTFT "
             "and a TPOT, ranked by tokens/s per GPU.\n"
             "TPOT is a decode step at the mean context ctx + output-len/2; TTFT is the prefill of one request's "
             "prompt at batch 1 plus one decode step of the chosen batch; memory holds the batch's KV at "
             "ctx + output-len. Tensor parallelism stays within one node's NVLink domain.",
             "perfmodel plan --model llama3-70b --card h200 --ctx 4096 --output-len 512 --ttft 2s --tpot 50ms --gpus 16"))
    return 0;
  req.ttft_s = parse_time(ttft, "--ttft");
  req.tpot_s = parse_time(tpot, "--tpot");
  if (req.max_gpus < 0) throw UsageError("--gpus must be positive (0: one node), got " + std::to_string(req.max_gpus));
  if (req.users < 0) throw UsageError("--users must be positive (0: none), got " + std::to_string(req.users));
  if (top < 1) throw UsageError("--top must be at least 1, got " + std::to_string(top));
  if (impl == "fused") req.impls = {Impl::fused};
  else if (impl == "eager") req.impls = {Impl::eager};
  else if (impl != "all") throw UsageError("--impl must be fused, eager or all, got '" + impl + "'");
  if (!weight_dtypes.empty()) req.weight_dtypes = parse_dtypes(weight_dtypes, "--weight-dtypes");
  if (!kv_dtypes.empty()) req.kv_dtypes = parse_dtypes(kv_dtypes, "--kv-dtypes");
  Loaded l = load_card(card, ctx);
  const Model m = load_model(wl, ctx);
  req.prepare = [&](Workload& w) { resolve_moe_config(wl, w, m, l.card, ctx); };
  const PlanResult res = plan(m, l.card, l.calibration ? &*l.calibration : nullptr, req);

  Report r;
  r.command = "plan";
  r.root.set("meta", make_meta("plan", ctx.argv));
  Node inputs = Node::object();
  inputs.set("card", card_node(l));
  inputs.set("model", model_node(m));
  inputs.set("ctx", Node::integer(req.ctx));
  inputs.set("output_len", Node::integer(req.output_len));
  inputs.set("ttft_s", Node::number(req.ttft_s, Hint::time));
  inputs.set("tpot_s", Node::number(req.tpot_s, Hint::time));
  inputs.set("gpus", Node::integer(req.max_gpus > 0 ? req.max_gpus : l.card.interconnect.gpus_per_node));
  inputs.set("users", Node::integer(req.users));
  r.root.set("inputs", std::move(inputs));
  Node deps = Node::array();
  const size_t shown = std::min(res.deployments.size(), static_cast<size_t>(top));
  for (size_t i = 0; i < shown; ++i) deps.push(deployment_node(res.deployments[i], static_cast<int>(i) + 1));
  r.root.set("deployments", std::move(deps));
  Node rej = Node::array();
  for (const Deployment& x : res.rejected) rej.push(deployment_node(x, 0));
  r.root.set("rejected", std::move(rej));
  r.root.set("meeting_slo", Node::integer(static_cast<int64_t>(res.deployments.size())));
  r.root.set("steps_priced", Node::integer(res.evaluated));

  std::vector<Column> cols{{"rank", "#", Hint::integer},          {"gpus", "GPUs", Hint::integer},
                           {"tp", "tp", Hint::integer},           {"pp", "pp", Hint::integer},
                           {"ep", "ep", Hint::integer},           {"dp", "dp", Hint::integer},
                           {"weight_dtype", "weights", Hint::text}, {"kv_dtype", "KV", Hint::text},
                           {"impl", "impl", Hint::text},          {"batch", "batch", Hint::integer},
                           {"ttft_s", "TTFT", Hint::time},        {"tpot_s", "TPOT", Hint::time},
                           {"tokens_per_s_per_gpu", "tok/s/GPU", Hint::none},
                           {"tokens_per_s", "tok/s", Hint::none},
                           {"memory_per_gpu_bytes", "mem/GPU", Hint::bytes},
                           {"batch_limit", "batch limited by", Hint::text}};
  r.tables.push_back({m.name + " on " + l.card.name + ": " + std::to_string(res.deployments.size()) +
                          " deployments meet TTFT <= " + format_time(req.ttft_s) + " and TPOT <= " +
                          format_time(req.tpot_s) + " (best tokens/s per GPU first)",
                      "deployments", cols});
  if (format != "csv" && !res.rejected.empty())
    r.tables.push_back({"the best rejected (at batch 1) and why", "rejected",
                        {{"gpus", "GPUs", Hint::integer},
                         {"tp", "tp", Hint::integer},
                         {"pp", "pp", Hint::integer},
                         {"ep", "ep", Hint::integer},
                         {"dp", "dp", Hint::integer},
                         {"weight_dtype", "weights", Hint::text},
                         {"kv_dtype", "KV", Hint::text},
                         {"impl", "impl", Hint::text},
                         {"ttft_s", "TTFT", Hint::time},
                         {"tpot_s", "TPOT", Hint::time},
                         {"tokens_per_s_per_gpu", "tok/s/GPU", Hint::none},
                         {"reason", "why not", Hint::text}}});
  if (res.deployments.empty()) r.notes.push_back("no deployment meets the SLOs on these GPUs");
  emit(r, format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
