#pragma once
// Which of vLLM's tuned fused_moe files a step reads (vllm/model_executor/layers/fused_moe/fused_moe.py:
// get_config_file_name, get_moe_configs, try_get_optimal_moe_config). vLLM looks its file up by the GPU's experts,
// each expert's intermediate on the GPU, the CUDA device name and the quantization, and falls back to its default
// config (get_default_config) when none is shipped. The catalogue keeps vLLM's files for the cards and models it
// holds under hardware/vllm-fused-moe/.
#include <string>

#include "perfmodel/card.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

// `E=<experts>,N=<intermediate>,device_name=<cuda name, spaces as _>[,dtype=fp8_w8a8][,block_shape=[128,128]].json`
// for one GPU's share of the model (`sharded`: shard_model's). Empty where vLLM would read no file here: a card
// without a CUDA name (Card::cuda_name), a model without routed experts, or a quantization whose fused_moe kernel
// this project does not price with vLLM's Triton configs (weight-only, int8, 4-bit).
std::string vllm_fused_moe_file_name(const Card& card, const Model& sharded, const Workload& w);

// The catalogue's file for the workload (`data_root`/hardware/vllm-fused-moe/<name>), or empty where vLLM ships none
// that the catalogue holds: vLLM's default config runs then.
std::string find_vllm_fused_moe_file(const std::string& data_root, const Card& card, const Model& model,
                                     const Workload& w);

}  // namespace perfmodel
