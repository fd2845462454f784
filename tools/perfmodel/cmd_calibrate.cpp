// perfmodel calibrate: measure the card's real roofs on the GPU (or refit committed raw
// measurements without one) and write the calibration file the cost model uses.
#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>

#include "commands.hpp"
#include "perfmodel/calibration_fit.hpp"
#include "perfmodel/errors.hpp"

namespace perfmodel::cli {

// The GPU part: cmd_gpu_calibrate.cpp in perfmodel-gpu; in perfmodel, cmd_gpu_exec.cpp hands the
// command to perfmodel-gpu or says how to get it.
// `only`: the sections to measure (empty: all of kCalibrationSections).
RawCalibration measure_calibration(Context& ctx, std::string& key, const std::string& raw_out,
                                   const std::vector<std::string>& only);

namespace {

// What `calibrate --on-gpu --only` can measure on its own (docs/calibration.md).
const std::vector<std::string> kCalibrationSections{"roofs", "attention", "gemm", "decode", "issue", "chains", "l2", "switch", "power"};

std::vector<std::string> parse_sections(const std::string& list) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(list);
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    if (std::find(kCalibrationSections.begin(), kCalibrationSections.end(), item) == kCalibrationSections.end())
      throw UsageError("--only: unknown section '" + item + "' (sections: roofs, attention, gemm, decode, issue, chains, l2, switch, power)");
    out.push_back(item);
  }
  if (out.empty()) throw UsageError("--only: name at least one section");
  return out;
}

// The seeds' W3 table: nominal and measured roofs side by side.
Report calibration_report(const Context& ctx, const Card& card, const Calibration& c, const std::string& file) {
  Report r;
  r.command = "calibrate";
  r.root.set("meta", make_meta("calibrate", ctx.argv));
  Node rows = Node::array();
  auto row = [&](const std::string& what, double nominal, const Measured& measured_or_not, Hint h) {
    if (!measured_or_not || *measured_or_not <= 0) return;  // not measured: no row
    const double measured = *measured_or_not;
    Node n = Node::object();
    n.set("roof", Node::text(what));
    n.set("nominal", nominal > 0 ? Node::number(nominal, h) : Node());
    n.set("measured", Node::number(measured, h));
    n.set("ratio", nominal > 0 ? Node::number(measured / nominal, Hint::percent) : Node());
    rows.push(std::move(n));
  };
  row("DRAM bandwidth (copy)", card.bandwidth, c.dram_bandwidth, Hint::byte_rate);
  row("DRAM read stream (fit)", card.bandwidth, c.read_bandwidth, Hint::byte_rate);
  row("DRAM write stream (fit)", card.bandwidth, c.write_bandwidth, Hint::byte_rate);
  row("L2 bandwidth", 0, c.l2_bandwidth, Hint::byte_rate);
  for (int i = 0; i < kPrecisionCount; ++i)
    row("GEMM " + std::string(to_string(static_cast<Precision>(i))), card.peak[i], c.gemm_peak[i], Hint::flop_rate);
  row("flash attention (bf16)", card.peak[static_cast<int>(Precision::bf16)], c.attention_peak, Hint::flop_rate);
  const double p = card.peak[static_cast<int>(Precision::bf16)];
  const double mp = c.gemm_peak[static_cast<int>(Precision::bf16)].value_or(0);
  if (p > 0 && mp > 0 && c.dram_bandwidth > 0) row("ridge bf16 (FLOP/B)", p / card.bandwidth, mp / c.dram_bandwidth, Hint::intensity);
  row("kernel floor", card.launch_overhead_s, c.kernel_floor_s, Hint::time);
  row("host launch (eager)", 0, c.host_launch_s, Hint::time);
  row("memory ramp t0", 0, c.ramp_t0_s, Hint::time);
  row("pass latency (sweep)", 0, c.pass_latency_s, Hint::time);
  row("GEMM fixed cost", 0, c.gemm_fixed_s, Hint::time);
  row("memory ramp bandwidth", card.bandwidth, c.ramp_bandwidth, Hint::byte_rate);
  r.root.set("roofs", std::move(rows));
  r.root.set("calibration_file", Node::text(file));
  r.tables.push_back({"nominal vs measured roofs of " + card.name, "roofs",
                      {{"roof", "roof", Hint::text},
                       {"nominal", "nominal", Hint::none},
                       {"measured", "measured", Hint::none},
                       {"ratio", "measured/nominal", Hint::percent}}});
  r.notes.push_back("wrote " + file);
  return r;
}

}  // namespace

