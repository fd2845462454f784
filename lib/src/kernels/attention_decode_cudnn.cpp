// Kernel kind `attention_decode_cudnn`: decode attention as cuDNN's SDPA runs it on sm90
// (cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x<d>_1x4x1, cuDNN
// 9.19 through PyTorch 2.11; the kernel names are in validation/results/h200-production/kernels.json
// and validation/results/h200-compiled/hf.json). What PyTorch's SDPA picks when it gets an attention
// mask (FlashAttention refuses one), so what transformers' StaticCache runs under torch.compile.
// The fused profile prices a serving engine's decode with it too: the same design (GQA group in the
// query tile, each KV head's cache streamed once) as FlashAttention-3's pack_gqa path, FlashInfer and
// TensorRT-LLM's XQA, with the engine's split choice (engine_decode_cost).
//
// The kernel's query tile is 16 rows (the `16x128x<d>` of its name: 16 queries, 128 keys, head
// dim d), so one decode query pads it 16-fold, not 64-fold as the memory-efficient kernel's 64-row
// tile does: the tensor-core work stays far below the K/V stream and the kernel is memory-bound
// (measured: 4.2-4.5 TB/s on 0.1-1 GB of K/V). A CTA holds one (sequence, KV head) and up to 16 of
// its query heads. When those CTAs leave at least half of the SMs idle, cuDNN splits the key tiles
// over all SMs (the two-kernel launches, with cudnn::fusion::lean_reduction_kernel merging the
// partial rows as Lean Attention's stream-K decomposition does): measured at 8-64 CTAs on the
// H200's 132 SMs, never at 112 or more, and only over more than 4 key tiles (at 32-64 CTAs the
// kernel ran alone up to 512 keys, validation/results/h200-cudnn-decode, and split at 552 keys,
// validation/results/h200-compiled, and from 1024).
// Otherwise each CTA walks its whole cache, one CTA per SM at a time, in waves; a wave takes at
// least a CTA's latency-bound first tile (cta_latency), what short walks at many CTAs show
// (docs/model.md, "cuDNN decode").
#include <algorithm>
#include <cmath>

#include "../cost/kernel_costs.hpp"
#include "perfmodel/engine_decode.hpp"
#include "op_builders.hpp"

