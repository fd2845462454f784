#pragma once
// Quantized inference (issue 12): how the linears' weights and inputs are stored, what the packed
// weights and their scales weigh, and which kernels a quantized linear launches.
//
// Three families (docs/model.md, "Quantized linears"):
//  weight-only  W4A16 / W8A16 (AWQ, GPTQ, tinygemm): int4 / int8 weights with a 16-bit scale and
//               zero per group of `group_size` input channels, bf16 activations; the GEMM
//               dequantizes the weights on the fly (kernel gemm_wonly).
//  W8A8         fp8 (e4m3) or int8 (SmoothQuant) weights and activations on the card's fp8/int8
//               tensor peak, scales per tensor, per row (token x channel) or per 128x128 block
//               (kernel gemm_scaled), the activations quantized by their own kernels when the
//               scales are dynamic (act_amax + act_quant).
//  W4A4         nvfp4 (e4m3 scale per 16 + fp32 per tensor) / mxfp4 (e8m0 scale per 32) weights and
//               activations on Blackwell's fp4 tensor cores (gemm_scaled at the fp4 peak).
// The embedding and the LM head stay in the activations' dtype, as the AWQ/GPTQ/FP8 checkpoints
// of vLLM and TensorRT-LLM keep them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfmodel/dtype.hpp"

namespace perfmodel {

struct Card;
struct Model;
struct Op;
struct Workload;
enum class Impl;  // workload.hpp

enum class Scaling { tensor, row, block };
enum class ActQuant { dynamic, static_scale };
enum class Fp8Format { e4m3, e5m2 };

std::string_view to_string(Scaling s);
std::string_view to_string(ActQuant a);
std::string_view to_string(Fp8Format f);
std::optional<Scaling> scaling_from_string(std::string_view s);
std::optional<ActQuant> act_quant_from_string(std::string_view s);

// The block of block scaling (DeepSeek-V3: 128x128 weight blocks, 1x128 activation groups).
inline constexpr int64_t kScaleBlock = 128;
// Group sizes of the 4-bit block formats: NVFP4 an e4m3 scale per 16, MXFP4 an e8m0 per 32.
inline constexpr int64_t kNvfp4Group = 16;
inline constexpr int64_t kMxfp4Group = 32;

struct QuantScheme {
  // The GEMMs' input dtype: fp8 / int8 (W8A8) or nvfp4 / mxfp4 (W4A4); bf16 (the default) keeps
  // the activations in Workload::act_dtype (unquantized or weight-only).
  DType gemm_act = DType::bf16;
  Scaling scaling = Scaling::tensor;     // W8A8 scale granularity
  ActQuant act_quant = ActQuant::dynamic;
  // Weight-only: input channels per scale + zero; 0 = one per output channel (the whole K).
  // Negative: the format's default (int4: 128, int8: per channel).
  int64_t group_size = -1;
  Fp8Format kv_format = Fp8Format::e4m3;  // fp8 KV cache: same bytes, the attention converts
};

// The GEMMs' input dtype: quant.gemm_act, or the weight's own type for fp8 / nvfp4 / mxfp4
// weights (they run as W8A8 / W4A4; there is no weight-only fp8 kernel here).
DType gemm_input(const Workload& w);
// The kind of linear a workload runs.
enum class LinearKind { dense, weight_only, scaled };
LinearKind linear_kind(const Workload& w);
bool is_quantized(const Workload& w);
// The tensor-core precision the step's linears run at, whose peak sets the ridge: W8A8 / W4A4 at
// their GEMM input's, weight-only at the activations' (the MMA runs in bf16 after
// dequantization), plain fp8 weights at fp8's.
Precision linear_precision(const Workload& w);
// The group size in use for a weight-only dtype (the default resolved).
int64_t effective_group(DType weight, const QuantScheme& q);

// Stored bytes of one N x K weight in `weight` whose GEMM reads inputs in `gemm_in` (bf16: weight
// only, `group` along K, 0 = per channel), and of an M x K GEMM input, scales included.
double weight_storage_bytes(DType weight, DType gemm_in, int64_t group, Scaling scaling, int64_t n, int64_t k);
double act_storage_bytes(DType gemm_in, Scaling scaling, int64_t m, int64_t k);

// Exact stored bytes of one N x K weight with its scales and zeros (a ragged last group of K
// is a whole group: it has its own scale and zero).
double packed_weight_bytes(const Workload& w, int64_t n, int64_t k);
// Bytes of the quantized M x K GEMM input with its scales (W8A8 / W4A4); 0 for bf16 inputs.
double packed_act_bytes(const Workload& w, int64_t m, int64_t k);

// Stored bytes of all of the model's weights under `w` (linears packed, scales included;
// embedding, LM head and norms in the activations' dtype). Unquantized: parameters x dtype bytes.
double model_weight_bytes(const Model& m, const Workload& w);

// Why this scheme cannot run on `card` (empty when it can): 4-bit floats without FP4 tensor
// cores, W8A8 without the fp8/int8 peak, block scales for int8, a bad group size, ...
std::string quant_problem(const Workload& w, const Card& card);

// The kernels one quantized linear y[m,n] = x[m,k] W[n,k]^T launches, in order: for dynamic
// W8A8 the activation amax and quantization kernels, then the GEMM. `act` is the activations'
// storage dtype. Throws InputError for an unquantized workload.
std::vector<Op> quantized_linear(const std::string& name, int64_t m, int64_t n, int64_t k, const Workload& w,
                                 bool bias);

// The same linear as PyTorch runs it on a GPU (the eager and compiled profiles): W8A16 is written
// by torchao's int8 weight-only and gpt-fast as F.linear(x, w_int8.to(bf16)) * scale (their
// int8pack call is for CPUs), three kernels both uncompiled and under Inductor's default config:
// the weight's bf16 copy, cuBLASLt's bf16 GEMM on it (reading what L2 keeps of the copy) and the
// scale (validation/results/h200-int8-compiled). The others are quantized_linear's: tinygemm's
// int4 and _scaled_mm are calls Inductor leaves as they are. `impl`: eager or compiled.
std::vector<Op> torch_quantized_linear(const std::string& name, int64_t m, int64_t n, int64_t k, const Workload& w,
                                       bool bias, Impl impl);

}  // namespace perfmodel