int cmd_calibrate(const std::vector<std::string>& args, Context& ctx) {
  po::options_description d("Options");
  bool g_on_gpu = false;
  std::string g_output;
  std::string card_name, raw_out, only;
  Format format = Format::table;
  std::vector<std::string> raw_in;
  ProfileCalibrateArgs prof;
  d.add_options()("on-gpu", po::bool_switch(&g_on_gpu), "measure on the CUDA device")(
      "card", po::value(&card_name), "catalogue card the device is (default: from the device name)")(
      "output", po::value(&g_output), "calibration file to write (default hardware/<card>.calibration.yaml)")(
      "raw", po::value(&raw_out), "also write the raw measurements (JSON)")(
      "from-raw", po::value(&raw_in)->composing(),
      "refit from raw measurement files instead of measuring (no GPU needed); repeat it to merge files (the "
      "first one's kernel floor and launch overhead are used)")(
      "only", po::value(&only),
      "with --on-gpu: measure only these sections, comma-separated (with --profile: host, attention, decode, gemm, small, graph): roofs (copies, L2, GEMM peaks and M ramp, floor, "
      "launch), attention, gemm (K/N ramps), decode, issue, chains (small kernels' thread chains), l2 (residency of cycled working sets), switch (kernels following different ones), power (sustained "
      "tensor load against the power cap)")(
      "profile", po::value(&prof.profile),
      "measure an implementation profile's own terms instead of the card's roofs, refitted in place in the card's "
      "calibration file (needs --card): fused, eager or compiled. Every part of the profile by default (with recorded "
      "files, those they hold calls for); --only picks: host (eager: the host time transformers' eager "
      "step costs on this machine -> host_per_kernel, host_per_step), attention (the profile's "
      "cuDNN SDPA prefill -> its four attention keys), decode (cuDNN's decode SDPA -> "
      "cudnn_decode's kernel_floor, reduction_floor, stream_bandwidth, cta_latency), gemm (cuBLASLt through "
      "torch.linear -> gemm's fixed, split_k_reduce, cta_walk_per_1024_k, stream_efficiency) and / or small (norms, "
      "softmax, SiLU*mul, rotary: eager, PyTorch's own kernels -> aten's floors, chains and strided rate; compiled and "
      "fused, Inductor's -> inductor's row rates and walk), flash2 and flash2_decode (eager: FlashAttention-2's prefill "
      "and split-KV decode as transformers' flash_attention_2 runs them -> the flash2 and decode blocks), graph (fused: "
      "the step's CUDA-graph replay, fused_step_alone.py -> graph_kernel_gap, graph_launch_per_node; compiled: "
      "torch.compile'd decode steps, compiled_gaps.py -> graph_kernel_gap, graph_call_host, graph_call_host_per_input). A key no "
      "measured call prices with is kept as it was")(
      "calibration", po::value(&prof.calibration),
      "with --profile: the calibration file to refit (default hardware/<card>.calibration.yaml); --output names "
      "another file to write (default: this one, edited in place of those keys)")(
      "probe-model", po::value(&prof.probe_model)->default_value(prof.probe_model),
      "with --profile eager: the catalogue model whose transformers class the host probe runs")(
      "probe-layers", po::value(&prof.probe_layers)->default_value(prof.probe_layers),
      "with --profile eager: the probe's depths, decoder layers kept, one or two comma-separated (two give "
      "host_per_step too; keep a depth under ~20 layers: its kernels must fit the launch queue)")(
      "probe-processes", po::value(&prof.probe_processes)->default_value(prof.probe_processes),
      "with --profile eager --on-gpu: run the probe in this many processes (1-64) and fit their median; the host's pace "
      "changes from one process to the next (2.5x on one H200 lease), so one process reads one draw")(
      "probe-out", po::value(&prof.probe_out),
      "with --profile eager --on-gpu: where the probe's records go (default <output>.host-probe.json; with several "
      "processes <name>.1.json, <name>.2.json, ...)")(
      "from-probe", po::value(&prof.from_probe)->composing(),
      "with --profile eager: refit from recorded probes (profile_host.py --out) instead of measuring (no GPU); repeat it "
      "for several processes' records: each depth's median is fitted")(
      "from-kernels", po::value(&prof.from_kernels)->composing(),
      "with --profile: refit the kernel parts (--only, default: every one the files hold calls for) on recorded calls, a kernels.json of run_all.py "
      "(--groups attention: prefill and decode; gemm; ops: the small kernels) instead of measuring (no GPU); repeat it to fit on several files "
      "(each file's even cases fit, its odd ones held out)")(
      "from-steps", po::value(&prof.from_steps)->composing(),
      "with --profile fused or compiled: refit the graph keys on recorded CUDA-graph steps instead of measuring (no GPU); "
      "fused: fused_step_alone.py's results.jsonl (graph_kernel_gap, graph_launch_per_node); compiled: compiled_gaps.py's "
      "records, a JSON object a line (graph_kernel_gap, graph_call_host; graph_call_host_per_input keeps its shape over "
      "the inputs); repeatable")(
      "steps-out", po::value(&prof.steps_out),
      "with --profile fused|compiled --on-gpu: where the measured steps go (fused: fused_step_alone.py's, default "
      "<output>.graph-steps/; compiled: compiled_gaps.py's compiled_steps.jsonl, default <output>.compiled-steps/)")(
      "kernels-out", po::value(&prof.kernels_out),
      "with --profile --on-gpu --only attention|decode|gemm|small: where run_all.py's measurements go (default <output>.kernels/)");
  add_format(d, format);
  po::variables_map vm;
  if (!parse(args, d, vm, ctx,
             "perfmodel calibrate --on-gpu: measures the card's real roofs (copy and L2 bandwidth, GEMM peak per dtype, "
             "kernel floor, launch overhead, the memory ramp, flash attention, flash-decoding, small kernels' thread "
             "chains, L2 residency, the power cap) and writes a calibration file the cost model uses",
             "perfmodel calibrate --on-gpu --raw calibration-raw.json\n"
             "  perfmodel calibrate --on-gpu --profile eager --card h200\n"
             "  perfmodel calibrate --profile eager --card h200 --from-probe probe.json --output mine.calibration.yaml\n"
             "  perfmodel calibrate --profile fused --card h200 --from-kernels validation/results/h200-production/kernels.json\n"
             "  perfmodel calibrate --profile eager --card h200 --only decode,gemm --from-kernels a/kernels.json --from-kernels "
             "b/kernels.json --output mine.calibration.yaml\n"
             "  perfmodel calibrate --profile fused --card h200 --only graph --from-steps "
             "validation/results/h200-fused-step-alone/results.jsonl --output mine.calibration.yaml\n"
             "  perfmodel calibrate --profile compiled --card h200 --only graph --from-steps "
             "validation/results/h200-compiled2/compiled2.jsonl --output mine.calibration.yaml\n"
             "  perfmodel calibrate --on-gpu --only chains,l2 --raw part.json\n"
             "  perfmodel calibrate --card h200 --from-raw calibration-raw.json --from-raw part.json"))
    return 0;
  if (!prof.profile.empty()) {
    if (!raw_in.empty() || !raw_out.empty()) throw UsageError("--profile measures a profile's terms: drop --from-raw and --raw");
    prof.parts = only;
    prof.card = card_name;
    prof.output = g_output;
    prof.on_gpu = g_on_gpu;
    return calibrate_profile(prof, ctx, format);
  }
  for (const char* k : {"calibration", "probe-out", "from-probe", "from-kernels", "kernels-out", "from-steps", "steps-out"})
    if (vm.count(k)) throw UsageError(std::string("--") + k + " applies with --profile");
  RawCalibration raw;
  std::string key = card_name;
  if (!raw_in.empty()) {
    if (g_on_gpu || !only.empty()) throw UsageError("--from-raw refits committed measurements: drop --on-gpu and --only");
    raw = load_raw_calibration(raw_in);
    if (key.empty()) throw UsageError("--from-raw needs --card");
  } else {
    if (!g_on_gpu) throw UsageError("calibrate needs --on-gpu (or --from-raw FILE)");
    if (!only.empty()) {
      // Part of a calibration cannot be fitted on its own (the thread chains need the floor and
      // the L2 roofs): keep the raw points, to be merged with a full run.
      if (raw_out.empty()) throw UsageError("--only measures part of a calibration: name its raw file with --raw");
      measure_calibration(ctx, key, raw_out, parse_sections(only));
      *ctx.out << "wrote " << raw_out << "; fit it with a full run's points: perfmodel calibrate --from-raw FULL.json --from-raw "
               << raw_out << " --card " << key << "\n";
      return 0;
    }
    raw = measure_calibration(ctx, key, raw_out, {});
  }
  Catalogue cat(ctx.data_root);
  Card card = cat.card(key);
  Calibration c = fit_calibration(raw, card);
  c.measured_on = today_utc();
  const std::string out = g_output.empty() ? cat.calibration_path(card.key) : g_output;
  // Collectives are fitted apart (perfmodel collective --fit): keep those of the file replaced.
  if (std::ifstream(out).good()) c.collectives = load_calibration(out).collectives;
  write_text_file(out, to_yaml(c));
  emit(calibration_report(ctx, card, c, out), format, ctx);
  return 0;
}

}  // namespace perfmodel::cli
