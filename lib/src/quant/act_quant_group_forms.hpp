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

// The eager chains' marks (act_quant_forms.cpp, branch actqeager): an ATen vectorized kernel or
// reduce_kernel whose stores drain before the next kernel (Op::store_drain), and a kernel whose input
// an earlier kernel of the call just wrote or read (l2_hit 1; price() keeps what the L2 holds).
Op act_quant_eager_drained(Op op);
Op act_quant_eager_reads_chain(Op op);

// The kernels of one call, in launch order.
std::vector<Op> act_quant_group_kernels(const std::string& name, const ActQuantCall& c, Impl impl);

}  // namespace perfmodel
