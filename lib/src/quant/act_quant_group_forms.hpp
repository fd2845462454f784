#pragma once
// 1x128-group dynamic FP8 activation quantization (DeepSeek-V3's activation scales, written
// column-major as the block-scaled GEMM takes them) as PyTorch eager and torch.compile run it
// (act_quant_group_forms.cpp; measured: validation/results/h200-quant2 and h200-group16). The
// fused profile keeps the serving engine's one kernel (act_quant_forms.cpp, fused_form).
#include <string>
#include <vector>

#include "perfmodel/act_quant_forms.hpp"

namespace perfmodel {

// True where act_quant_kernels hands the call to the group forms: FP8 with 1x128 block scales,
// dynamic, eager or compiled.
bool is_act_quant_group(const ActQuantCall& c, Impl impl);

// The kernels of one call, in launch order.
std::vector<Op> act_quant_group_kernels(const std::string& name, const ActQuantCall& c, Impl impl);

}  // namespace perfmodel
