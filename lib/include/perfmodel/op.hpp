#pragma once
// One kernel-sized piece of a step (ARCHITECTURE.md: Op): pure data. FLOPs and bytes are per
// instance; `count` instances run per step (usually one per layer).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "perfmodel/collective_op.hpp"
#include "perfmodel/dtype.hpp"
#include "perfmodel/fused_moe_tiles.hpp"
#include "perfmodel/quant.hpp"

namespace perfmodel {

enum class OpKind { gemm, attention, elementwise, norm, kv_cache, embedding, copy, collective, other };
std::string to_string(OpKind k);

// Which kernel implements the op; the validation backend runs the same one. The kinds are
// listed once, in kernels.def; each has its definition in lib/src/kernels/ (kernel.hpp).
enum class KernelId {
#define PERFMODEL_KERNEL(name) name,
#include "perfmodel/kernels.def"
#undef PERFMODEL_KERNEL
};
inline constexpr int kKernelIdCount = 0
#define PERFMODEL_KERNEL(name) +1
#include "perfmodel/kernels.def"
#undef PERFMODEL_KERNEL
    ;
std::string to_string(KernelId k);

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;  // y[m,n] = x[m,k] . W[n,k]^T (nn.Linear)
  int64_t batch = 1;            // batched GEMMs (attention scores)
};

struct AttentionShape {
  int64_t batch = 0, heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_dim = 0;
  bool causal = false;
  int64_t window = 0;  // sliding window (0 = none): a query sees at most this many keys
  // The values' head dim where it is not the keys' (0: head_dim). MLA's expanded heads (keys of qk_head_dim, values of
  // v_head_dim) are priced at their mean head_dim; cuDNN's decode picks its CTAs a unit by the values' width.
  int64_t v_head_dim = 0;
};

// Mixture-of-experts ops: how many tokens go to how many experts (moe_topk, moe_permute,
// moe_unpermute, grouped_gemm).
struct MoeShape {
  int64_t tokens = 0, top_k = 0, experts = 0;
  double experts_touched = 0;  // expected distinct experts the step's tokens reach (grouped_gemm)
  double skew = 0;             // the routing's skew (ops::experts_touched): 0 uniform
  FusedMoeTile tile;           // the fused profile's grouped GEMM: the config vLLM runs (default: its default)
};

