#pragma once
// One function per subcommand; main.cpp registers them.
#include <string>
#include <vector>

#include "cli.hpp"

namespace perfmodel::cli {

int cmd_decode(const std::vector<std::string>& args, Context& ctx);
int cmd_prefill(const std::vector<std::string>& args, Context& ctx);
int cmd_ops(const std::vector<std::string>& args, Context& ctx);
int cmd_sweep_batch(const std::vector<std::string>& args, Context& ctx);
int cmd_gemm(const std::vector<std::string>& args, Context& ctx);
int cmd_op(const std::vector<std::string>& args, Context& ctx);
int cmd_roofline(const std::vector<std::string>& args, Context& ctx);
int cmd_occupancy(const std::vector<std::string>& args, Context& ctx);
int cmd_tiling(const std::vector<std::string>& args, Context& ctx);
int cmd_cards(const std::vector<std::string>& args, Context& ctx);
int cmd_models(const std::vector<std::string>& args, Context& ctx);
int cmd_validate(const std::vector<std::string>& args, Context& ctx);
int cmd_calibrate(const std::vector<std::string>& args, Context& ctx);
int cmd_accuracy(const std::vector<std::string>& args, Context& ctx);
int cmd_collective(const std::vector<std::string>& args, Context& ctx);
int cmd_plan(const std::vector<std::string>& args, Context& ctx);

// `calibrate --profile`: an implementation profile's own terms measured on this machine
// (cmd_calibrate_profile.cpp; the eager profile's host).
struct ProfileCalibrateArgs {
  std::string profile, card, calibration, output, probe_out, kernels_out, steps_out;
  std::vector<std::string> from_kernels;  // --from-kernels, repeatable
  std::vector<std::string> from_probe;    // --from-probe, repeatable: one record a process (host_probe_set.hpp)
  std::vector<std::string> from_steps;    // --from-steps, repeatable: fused_step_alone.py's results.jsonl (graph)
  std::string parts;  // --only with --profile: host, attention, decode, gemm
  std::string probe_model = "llama2-7b";
  std::string probe_layers = "4,16";  // the probe's depths (one or two)
  int64_t probe_processes = 5;         // --on-gpu: the probe run in this many processes, their median fitted
  bool on_gpu = false;
};
int calibrate_profile(const ProfileCalibrateArgs& args, Context& ctx, Format format);

}  // namespace perfmodel::cli
