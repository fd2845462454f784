#include "perfmodel/quant.hpp"
#include "perfmodel/analysis.hpp"

#include "perfmodel/family.hpp"

#include <algorithm>
#include <cmath>

namespace perfmodel {

double decode_ai(double params, double weight_bytes, double batch, double ctx, double kv) {
  return 2.0 * params * batch / (weight_bytes + batch * ctx * kv);
}

double decode_ai_max(double params, double ctx, double kv) { return 2.0 * params / (ctx * kv); }

std::optional<double> decode_b_star(double ridge, double params, double weight_bytes, double ctx,
                                    double kv) {
  const double denom = 2.0 * params - ridge * ctx * kv;
  if (denom <= 0) return std::nullopt;
  return ridge * weight_bytes / denom;
}

// The family owns the KV layout (lib/src/model/).
double kv_bytes_per_token(const Model& m, DType kv) { return family_for(m).kv_bytes_per_token(m, kv); }

double kv_bytes_per_sequence(const Model& m, DType kv, int64_t ctx) {
  return family_for(m).kv_bytes_per_sequence(m, kv, ctx);
}

double activation_bytes_per_sequence(const Model& m, const Workload& w) {
  const double t = static_cast<double>(w.new_tokens_per_seq());
  // Live at the widest point: the residual stream, the normalized input and the gate/up output.
  const double widest = 2.0 * m.hidden + 3.0 * m.intermediate;
  const double logits_rows = w.phase == Phase::prefill && !w.lm_head_all_positions ? 1.0 : t;
  return t * widest * bytes_of(w.act_dtype) + logits_rows * m.vocab * 4.0;
}

MemoryPlan plan_memory(const Model& m, const Workload& w, const Card& card, double utilization) {
  MemoryPlan p;
  p.capacity = card.memory_bytes;
  p.usable = card.memory_bytes * utilization;
  p.weights = model_weight_bytes(m, w);  // packed, scales included (quant.hpp)
  const double kv_seq = kv_bytes_per_sequence(m, w.kv_dtype, w.ctx);
  const double per_seq = kv_seq + activation_bytes_per_sequence(m, w);
  p.kv = kv_seq * static_cast<double>(w.batch);
  p.activations = activation_bytes_per_sequence(m, w) * static_cast<double>(w.batch);
  p.total = p.weights + p.kv + p.activations;
  p.fits = p.total <= p.usable;
  const double room = p.usable - p.weights;
  p.max_batch = room > 0 ? static_cast<int64_t>(std::floor(room / per_seq)) : 0;
  return p;
}

Analysis analyze(const Model& m, const Workload& w, const Step& step, double step_time_s,
                 double prefill_time_s, const Card& card, double utilization) {
  Analysis a;
  a.parameters = m.parameters();
  a.weight_bytes = model_weight_bytes(m, w);  // packed, scales included (quant.hpp)
  a.kv_bytes_per_token = kv_bytes_per_token(m, w.kv_dtype);
  // The ridge of the peak the linears run at: W8A8 / W4A4 at their input's, weight-only at the
  // activations' (the MMA runs in bf16 after dequantization).
  const Precision mm = linear_kind(w) == LinearKind::scaled ? matmul_precision(gemm_input(w), false)
                       : is_quantized(w)                     ? matmul_precision(w.act_dtype, w.allow_tf32)
                       : matmul_precision(w.weight_dtype == DType::fp8 ? DType::fp8 : w.act_dtype, w.allow_tf32);
  const double peak = card.peak_flops(mm);
  a.ridge = peak / card.bandwidth;
  const double n = static_cast<double>(w.ctx);
  a.ai = decode_ai(a.parameters, a.weight_bytes, static_cast<double>(w.batch), n, a.kv_bytes_per_token);
  a.ai_max = decode_ai_max(a.parameters, n, a.kv_bytes_per_token);
  a.b_star = decode_b_star(a.ridge, a.parameters, a.weight_bytes, n, a.kv_bytes_per_token);
  a.memory = plan_memory(m, w, card, utilization);
  a.step_time_s = step_time_s;
  a.ttft_s = prefill_time_s;
  if (w.phase == Phase::decode) {
    a.tpot_s = step_time_s;
    a.tpot_floor_s = (a.weight_bytes + a.memory.kv) / card.bandwidth;
  } else if (a.ttft_s == 0) {
    a.ttft_s = step_time_s;
  }
  a.tokens_per_s = step_time_s > 0 ? static_cast<double>(w.tokens()) / step_time_s : 0;
  if (step_time_s > 0) {
    a.mfu = step.model_flops() / step_time_s / peak;
    a.hfu = step.flops() / step_time_s / peak;
  }
  return a;
}

}  // namespace perfmodel
