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

}  // namespace perfmodel::cli
