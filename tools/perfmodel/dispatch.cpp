// perfmodel's dispatch: the command table and run_cli, the only place that catches errors, prints
// them and chooses the exit code: 0 ok, 1 runtime failure, 2 bad input or usage. main.cpp calls
// it with the process's argv; the CLI fuzz target (fuzz/) with generated ones.
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/version.hpp"

namespace perfmodel::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> list{
      {"decode", "one decode step: per-op times, bound, AI(b), b*, memory limit, TPOT, TTFT", cmd_decode},
      {"prefill", "one prefill step (TTFT)", cmd_prefill},
      {"sweep-batch", "decode step time and tokens/s against batch, up to the memory limit", cmd_sweep_batch},
      {"ops", "every op of a step with FLOPs, bytes, tiles, waves and distances", cmd_ops},
      {"gemm", "one GEMM with CTA tiles, waves and wave quantization", cmd_gemm},
      {"op", "one kernel (add, copy, gelu, silu_mul, rmsnorm, layernorm, softmax, attention)", cmd_op},
      {"roofline", "a step's ops on the card's roofline (--svg draws it)", cmd_roofline},
      {"occupancy", "resident blocks and warps per SM, limiting resource, waves", cmd_occupancy},
      {"tiling", "a tiled matmul's loads against the naive one, the largest tile in shared memory", cmd_tiling},
      {"collective", "an NCCL collective's time, algorithm, protocol and bus bandwidth", cmd_collective},
      {"plan", "deployments (GPUs, TP/PP/DP, batch, dtypes, profile) meeting a TTFT and a TPOT, best tokens/s per GPU first", cmd_plan},
      {"cards", "list the GPUs in the catalogue", cmd_cards},
      {"models", "list the models in the catalogue", cmd_models},
      {"validate", "run the step's ops on a real GPU: predicted against measured (--on-gpu)", cmd_validate},
      {"calibrate", "measure the card's real roofs and write a calibration file (--on-gpu)", cmd_calibrate},
      {"accuracy", "recompute predictions for measured cases and report the error by op kind", cmd_accuracy},
  };
  return list;
}

}  // namespace perfmodel::cli

namespace {

void usage(std::ostream& o) {
  o << "perfmodel: predicts how fast transformers run on GPUs, from first principles.\n\n"
       "Usage: perfmodel <command> [options]    (perfmodel <command> --help for its flags)\n\nCommands:\n";
  for (const auto& c : perfmodel::cli::commands()) {
    o << "  " << c.name << std::string(c.name.size() < 13 ? 13 - c.name.size() : 1, ' ') << c.summary << "\n";
  }
  o << "\nExample:\n  perfmodel decode --model llama2-7b --card a100 --batch 32 --ctx 2048\n";
}

}  // namespace

namespace perfmodel::cli {

int run_cli(const std::vector<std::string>& argv_list, std::ostream& out, std::ostream& err) {
  if (argv_list.empty()) return 2;
  const int argc = static_cast<int>(argv_list.size());
  std::vector<const char*> argv;
  for (const auto& a : argv_list) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  Context ctx{argv[0], argv_list, "", &out, &err};
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    usage(out);
    return argc < 2 ? 2 : 0;
  }
  if (std::string(argv[1]) == "--version") {
    out << "perfmodel " << kVersion << " (" << kGitSha << (kGitDirty ? ", dirty" : "") << ")\n";
    return 0;
  }
  const std::string name = argv[1];
  const Command* cmd = nullptr;
  std::vector<std::string> names;
  for (const auto& c : commands()) {
    names.push_back(c.name);
    if (c.name == name) cmd = &c;
  }
  try {
    if (!cmd) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw UsageError("unknown command '" + name + "'; commands: " + list);
    }
    ctx.data_root = default_data_root(argv[0]);
    return cmd->run({argv_list.begin() + 2, argv_list.end()}, ctx);
  } catch (const UsageError& e) {
    err << "perfmodel " << name << ": " << e.what() << "\n";
    return 2;
  } catch (const ConfigError& e) {
    err << "perfmodel " << name << ": " << e.what() << "\n";
    return 2;
  } catch (const InputError& e) {
    err << "perfmodel " << name << ": " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user named that the system refuses (too long, a loop of links): their input.
    err << "perfmodel " << name << ": '" << e.path1().string() << "': " << e.code().message() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "perfmodel " << name << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace perfmodel::cli
