// Quantization schemes: names, packed bytes with their scales, and what a card can run
// (quant.hpp; the byte layouts are those of the formats' reference implementations, cited below).
#include <array>
#include <cmath>

#include "perfmodel/card.hpp"
#include "perfmodel/family.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/quant.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

namespace {
constexpr std::array<std::string_view, 3> kScaling{"tensor", "row", "block"};
constexpr std::array<std::string_view, 2> kActQuant{"dynamic", "static"};

double ceil_div(int64_t a, int64_t b) { return std::ceil(static_cast<double>(a) / static_cast<double>(b)); }

bool four_bit_float(DType t) { return t == DType::nvfp4 || t == DType::mxfp4; }
}  // namespace

std::string_view to_string(Scaling s) { return kScaling[static_cast<size_t>(s)]; }
std::string_view to_string(ActQuant a) { return kActQuant[static_cast<size_t>(a)]; }
std::string_view to_string(Fp8Format f) { return f == Fp8Format::e4m3 ? "e4m3" : "e5m2"; }

std::optional<Scaling> scaling_from_string(std::string_view s) {
  for (size_t i = 0; i < kScaling.size(); ++i)
    if (kScaling[i] == s) return static_cast<Scaling>(i);
  return std::nullopt;
}

std::optional<ActQuant> act_quant_from_string(std::string_view s) {
  for (size_t i = 0; i < kActQuant.size(); ++i)
    if (kActQuant[i] == s) return static_cast<ActQuant>(i);
  return std::nullopt;
}

DType gemm_input(const Workload& w) {
  // fp8 and the 4-bit floats have no weight-only kernel here: their weights imply W8A8 / W4A4.
  const DType wt = w.weight_dtype;
  if (w.quant.gemm_act == DType::bf16 && (wt == DType::fp8 || four_bit_float(wt))) return wt;
  return w.quant.gemm_act;
}

LinearKind linear_kind(const Workload& w) {
  const DType a = gemm_input(w);
  if (a == DType::fp8 || a == DType::int8 || four_bit_float(a)) return LinearKind::scaled;
  if (w.weight_dtype == DType::int4 || w.weight_dtype == DType::int8) return LinearKind::weight_only;
  return LinearKind::dense;
}

bool is_quantized(const Workload& w) { return linear_kind(w) != LinearKind::dense; }

Precision linear_precision(const Workload& w) {
  if (linear_kind(w) == LinearKind::scaled) return matmul_precision(gemm_input(w), false);
  if (is_quantized(w)) return matmul_precision(w.act_dtype, w.allow_tf32);
  return matmul_precision(w.weight_dtype == DType::fp8 ? DType::fp8 : w.act_dtype, w.allow_tf32);
}

int64_t effective_group(DType weight, const QuantScheme& q) {
  if (q.group_size >= 0) return q.group_size;
  return weight == DType::int4 ? 128 : 0;  // AWQ/GPTQ default 128; int8 weight-only per channel
}

double weight_storage_bytes(DType weight, DType gemm_in, int64_t group, Scaling scaling, int64_t n, int64_t k) {
  const double N = static_cast<double>(n), K = static_cast<double>(k);
  const double elems = N * K * bytes_of(weight);
  if (weight == DType::nvfp4) return elems + N * ceil_div(k, kNvfp4Group) * 1.0 + 4.0;  // e4m3 + fp32
  if (weight == DType::mxfp4) return elems + N * ceil_div(k, kMxfp4Group) * 1.0;        // e8m0
  if (gemm_in == DType::bf16 || gemm_in == DType::fp16) {
    if (weight != DType::int4 && weight != DType::int8) return elems;
    // AWQ/GPTQ/tinygemm: a 16-bit scale and a 16-bit zero per group of K per output channel
    // (tinygemm's scales_and_zeros [K/g][N][2]); per channel (torch int8pack): one scale.
    if (group == 0) return elems + N * 2.0;
    return elems + N * ceil_div(k, group) * 4.0;
  }
  switch (scaling) {
    case Scaling::tensor: return elems + 4.0;
    case Scaling::row: return elems + 4.0 * N;  // fp32 per output channel
    case Scaling::block: return elems + 4.0 * ceil_div(n, kScaleBlock) * ceil_div(k, kScaleBlock);
  }
  return elems;
}

