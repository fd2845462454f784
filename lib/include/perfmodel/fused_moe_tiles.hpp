#pragma once
// vLLM's fused_moe configs (vllm/model_executor/layers/fused_moe/fused_moe.py, try_get_optimal_moe_config): a tuned
// file `configs/E=<experts>,N=<intermediate per GPU>,device_name=<device>.json` maps token counts to tiles, and a
// step runs the entry whose key is nearest its tokens; without a file vLLM runs get_default_config.
#include <cstdint>
#include <map>
#include <string>

namespace perfmodel {

// One config: BLOCK_SIZE_M / _N / _K, GROUP_SIZE_M, num_warps, num_stages. block_m 0: vLLM's default config
// (get_default_config), the one the fused profile's fused_moe keys were fitted on.
struct FusedMoeTile {
  int64_t block_m = 0, block_n = 0, block_k = 0, group_m = 1, warps = 4, stages = 3;
};

using FusedMoeTiles = std::map<int64_t, FusedMoeTile>;

// Reads a vLLM tuned config file (JSON). Every entry needs BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M,
// num_warps and num_stages (positive integers; the blocks powers of two, as Triton's tl.arange needs); other keys
// are refused. Errors name the file, line and field (ConfigError).
FusedMoeTiles load_fused_moe_tiles(const std::string& path);

// The entry vLLM runs at `tokens`: the key nearest it, the smaller key on a tie (Python's min over the file's keys,
// which json.load returns in file order; vLLM's files list them ascending). Default tile when `tiles` is empty.
FusedMoeTile nearest_fused_moe_tile(const FusedMoeTiles& tiles, int64_t tokens);

}  // namespace perfmodel
