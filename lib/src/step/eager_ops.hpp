#pragma once
// PyTorch eager's kernels for the ops Hugging Face transformers writes out in torch calls
// (eager_ops.cpp), shared by the eager profile's lowering and eager_form (profile.hpp).
#include <string>

#include "perfmodel/step.hpp"

namespace perfmodel {

Op counted(Op op, int64_t count);
// LlamaRMSNorm.forward over T rows of d: 7 ops, 8 kernels, the wide ones in fp32.
void eager_rmsnorm(Step& s, const std::string& name, int64_t T, int64_t d, DType act, int64_t count);
void eager_gemma_rmsnorm(Step& s, const std::string& name, int64_t T, int64_t d, DType act, int64_t count);
// apply_rotary_pos_emb on one of q, k (width = heads x head_dim): 5 kernels.
// `one_position`: one query position per sequence (decode), where the transposed (b, h, 1, d)
// views are contiguous and the final add runs ATen's vectorized kernel.
void eager_rotary(Step& s, int64_t T, int64_t width, const std::string& which, DType act, int64_t count, int views,
                  bool one_position);
// F.silu(a) * b: the activation, an intermediate, then the product: 2 kernels, 5 passes.
void eager_silu_mul(Step& s, const std::string& name, int64_t T, int64_t d, DType act, int64_t count);
// Eager FP8 activation quantization of T rows of k before torch._scaled_mm, as torchao's
// _choose_scale_float8 / _quantize_affine_float8 write it in torch ops: dynamic scales take
// abs, amax (per row, or of the whole tensor), a cast, clamp and divide of the scales (5 kernels);
// then x.to(fp32) / scale, clamp and the cast to fp8 (4 kernels). Static scales: those 4 only.
void eager_fp8_act_quant(Step& s, const std::string& name, int64_t T, int64_t k, DType act, bool dynamic,
                         bool per_row, int64_t count);

}  // namespace perfmodel
