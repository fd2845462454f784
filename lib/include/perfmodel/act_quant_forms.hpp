#pragma once
// Activation quantization (issue 12) as each implementation profile runs it: the kernels that
// scale and cast an m x k activation into a scaled GEMM's input type before the GEMM
// (lib/src/quant/act_quant_forms.cpp; measured: validation/results/h200-quant, kernel act_quant).
#include <cstdint>
#include <string>
#include <vector>

#include "perfmodel/op.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

struct ActQuantCall {
  int64_t m = 0, k = 0;
  DType act = DType::bf16;  // the activations' dtype (the kernels' input)
  DType in = DType::fp8;    // the GEMM's input dtype (the kernels' output)
  Scaling scaling = Scaling::tensor;
  bool dynamic = true;      // scales found from the activations (false: a calibrated tensor scale)
  // torch.compile's shape mode (compiled profile only). false: the graph compiled for this call's
  // own shape (dynamic=False; what the compiled profile's fixed-shape steps run: hf_compiled.py
  // compiles mode="reduce-overhead", dynamic=False): constant sizes, unmasked and vectorized
  // accesses, split counts from the call's shape. true: one graph for every size (dynamic=True, or
  // a marked-dynamic token dimension): sizes are kernel arguments, every access is masked against
  // them (scalar loads and stores), and the split counts were fixed at compile time from the shape
  // the graph was compiled for: compiled_m x compiled_k (0: this call's own).
  bool dynamic_shapes = false;
  int64_t compiled_m = 0, compiled_k = 0;
  // 1x128 groups: quantization written in torch ops (quant_gemm.py's q_group_dyn, as h200-quant2 and
  // h200-group16 measured it), eager or under torch.compile(dynamic=True): act_quant_group_forms.cpp.
  // false (the profiles' default): one quantization kernel, what transformers' FP8Linear runs
  // (integrations/finegrained_fp8.py's Triton act_quant) and a per-shape compile fuses it into.
  bool torch_ops = false;
};

// fused: the serving engine's CUDA kernels (vLLM scaled_fp8_quant / per-token quant, an amax
// kernel first for a dynamic tensor scale); not measured. eager: the torch ops of a
// torchao-style quantization, one ATen kernel each (9 dynamic, 4 static). compiled: Inductor's
// Triton kernels (one pointwise kernel static; one looped row reduction per token; per tensor a
// split reduction, its combine, then the pointwise cast). Dynamic FP8 1x128 blocks with torch_ops,
// eager and compiled with dynamic shapes: the torch ops of quant_gemm.py's q_group_dyn (lib/src/quant/act_quant_group_forms.cpp:
// 9 ATen kernels; Inductor's dynamic-shape three), as h200-quant2 / h200-group16 measured them;
// without torch_ops (the default), transformers' own block-FP8 linear runs one Triton quantization
// kernel, which the fused form's one kernel stands for. Eager and compiled 4-bit formats: the engine's kernels stand in.
std::vector<Op> act_quant_kernels(const std::string& name, const ActQuantCall& c, Impl impl);

}  // namespace perfmodel
