// vLLM's tuned fused_moe files, found as vLLM finds them (vllm_moe_configs.hpp).
#include "perfmodel/vllm_moe_configs.hpp"

#include <algorithm>
#include <filesystem>

#include "perfmodel/parallel_step.hpp"
#include "perfmodel/quant.hpp"

namespace perfmodel {

namespace {

// vLLM's dtype selector (fused_moe.py, get_config_dtype_str with the block shape appended): none for 16-bit weights and
// activations, fp8_w8a8 for FP8 W8A8 (per-tensor or per-channel scales), and the block shape for DeepSeek-style
// 128 x 128 block scales. Nothing (no file) for what vLLM runs through other kernels or other tags.
bool dtype_selector(const Workload& w, std::string& out) {
  switch (linear_kind(w)) {
    case LinearKind::dense:
      out.clear();
      return w.weight_dtype == DType::bf16 || w.weight_dtype == DType::fp16;
    case LinearKind::scaled:
      if (gemm_input(w) != DType::fp8) return false;
      out = ",dtype=fp8_w8a8";
      if (w.quant.scaling == Scaling::block)
        out += ",block_shape=[" + std::to_string(kScaleBlock) + "," + std::to_string(kScaleBlock) + "]";
      return true;
    case LinearKind::weight_only:
      return false;
  }
  return false;
}

}  // namespace

std::string vllm_fused_moe_file_name(const Card& card, const Model& sharded, const Workload& w) {
  if (card.cuda_name.empty() || !sharded.moe.enabled()) return "";
  std::string dtype;
  if (!dtype_selector(w, dtype)) return "";
  std::string device = card.cuda_name;
  std::replace(device.begin(), device.end(), ' ', '_');  // vLLM: get_device_name().replace(" ", "_")
  return "E=" + std::to_string(sharded.moe.experts) + ",N=" + std::to_string(sharded.moe.expert_intermediate) +
         ",device_name=" + device + dtype + ".json";
}

std::string find_vllm_fused_moe_file(const std::string& data_root, const Card& card, const Model& model,
                                     const Workload& w) {
  const std::string name = vllm_fused_moe_file_name(card, shard_model(model, w.parallel), w);
  if (name.empty()) return "";
  const std::filesystem::path path = std::filesystem::path(data_root) / "hardware" / "vllm-fused-moe" / name;
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? path.string() : "";
}

}  // namespace perfmodel
