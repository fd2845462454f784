#include "perfmodel/quant.hpp"
#include "perfmodel/analysis.hpp"

#include "perfmodel/family.hpp"
#include "perfmodel/ops.hpp"

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

double decode_weight_parameters(const Model& m, double batch, double skew) {
  const double total = m.parameters();
  if (!m.moe.enabled()) return total;
  const MoeSpec& e = m.moe;
  const double expert = 3.0 * static_cast<double>(m.hidden) * static_cast<double>(e.expert_intermediate);
  const double touched = ops::experts_touched(e.experts, e.top_k, static_cast<int64_t>(std::ceil(batch)), skew);
  return total - static_cast<double>(m.moe_layers()) * (static_cast<double>(e.experts) - touched) * expert;
}

double moe_decode_ai(const Model& m, double bytes_per_weight, double batch, double ctx, double kv, double skew) {
  const double W = decode_weight_parameters(m, batch, skew) * bytes_per_weight;
  return 2.0 * m.active_parameters() * batch / (W + batch * ctx * kv);
}

std::optional<double> moe_decode_b_star(const Model& m, double ridge, double bytes_per_weight, double ctx, double kv,
                                        double skew) {
  if (decode_ai_max(m.active_parameters(), ctx, kv) <= ridge) return std::nullopt;
  // AI(b) rises with b (weights read grow slower than b): double, then bisect on whole batches.
  double hi = 1;
  while (moe_decode_ai(m, bytes_per_weight, hi, ctx, kv, skew) < ridge) {
    hi *= 2;
    if (hi > 1e9) return std::nullopt;
  }
  double lo = hi / 2;
  if (hi == 1) return 1.0;
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (moe_decode_ai(m, bytes_per_weight, mid, ctx, kv, skew) >= ridge ? hi : lo) = mid;
  }
  return hi;
}

// The family owns the KV layout (lib/src/model/).
double kv_bytes_per_token(const Model& m, DType kv) { return family_for(m).kv_bytes_per_token(m, kv); }

double kv_bytes_per_sequence(const Model& m, DType kv, int64_t ctx) {
  return family_for(m).kv_bytes_per_sequence(m, kv, ctx);
}

// Every profile caches MLA's latent: transformers 5.17's DeepseekV2Attention too (h200-moe: the
// latent is re-expanded by kv_b_proj every step, moe_mla_lowering.cpp); the expansion is a
// transient of one layer (activation_bytes_per_sequence).
double cached_bytes_per_token(const Model& m, const Workload& w) { return kv_bytes_per_token(m, w.kv_dtype); }

double activation_bytes_per_sequence(const Model& m, const Workload& w) {
  const double t = static_cast<double>(w.new_tokens_per_seq());
  // Live at the widest point: the residual stream, the normalized input and the gate/up output.
  double widest = 2.0 * m.hidden + 3.0 * m.intermediate;
  // MoE: each token's k routed rows through the gate/up GEMM (3 I_e wide each, with the silu_mul
  // output) and the k down outputs, plus the shared experts' gate/up.
  if (m.moe.enabled()) {
    const MoeSpec& e = m.moe;
    const double routed = static_cast<double>(e.top_k) * (3.0 * e.expert_intermediate + m.hidden);
    const double shared = 3.0 * static_cast<double>(e.shared_experts * e.shared_intermediate);
    widest = std::max(widest, 2.0 * m.hidden + routed + shared);
  }
  const double logits_rows = w.phase == Phase::prefill && !w.lm_head_all_positions ? 1.0 : t;
  double live = t * widest * bytes_of(w.act_dtype) + logits_rows * m.vocab * 4.0;
  // Eager MLA expands one layer's whole context at a time: kv_b_proj's output (nope + v per
  // head), the copied values and the concatenated keys (qk per head), per cached position.
  if (m.mla.enabled() && w.impl == Impl::eager) {
    const MlaSpec& a = m.mla;
    live += static_cast<double>(w.ctx) * static_cast<double>(m.heads) *
            static_cast<double>(a.qk_nope_head_dim + 2 * a.v_head_dim + a.qk_head_dim()) * bytes_of(w.act_dtype);
  }
  return live;
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
  a.kv_bytes_per_token = cached_bytes_per_token(m, w);
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
  a.active_parameters = a.parameters;
  a.decode_weight_bytes = a.weight_bytes;
  if (m.moe.enabled()) {  // the seed's formulas with the weights a decode step really reads
    const double b = static_cast<double>(w.batch), bpw = bytes_of(w.weight_dtype);
    a.moe = true;
    a.active_parameters = m.active_parameters();
    a.decode_weight_bytes = decode_weight_parameters(m, b, w.routing_skew) * bpw;
    a.ai = moe_decode_ai(m, bpw, b, n, a.kv_bytes_per_token, w.routing_skew);
    a.ai_max = decode_ai_max(a.active_parameters, n, a.kv_bytes_per_token);
    a.b_star = moe_decode_b_star(m, a.ridge, bpw, n, a.kv_bytes_per_token, w.routing_skew);
  }
  a.memory = plan_memory(m, w, card, utilization);
  a.step_time_s = step_time_s;
  a.ttft_s = prefill_time_s;
  if (w.phase == Phase::decode) {
    a.tpot_s = step_time_s;
    a.tpot_floor_s = (a.decode_weight_bytes + a.memory.kv) / card.bandwidth;
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