double act_storage_bytes(DType gemm_in, Scaling scaling, int64_t m, int64_t k) {
  const double M = static_cast<double>(m), elems = M * static_cast<double>(k) * bytes_of(gemm_in);
  if (gemm_in == DType::nvfp4) return elems + M * ceil_div(k, kNvfp4Group) + 4.0;
  if (gemm_in == DType::mxfp4) return elems + M * ceil_div(k, kMxfp4Group);
  switch (scaling) {
    case Scaling::tensor: return elems + 4.0;
    case Scaling::row: return elems + 4.0 * M;  // per token
    case Scaling::block: return elems + 4.0 * M * ceil_div(k, kScaleBlock);  // 1 x 128 groups
  }
  return elems;
}

double packed_weight_bytes(const Workload& w, int64_t n, int64_t k) {
  const LinearKind kind = linear_kind(w);
  if (kind == LinearKind::dense) return static_cast<double>(n) * static_cast<double>(k) * bytes_of(w.weight_dtype);
  return weight_storage_bytes(w.weight_dtype, kind == LinearKind::scaled ? gemm_input(w) : w.act_dtype,
                              effective_group(w.weight_dtype, w.quant), w.quant.scaling, n, k);
}

double packed_act_bytes(const Workload& w, int64_t m, int64_t k) {
  if (linear_kind(w) != LinearKind::scaled) return 0;
  return act_storage_bytes(gemm_input(w), w.quant.scaling, m, k);
}

double model_weight_bytes(const Model& m, const Workload& w) {
  // MoE models: the experts' grouped GEMMs read their weights in the weight dtype (moe_mla_lowering),
  // so the weights are parameters x dtype bytes there (their scales are not counted).
  if (!is_quantized(w) || m.moe.enabled()) return m.parameters() * bytes_of(w.weight_dtype);
  // The linears of the layers packed; everything else (embedding, LM head, norms, biases) in the
  // activations' dtype.
  double packed = 0, linear_params = 0;
  for (const GraphNode& n : family_for(m).graph(m, w).nodes) {
    if (n.kind != GraphNode::Kind::linear || n.logits) continue;
    for (const GraphNode::Part& p : n.parts) {
      packed += static_cast<double>(n.count) * packed_weight_bytes(w, p.out, n.in);
      linear_params += static_cast<double>(n.count) * static_cast<double>(p.out) * static_cast<double>(n.in);
    }
  }
  return packed + (m.parameters() - linear_params) * bytes_of(w.act_dtype);
}

std::string quant_problem(const Workload& w, const Card& card) {
  const DType wt = w.weight_dtype, a = gemm_input(w);
  const std::string card_name = card.key.empty() ? card.name : card.key;
  if (four_bit_float(wt) || four_bit_float(a)) {
    if (wt != a)
      return "--weight-dtype " + std::string(to_string(wt)) + " needs --act-dtype " + std::string(to_string(wt)) +
             " (NVFP4/MXFP4 run weights and activations in the same 4-bit format)";
    if (!card.supports(Precision::fp4))
      return "--weight-dtype " + std::string(to_string(wt)) + ": " + card_name +
             " has no FP4 tensor cores (no fp4 peak; Blackwell cards have them)";
    return "";
  }
  if (a == DType::fp8 || a == DType::int8) {
    if (wt != a)
      return "--act-dtype " + std::string(to_string(a)) + " needs --weight-dtype " + std::string(to_string(a)) +
             " (W8A8: weights and activations in the same 8-bit type)";
    if (!card.supports(a == DType::fp8 ? Precision::fp8 : Precision::int8))
      return "--act-dtype " + std::string(to_string(a)) + ": " + card_name + " has no " +
             std::string(to_string(a)) + " tensor peak (W8A8 runs its GEMMs there)";
    if (a == DType::int8 && w.quant.scaling == Scaling::block)
      return "--scaling block is fp8's (DeepSeek-V3 128x128 blocks); int8 W8A8 takes tensor or row";
    if (w.quant.group_size >= 0)
      return "--group-size is for weight-only int4/int8 (W4A16/W8A16), not W8A8";
    if (w.quant.act_quant == ActQuant::static_scale && w.quant.scaling != Scaling::tensor)
      return "--act-quant static takes --scaling tensor (a calibrated per-tensor scale); row and block scales are dynamic";
    return "";
  }
  if (a != DType::bf16 && a != w.act_dtype)
    return "--act-dtype " + std::string(to_string(a)) + ": quantized activations are fp8, int8, nvfp4 or mxfp4";
  if (wt == DType::int4 || wt == DType::int8) {
    const int64_t g = effective_group(wt, w.quant);
    if (g != 0 && g < 16)
      return "--group-size must be 0 (per channel) or at least 16, got " + std::to_string(g);
    return "";
  }
  if (w.quant.group_size >= 0) return "--group-size is for weight-only int4/int8 weights";
  return "";
}

}  // namespace perfmodel
