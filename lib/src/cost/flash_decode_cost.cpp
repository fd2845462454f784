// Flash-decoding: the split kernel's CTAs walk their key tiles one dependent step at a time,
// then the combine merges the splits one by one (decode_attention.hpp; docs/model.md).
#include <algorithm>

#include "kernel_costs.hpp"
#include "perfmodel/decode_attention.hpp"

namespace perfmodel {

KernelTimes flash_decode_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  if (op.attention.batch <= 0) return stream_cost(op, r, force_tile);
  // The serving engine (fused profile) packs the GQA group into the query tile and streams each KV
  // head once, as cuDNN's decode kernel does (FlashAttention-3's pack_gqa, FlashInfer, XQA);
  // PyTorch's FlashAttention-2 walks its 128-key tiles at 3.2 us each past 80 % of the SMs' slots,
  // 1.4-1.7x slower at batch 64 (validation/results/h200-quant3, h200-fused-step-cudnn).
  if (r.profile == "fused" && r.cudnn_decode.measured() && op.kernel == KernelId::attention_decode)
    return engine_decode_cost(op, r);
  // A profile measured on production decode kernels prices them as they run (issue 10).
  if (r.production_decode.measured()) return production_decode_cost(op, r);
  const AttentionShape& a = op.attention;
  KernelTimes t;
  if (op.flops > 0) t.compute_s = op.flops / effective_peak(r, op.precision);
  t.compute_s = std::max(t.compute_s, kv_convert_s(op, r));  // fp8 KV (0 otherwise)
  // The split a planner sizes for the shape (decode_attention.hpp), scored as it is priced here:
  // time never drops as the batch or the context grows (issue 14).
  const DecodeSplit d =
      best_decode_split(a.batch, a.heads, a.kv_heads, a.kv_len, a.head_dim, r.card, op.bytes_read, r.read_bandwidth,
                        r.decode, r.pass_latency_s, r.kernel_floor_s, std::max(stream_memory_s(op, r), t.compute_s));
  // The KV stream and the CTAs' chains of dependent tile steps.
  const double chains_s = decode_split_time(d, op.bytes_read, r.read_bandwidth, r.card, r.decode);
  // The split kernel, and the combine only when there is more than one split.
  t.fixed_s = r.kernel_floor_s;
  t.fixed_parts = {{"split kernel's launch floor", r.kernel_floor_s, "kernel_floor"}};
  if (d.splits > 1) {
    const double combine = decode_combine_time(d, r.pass_latency_s, r.decode);
    t.fixed_s += r.kernel_floor_s + combine;
    t.fixed_parts.push_back({"combine kernel's launch floor", r.kernel_floor_s, "kernel_floor"});
    t.fixed_parts.push_back({"combine walk over " + std::to_string(d.splits) + " splits", combine, "decode_combine_per_split"});
  }
  t.memory_s = with_l2_hit(op, r, std::max(stream_memory_s(op, r), chains_s));
  return t;
}

}  // namespace perfmodel