struct Op {
  std::string name;
  OpKind kind = OpKind::other;
  KernelId kernel = KernelId::other;
  DType dtype = DType::bf16;   // compute / storage type of the op's activations
  Precision precision = Precision::fp32;  // the peak its FLOPs run at
  GemmShape gemm;              // kind == gemm
  AttentionShape attention;    // attention, rotary, kv_cache
  MoeShape moe;                // MoE routing and expert ops
  int64_t rows = 0, cols = 0;  // row-wise ops: elementwise, norm, softmax, embedding
  int64_t vocab = 0;           // embedding: rows of the table gathered from
  bool residual = false;       // norms: the residual add is fused in
  double flops = 0;            // per instance
  double bytes_read = 0;       // per instance, every tensor read counted (seed 004 错误一)
  double bytes_written = 0;    // per instance
  int launches = 1;            // kernels per instance
  double instructions = 0;     // thread instructions per instance (issue roof; 0 = not counted)
  int passes = 1;              // dependent sweeps over memory (a row reduction then a write is 2)
  int reread_passes = 0;       // of those, sweeps that only re-read what an earlier one touched (L2 hits)
  double l2_hit = 0;           // share of its first touches that hit in L2 (a re-run working set that survived)
  // Of the share l2_hit marks as just written, the part an earlier kernel than the previous one wrote,
  // and the bytes streamed through L2 since (the kernels in between): that part is still there only
  // as far as a working set of those bytes keeps its lines (price.cpp, l2_hit_held; the compiled
  // SiLU*mul's gate, written before the up GEMM streamed its weight: branch graphroles).
  double l2_older_share = 0;
  double l2_older_streamed = 0;
  // Bytes the previous kernel wrote just before this one and left dirty in L2 (branch compres: the
  // compiled step's repeat_kv copies before the decode SDPA). When they overflow the L2, its dirty tail
  // is evicted, written back, under this kernel before this kernel reads it (attention_decode_cudnn.cpp).
  double l2_dirty_bytes = 0;
  // Row kernels (one CTA per row): rows of `cols` elements each dependent sweep reads (the row,
  // its re-read, weight and bias rows); what a CTA keeps in flight is priced per sweep.
  std::array<int, 4> row_reads_per_sweep{};
  int framework_calls = 0;     // eager: framework op calls that launch nothing (views, transposes, slices)
  // Eager host (branch hostmod2): the top-level ATen ops transformers dispatches for this op, those
  // that launch (-1: one per kernel, `launches`; a sort launches 5 kernels from one call) and those
  // that launch nothing (-1: framework_calls), and the nn.Module calls it stands for (each Linear,
  // norm, attention, MLP, decoder layer...). Counted per module class in
  // validation/results/h200-hostmod2 (torch.profiler under module hooks).
  int aten_launching = -1;
  int aten_other = -1;
  int module_calls = 0;
  // Compiled (branch hostreplay): the tensors this op brings into the compiled graph as static
  // inputs (parameters, cache tensors, buffers), which dynamo's transformed bytecode gathers and
  // guards and the cudagraph tree checks on every call (validation/results/h200-hostreplay).
  int64_t graph_inputs = 0;
  int aten_launching_calls() const { return aten_launching < 0 ? launches : aten_launching; }
  int aten_other_calls() const { return aten_other < 0 ? framework_calls : aten_other; }
  int aten_calls() const { return aten_launching_calls() + aten_other_calls(); }
  // Quantized GEMMs (gemm_wonly, gemm_scaled) and activation quantization (act_amax,
  // act_quant): the weight's stored type, its group along K (weight-only; 0 = per channel) and
  // the scale granularity (quant.hpp).
  DType quant_weight = DType::bf16;
  int64_t quant_group = 0;
  Scaling scaling = Scaling::tensor;
  // Decode attention: the KV cache's stored type (fp8: its elements converted to the activations'
  // type in registers, lib/src/cost/kv_cache_cost.cpp).
  DType kv_cache = DType::bf16;
  // Eager: an operand is broadcast or strided (a transposed view, a slice), so PyTorch's
  // TensorIterator runs its generic, non-vectorized kernel (aten_kernel_cost.cpp).
  bool strided = false;
  // Eager MoE glue: the operands (output included) of a generic-path kernel priced per operand
  // element (AtenKernels::generic_operand_rate); 0: the strided rate per element.
  int generic_operands = 0;
  // Eager activation quantization (act_quant_forms.cpp, act_quant_group_forms.cpp): an ATen
  // vectorized elementwise kernel or reduce_kernel whose stores drain (an L2 round trip) before the
  // chain's next kernel may start, beyond the launch floor and its load's round trip; Inductor's
  // kernels are priced so (act_quant_cost.cpp). Measured: such kernels profile 0.83-1.41 us at one
  // L2-resident row where floor + round trip is 0.49 (validation/results/h200-group16/
  // kernel_split.json; branch actqeager). Other eager lowerings leave it off: their calibrated
  // thread chains (the card's thread_chain, fitted on harness times) hold it.
  bool store_drain = false;
  // Fused prefill steps: the elements one CTA of an Inductor pointwise kernel covers, as the step's
  // compile history fixed it (fused_step.py's rope_kv, made dynamic at decode sizes: the larger of
  // the autotuner's two candidates, XBLOCK 256 / 128, 4 warps; inductor_waves.cpp). 0: not modelled.
  int64_t inductor_block = 0;
  int64_t count = 1;           // instances per step
  // kind == collective (parallel.hpp): NCCL's operation among `collective_gpus` GPUs on
  // `collective_bytes` per GPU (nccl-tests' sizes, collective.hpp); `overlaps`: it runs beside
  // other work (a pipeline stage's send while it computes the next micro-batch) and is not on the
  // step's critical path. Its bytes cross links, not this GPU's DRAM roof: bytes_read/written stay 0.
  CollectiveOp collective = CollectiveOp::all_reduce;
  int collective_gpus = 0;
  double collective_bytes = 0;
  bool overlaps = false;
  double model_flops = 0;      // the part of flops the model "needs" (MFU numerator)

  double bytes() const { return bytes_read + bytes_written; }
  double intensity() const { return bytes() > 0 ? flops / bytes() : 0; }
};

}  // namespace perfmodel
