#pragma once
// Shared pieces of the subcommands: flag parsing (Boost.Program_options), loading the card,
// model and calibration, building the workload, and printing a Report.
#include <boost/program_options.hpp>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/card.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/report.hpp"
#include "perfmodel/workload.hpp"
#include "printer.hpp"

namespace perfmodel::cli {

namespace po = boost::program_options;

// Thrown for usage errors (exit code 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Context {
  std::string program;             // argv[0]
  std::vector<std::string> argv;   // full command line, for meta
  std::string data_root;           // folder with hardware/ and models/
  std::ostream* out;
  std::ostream* err;
};

struct Command {
  std::string name;
  std::string summary;
  std::function<int(const std::vector<std::string>& args, Context& ctx)> run;
};
const std::vector<Command>& commands();

// Runs one command line (argv[0] first) and returns the exit code; every error is one line on
// `err` (dispatch.cpp).
int run_cli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

// Parses `args` against `desc`. Returns false when --help was given (help already printed).
// Unknown flags throw UsageError with a "did you mean".
bool parse(const std::vector<std::string>& args, const po::options_description& desc,
           po::variables_map& vm, Context& ctx, const std::string& usage,
           const std::string& example, const po::positional_options_description* pos = nullptr);

// --format and the printers: printer.hpp.

struct CardArgs {
  std::string card = "a100";
  std::string calibration;  // file
  bool no_calibration = false;
};
void add_card(po::options_description& d, CardArgs& a, bool with_calibration = true);

struct Loaded {
  Card card;
  std::optional<Calibration> calibration;
  std::string calibration_file;
  std::string calibration_card;  // the card it was measured on (another of the same die: calibration_transfer.hpp)
};
Loaded load_card(const CardArgs& a, Context& ctx);

struct WorkloadArgs {
  std::string model = "llama2-7b";
  int64_t batch = 1;
  int64_t ctx = 2048;
  std::string dtype = "auto";
  std::string weight_dtype, act_dtype, kv_dtype;
  // Quantization (issue 12, quant.hpp): empty / negative = not given.
  int64_t group_size = -1;
  std::string scaling, act_quant;
  std::string impl = "fused";
  bool tf32 = false;
  double mem_util = 0.9;
  double routing_skew = 0;
  std::string moe_config = "auto";  // --moe-config: auto, default or a vLLM tuned fused_moe file (Workload::fused_moe_tiles)
  double gpu_rest = 0;  // --gpu-rest: seconds the GPU rests before each step (Workload::gpu_rest_s)
  std::string attn_implementation = "sdpa";  // --attn-implementation sdpa|flash_attention_2 (eager)
  std::string eager_cache = "contiguous";  // --eager-cache contiguous|cropped  // MoE: Zipf exponent of the experts' popularity (0 = uniform)
};
void add_workload(po::options_description& d, WorkloadArgs& a, bool with_model = true);
// `card` resolves --dtype auto: bf16 where the card has a bf16 peak, else fp16 (T4).
Workload make_workload(const WorkloadArgs& a, Phase phase, const Card& card);
Model load_model(const WorkloadArgs& a, Context& ctx);
// --moe-config auto (the default): the fused profile's MoE steps run the tuned file vLLM ships for the GPU's experts,
// their width, the card and the dtype, where the catalogue holds it (vllm_moe_configs.hpp); call after the
// parallelism is set. A path or `default` was settled by make_workload.
void resolve_moe_config(const WorkloadArgs& a, Workload& w, const Model& m, const Card& card, const Context& ctx);
// --group-size, --scaling, --act-quant (shared by the step commands and `gemm`).
void add_quant(po::options_description& d, WorkloadArgs& a);
// Applies --act-dtype (8- and 4-bit: the GEMMs' inputs), --group-size, --scaling and --act-quant
// to `w` and refuses what `card` cannot run (UsageError, exit 2).
void apply_quant(const WorkloadArgs& a, Workload& w, const Card& card);
// "bf16" when weights, activations and KV share an unquantized dtype; else every dtype named.
std::string dtype_label(const Workload& w);
// The profile, with the vLLM tuned fused_moe file's name where --moe-config gave one.
std::string impl_label(const Workload& w);
// Where a host takes part (eager's dispatch, a graph's launch), the wall hides the kernels: the kernel time and the
// host's under the wall time, the view's first field (issue 10: both shown where the host matters).
void show_device_and_host(FieldsView& v, const std::string& host_label);

DType parse_dtype(const std::string& s, const std::string& flag);
// Today's date (UTC), YYYY-MM-DD, for result files.
std::string today_utc();
// Writes a whole text file; InputError when it cannot.
void write_text_file(const std::string& path, const std::string& text);
void require_positive(int64_t v, const std::string& flag);

// Objects shared by several reports.
Node card_node(const Loaded& l);
Node model_node(const Model& m);
Node workload_node(const Workload& w);

}  // namespace perfmodel::cli