namespace perfmodel {

Op ops::attention_decode_cudnn(std::string name, int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len,
                               int64_t head_dim, DType act, DType kv) {
  Op op = attention_decode(std::move(name), batch, heads, kv_heads, kv_len, head_dim, act, kv);
  op.kernel = KernelId::attention_decode_cudnn;
  // The merge kernel of the split path is priced in the cost (the split needs the card's SMs);
  // the op counts the SDPA kernel and one pass.
  op.launches = 1;
  op.passes = 1;
  return op;
}

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

constexpr int64_t kQueryTileRows = 16;
constexpr int64_t kKeyTile = 128;         // the `x128x` of the kernel's name
constexpr int64_t kSplitMinKeyTiles = 5;  // no split at 512 keys or fewer

// The kernel's time with or without the split (no split: CTAs in waves, one per SM).
KernelTimes decode_times(const Op& op, const Roofs& r, int64_t ctas, bool split) {
  const AttentionShape& a = op.attention;
  const CudnnDecode& c = r.cudnn_decode;
  // Unmeasured: the card's launch floor and read rate; the merge as a launch and two dependent sweeps.
  const bool measured = c.measured();
  // Both floors fitted on single-call harness times (fit_compiled.py): each kernel alone in a
  // graph profile (kernel_alone_s), whose step adds its own gap per launch.
  const double floor = kernel_alone_s(measured ? c.kernel_floor_s : r.kernel_floor_s, r);
  const double merge = measured ? kernel_alone_s(c.reduction_floor_s, r)
                                : kernel_alone_s(r.kernel_floor_s, r) + 2 * r.pass_latency_s;
  const double bandwidth = measured ? c.stream_bandwidth : r.read_bandwidth;
  const double sms = static_cast<double>(std::max(1, r.card.sm_count));
  // One CTA per SM at a time (its double-buffered 128 x d K and V tiles take most of an SM's shared
  // memory), each streaming at an SM's share of the read rate: the CTAs run in waves and the last
  // wave's idle SMs stream nothing (224 CTAs: two waves at 85 %).
  const double waves = std::ceil(static_cast<double>(ctas) / sms);
  const double fill = split ? 1.0 : static_cast<double>(ctas) / (waves * sms);
  KernelTimes t;
  t.fixed_s = floor + (split ? merge : 0.0);
  const char* key = measured ? "cudnn_decode" : "kernel_floor";
  t.fixed_parts.push_back({measured ? "decode kernel floor" : "decode kernel: the card's launch floor", floor, key});
  if (split)
    t.fixed_parts.push_back({measured ? "reduction kernel floor (the split's merge)" : "merge: a launch and two dependent sweeps",
                             merge, measured ? key : "pass_latency"});
  t.memory_s = with_l2_hit(op, r, op.bytes() / (bandwidth * fill));
  if (!split && measured && c.cta_latency_s)
    t.memory_s = std::max(t.memory_s, waves * *c.cta_latency_s * static_cast<double>(a.head_dim) / 128.0);
  // QK^T and PV over the padded 16-row tile of every CTA.
  const double padded = 4.0 * static_cast<double>(ctas * kQueryTileRows) * static_cast<double>(a.kv_len) *
                        static_cast<double>(a.head_dim);
  const double peak = effective_peak(r, op.precision);
  t.compute_s = peak > 0 ? padded / peak : 0.0;
  // An fp8 cache's conversion (0 otherwise), on the busiest SM's chain of keys (kv_cache_cost.cpp):
  // split, the keys spread over the SMs, at least one key tile a CTA; whole, each wave's CTA walks
  // the whole cache (never less than the card-wide share, kv_convert_s).
  const double keys = static_cast<double>(a.kv_len);
  const double chain_keys = split ? std::max(static_cast<double>(ctas) * keys / sms, std::min(keys, double{kKeyTile}))
                                  : waves * keys;
  t.compute_s = std::max(t.compute_s, kv_convert_chain_s(op, r, chain_keys));
  return t;
}

double total(const KernelTimes& t) { return t.fixed_s + std::max(t.compute_s, t.memory_s); }

int64_t decode_ctas(const AttentionShape& a) {
  const int64_t kv_heads = std::max<int64_t>(1, a.kv_heads);
  const int64_t group = std::max<int64_t>(1, a.heads / kv_heads);
  return std::max<int64_t>(1, a.batch) * kv_heads * ceil_div(group, kQueryTileRows);
}

// cuDNN's own rule (measured through PyTorch's SDPA): split when half the SMs or more sit idle and
// the walk is over 4 key tiles.
KernelTimes cudnn_decode_cost(const Op& op, const Roofs& r, const Tile*) {
  const int64_t ctas = decode_ctas(op.attention);
  const bool split = 2 * ctas <= std::max(1, r.card.sm_count) && ceil_div(op.attention.kv_len, kKeyTile) >= kSplitMinKeyTiles;
  return decode_times(op, r, ctas, split);
}

Op from_case(const KernelCase& c, bool) {
  return ops::attention_decode_cudnn(c.name, c.batch, c.heads, c.kv_heads, c.kv_len, c.head_dim, c.dtype, c.dtype);
}

}  // namespace

// A serving engine's scheduler splits the keys whenever the CTAs leave SMs idle and the split is
// faster (FlashAttention-3's num_splits heuristic, FlashInfer's balanced split-KV): no cliff where
// cuDNN's rule starts splitting at 5 key tiles, so the time never drops as the context grows.
KernelTimes engine_decode_cost(const Op& op, const Roofs& r) {
  const int64_t ctas = decode_ctas(op.attention);
  const KernelTimes whole = decode_times(op, r, ctas, false);
  if (ctas >= std::max(1, r.card.sm_count)) return whole;
  const KernelTimes split = decode_times(op, r, ctas, true);
  return total(split) < total(whole) ? split : whole;
}

// The engine's decode with the split decision given (engine_decode.hpp): for a harness that ran
// its own split plan.
KernelTimes engine_decode_cost_as(const Op& op, const Roofs& r, bool split) {
  return decode_times(op, r, decode_ctas(op.attention), split);
}

const KernelDef& kernel_def_attention_decode_cudnn() {
  static const KernelDef d{.id = KernelId::attention_decode_cudnn,
                           .name = "attention_decode_cudnn",
                           .accuracy_set = "attention",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = cudnn_decode_cost};
  return d;
}

}  // namespace perfmodel
