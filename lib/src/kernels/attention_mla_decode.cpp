// Kernel kind `attention_mla_decode`: multi-head latent attention decode in the absorbed form
// (FlashMLA, deepseek-ai/FlashMLA; DeepSeek-V2 paper section 2.1.3): W_UK is folded into the
// query and W_UV applied after, so every head attends over the cached latent c_KV (kv_lora_rank
// wide) plus the shared rope key, and the latent is also the value. Priced as flash-decoding
// with one KV head of kv_lora_rank + rope dims shared by all heads (flash_decode_cost).
#include <algorithm>

#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/production_decode.hpp"

namespace perfmodel {

Op ops::attention_mla_decode(std::string name, int64_t batch, int64_t heads, int64_t kv_len, int64_t kv_lora_rank,
                             int64_t rope_dim, DType act, DType kv) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::attention;
  op.kernel = KernelId::attention_mla_decode;
  op.dtype = act;
  op.precision = matmul_precision(act, false);
  const int64_t width = kv_lora_rank + rope_dim;
  op.attention = {batch, heads, 1, 1, kv_len, width, false};
  checked_mul({batch, heads, kv_len, width}, op.name);
  const double B = static_cast<double>(batch), H = static_cast<double>(heads), L = static_cast<double>(kv_len);
  const double R = static_cast<double>(kv_lora_rank), W = static_cast<double>(width);
  // Scores over r + p dims, then P times the latent (r dims) as the value.
  op.flops = 2 * B * H * L * W + 2 * B * H * L * R;
  op.model_flops = op.flops;
  // The cache once (all heads share it), the absorbed queries in, the latent outputs out.
  op.bytes_read = B * L * W * bytes_of(kv) + B * H * W * bytes_of(act);
  op.bytes_written = B * H * R * bytes_of(act);
  // FlashMLA: the split kernel and a combine.
  op.launches = 2;
  op.passes = 2;
  return op;
}

namespace {
// Flash-decoding's price, and the MMA work as a floor: the H query heads share one latent row,
// so a row of 2 (r + p) bytes feeds 2 H (2 r + p) FLOPs: 30 per byte at DeepSeek-V2-Lite's 16
// heads (memory-bound), 242 at DeepSeek-V3's 128, past the ridge (604.5 TFLOP/s fused attention
// peak / 4.3 TB/s): FlashMLA is compute-bound there (deepseek-ai/FlashMLA reports 660 TFLOP/s
// on H800). Priced at the profile's attention peak (the fused profile's: cuDNN's sm90 flash).
// FlashMLA's tile scheduler (get_mla_metadata) spreads every sequence's key blocks over the SMs
// whatever the batch, so no CTA walks a whole cache alone: with a profile's measured decode
// kernel the KV stream is priced at its split rate at every batch (FlashAttention-2's rule stops
// splitting at 0.8 x SMs of CTAs, which priced batch 128 at 32k keys 4.7x batch 96's time).
KernelTimes mla_decode_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  KernelTimes t;
  const ProductionDecode& d = r.production_decode;
  if (d.measured() && op.attention.batch > 0) {
    const AttentionShape& a = op.attention;
    const ProductionDecodePlan p = plan_production_decode(a.batch, a.heads, a.kv_heads, a.kv_len, a.head_dim, r.card.sm_count);
    t.fixed_s = d.call_floor_s + static_cast<double>(std::max<int64_t>(1, p.splits)) * d.combine_per_split_s;
    t.memory_s = with_l2_hit(op, r, op.bytes() / d.stream_bandwidth);
    t.compute_s = kv_convert_s(op, r);  // fp8 latent cache (0 otherwise)
  } else {
    t = flash_decode_cost(op, r, force_tile);
  }
  if (op.flops > 0 && r.attention_peak > 0) t.compute_s = std::max(t.compute_s, op.flops / r.attention_peak);
  return t;
}

// A measured case: heads over one latent head of head_dim = kv_lora_rank + rope (64 rope dims).
Op from_case(const KernelCase& c, bool) {
  if (c.head_dim <= 64)
    throw InputError("case '" + c.name + "': attention_mla_decode needs head_dim = kv_lora_rank + 64, got " +
                     std::to_string(c.head_dim));
  return ops::attention_mla_decode(c.name, c.batch, c.heads, c.kv_len, c.head_dim - 64, 64, c.dtype, c.dtype);
}
}  // namespace

const KernelDef& kernel_def_attention_mla_decode() {
  static const KernelDef d{.id = KernelId::attention_mla_decode,
                           .name = "attention_mla_decode",
                           .accuracy_set = "attention",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = mla_decode_cost};
  return d;
}

}  // namespace perfmodel
