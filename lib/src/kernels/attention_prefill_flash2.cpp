// Kernel kind `attention_prefill_flash2`: prefill attention as FlashAttention-2 runs it (PyTorch SDPA's `flash`
// backend, pytorch_flash::flash_fwd_kernel; the same code flash-attn 2 ships, which transformers'
// attn_implementation="flash_attention_2" and serving engines on Ampere call). Branch flash2
// (validation/scripts/production/fit_flash2.py, docs/accuracy-notes.md "Branch flash2").
//
// Its tiles are not the 128 x 128 wgmma tiles of cuDNN's sm90 kernel (flash_prefill_cost.cpp): mma.sync tiles of
// bm query rows x bn keys, four warps, each warp holding 16 query rows and reading the whole K and V tile from
// shared memory. At 255 registers a thread two CTAs share an SM. A CTA (sequence, head, bm rows) walks its key
// tiles; the first ceil(bm / bn) of a causal CTA (one more when the lengths are not multiples of the tiles) run
// the masking branch, which computes every score's row and column and costs more than the MMAs it masks: on the
// H200 the measured time per tile doubles from long sequences to 300-token ones, where most tiles are masked.
#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"
#include "perfmodel/production_decode.hpp"

namespace perfmodel {

// The head dims PyTorch 2.11's FlashAttention-2 is compiled for; a call runs the next one up, its MMAs and its
// shared-memory reads over the padded dim (h200-headdims: 80 runs the 96 kernel, 160 the 192 one).
int64_t flash2_kernel_dim(int64_t head_dim) {
  for (int64_t d : {32, 64, 96, 128, 192}) if (head_dim <= d) return d;
  return std::max<int64_t>(256, head_dim);  // past 256 PyTorch runs no FlashAttention-2: priced at the call's dim
}

// The padded kernel is instantiated with Is_even_K false for a short dim: every load of Q, K and V is predicated by
// column chunk and the padded columns are cleared in shared memory (flash_fwd_kernel.h, copy<Is_even_MN, Is_even_K>).
// Nsight Compute (h200-oddsplit): the split kernel at 80 executes 14 % more warp instructions than at 96, at 160
// 17 % more than at 192; timed pairs at one shape: 1.07-1.14x.
double flash2_uneven_dim(const Flash2Prefill& f, int64_t head_dim) {
  return f.uneven_dim && head_dim != flash2_kernel_dim(head_dim) ? *f.uneven_dim : 1.0;
}

namespace {

struct Flash2Tiles {
  int64_t dim, rows, keys, warps;  // the kernel's head dim (the call's, rounded up), its tile and warps
  int ctas_per_sm;                 // resident CTAs: 255 / 245 registers a thread (Nsight Compute)
};

// Flash_fwd_kernel_traits<d, bm, bn, warps> of the kernels PyTorch 2.11 launched on the H200 (every measured case's
// kernel name; h200-headdims for 32, 96 and 192): flash_fwd_kernel 128 x 128 at head dims 32 and 64, 128 x 64 at 96
// and 128 (four warps, two CTAs an SM), 128 x 64 with eight warps at 192 (one CTA an SM), 64 x 64 at 256 (four
// warps, two an SM); flash_fwd_splitkv_kernel 64 x 256 / 64 x 128 / 64 x 64 keys (to 64 / 128 / past), four warps.
Flash2Tiles flash2_split_tiles(int64_t head_dim) {
  const int64_t d = flash2_kernel_dim(head_dim);
  return {d, 64, d <= 64 ? 256 : d <= 128 ? 128 : 64, 4, 2};
}

Flash2Tiles flash2_tiles(int64_t head_dim) {
  const int64_t d = flash2_kernel_dim(head_dim);
  if (d <= 64) return {d, 128, 128, 4, 2};
  if (d <= 128) return {d, 128, 64, 4, 2};
  if (d <= 192) return {d, 128, 64, 8, 1};
  return {d, 64, 64, 4, 2};
}

}  // namespace

int flash2_ctas_per_sm(int64_t head_dim) { return flash2_tiles(head_dim).ctas_per_sm; }

namespace {

constexpr double kSmemBytesPerClock = 128.0;   // an SM's shared-memory read port
constexpr int64_t kBalancedGrid = 100000;      // CTAs past which the list schedule is taken as balanced

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Key tiles query tile i walks: all of them, or up to the diagonal when causal (queries aligned to the end of the
// keys), from the window's first key when there is one.
int64_t key_tiles(const AttentionShape& a, const Flash2Tiles& t, int64_t i) {
  const int64_t all = ceil_div(a.kv_len, t.keys);
  if (!a.causal) return all;
  const int64_t last_key = a.kv_len - a.q_len + std::min(a.q_len, (i + 1) * t.rows) - 1;
  int64_t lo = 0;
  if (a.window > 0) lo = std::max<int64_t>(0, a.kv_len - a.q_len + i * t.rows - a.window + 1) / t.keys;
  return std::clamp<int64_t>(last_key / t.keys + 1 - lo, 1, all);
}

// The busiest slot's time: CTAs in index order (heads outer, query tiles inner) onto the first free of
// ctas_per_sm x SMs slots, each CTA priced at the pace it runs beside its SM's other CTAs.
double critical_path_s(const AttentionShape& a, const std::vector<double>& cta_s, int sm_count, int ctas_per_sm) {
  const int slots = ctas_per_sm * std::max(1, sm_count);
  const int64_t groups = a.batch * a.heads;
  const double longest = *std::max_element(cta_s.begin(), cta_s.end());
  if (groups * static_cast<int64_t>(cta_s.size()) > kBalancedGrid) {
    double per_group = 0;
    for (double c : cta_s) per_group += c;
    return per_group * static_cast<double>(groups) / slots + longest / 2;
  }
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int i = 0; i < slots; ++i) free_at.push(0.0);
  double end = 0;
  for (int64_t g = 0; g < groups; ++g)
    for (double c : cta_s) {
      const double done = free_at.top() + c;
      free_at.pop();
      free_at.push(done);
      end = std::max(end, done);
    }
  return end;
}

// The busiest slot over the key tiles (r.flash2 measured). With splits > 1, flash_fwd_splitkv_kernel: 64-row query
// tiles, the key blocks cut into `splits` equal runs, a CTA per (query tile, run) in that order (its grid: query
// tile, split, sequence x head); a run past a query tile's diagonal only writes its empty partial (cta_fixed).
double tiles_critical_s(const AttentionShape& a, const Roofs& r, int64_t splits) {
  const Flash2Prefill& f = r.flash2;
  const Flash2Tiles t = splits > 1 ? flash2_split_tiles(a.head_dim) : flash2_tiles(a.head_dim);
  const int sms = std::max(1, r.card.sm_count);
  const double elements = static_cast<double>(t.rows * t.keys), d = static_cast<double>(t.dim);
  const double smem_bytes = static_cast<double>(t.warps * 2 * t.keys * t.dim * 2);  // K and V, bf16 / fp16
  // The SM's own clock (the CUDA-core peaks' one: 1980 MHz on the H200) drives its shared-memory port.
  const double clock = r.card.cuda_clock_hz > 0 ? r.card.cuda_clock_hz : r.card.tensor_clock_hz;
  const double tile_s = 4 * elements * d / (*f.mma_peak / sms) + *f.softmax_s * elements +
                        *f.smem_share * smem_bytes / (kSmemBytesPerClock * clock);
  const bool even = a.q_len % t.rows == 0 && a.kv_len % t.keys == 0;
  // Without the causal mask the one masking step only bounds the last key tile, when the lengths are not tile
  // multiples (flash_fwd_kernel.h: n_masking_steps 1, apply_mask only if !Is_even_MN).
  const int64_t masking = a.causal ? ceil_div(t.rows, t.keys) + (even ? 0 : 1) : (even ? 0 : 1);
  const int64_t q_tiles = ceil_div(a.q_len, t.rows), all = ceil_div(a.kv_len, t.keys);
  const int64_t run = ceil_div(all, std::max<int64_t>(1, splits));
  // A grid of no more CTAs than SMs leaves each alone on its SM, at lone_pace times the paired pace; past that the
  // SMs holding two set the time (the block scheduler fills every SM once before it doubles any).
  const bool alone = a.batch * a.heads * q_tiles * std::max<int64_t>(1, splits) <= sms;
  const double pace = (t.ctas_per_sm > 1 && alone && f.lone_pace ? t.ctas_per_sm / *f.lone_pace : t.ctas_per_sm) *
                      flash2_uneven_dim(f, a.head_dim);
  std::vector<double> cta_s;
  for (int64_t s = 0; s < std::max<int64_t>(1, splits); ++s)
    for (int64_t i = 0; i < q_tiles; ++i) {
      const int64_t end = key_tiles(a, t, i);  // the query tile's last key tile + 1 (from 0, no window here)
      const int64_t hi = std::min(end, (s + 1) * run), lo = s * run;
      const int64_t n = std::max<int64_t>(0, hi - lo);
      const int64_t masked = hi == end ? std::min(n, masking) : 0;  // the run holding the diagonal / the last tile
      cta_s.push_back(pace * (*f.cta_fixed_s + static_cast<double>(n) * tile_s +
                              static_cast<double>(masked) * *f.mask_s * elements));
    }
  return critical_path_s(a, cta_s, sms, t.ctas_per_sm);
}

KernelTimes flash2_prefill_cost(const Op& op, const Roofs& r, const Tile* force_tile) {
  const Flash2Prefill& f = r.flash2;
  // Not measured on this card: the card's attention rates, as any fused prefill.
  if (!f.measured() || op.flops <= 0 || !(r.card.cuda_clock_hz > 0 || r.card.tensor_clock_hz > 0))
    return flash_prefill_cost(op, r, force_tile);
  effective_peak(r, op.precision);  // a card without the op's peak is refused, as for any op
  const AttentionShape& a = op.attention;
  // mha_fwd runs FlashAttention-2's split rule on prefill too, over 64-row query blocks: a grid too small for the
  // SMs' two slots each runs the split kernel and a combine (h200-lonecta: 1024 tokens at 2-12 heads, two kernels).
  const int64_t splits = a.window > 0 ? 1
                                      : flash2_split_count(a.batch * a.heads * ceil_div(a.q_len, 64),
                                                           ceil_div(a.kv_len, flash2_split_tiles(a.head_dim).keys),
                                                           std::max(1, r.card.sm_count));
  KernelTimes k;
  k.compute_s = tiles_critical_s(a, r, splits);
  k.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
  k.fixed_s = *f.call_floor_s;
  k.fixed_parts.push_back({"FlashAttention-2 call floor (flash2.call_floor)", k.fixed_s, "flash2"});
  if (splits > 1 && r.read_bandwidth > 0 && r.write_bandwidth > 0) {
    // The combine: one more launch reading every split's fp32 partial rows and writing the output once.
    const double rows = static_cast<double>(a.batch * a.heads * a.q_len), dim = static_cast<double>(a.head_dim);
    const double combine = r.kernel_floor_s + static_cast<double>(splits) * rows * (dim + 1) * 4 / r.read_bandwidth +
                           rows * dim * bytes_of(op.dtype) / r.write_bandwidth;
    k.fixed_s += combine;
    k.fixed_parts.push_back({"split-KV combine: " + std::to_string(splits) + " splits' partials read, the output written",
                             combine, "kernel_floor"});
  }
  return k;
}

Op from_case(const KernelCase& c, bool) {
  return ops::attention_prefill_flash2(c.name, c.batch, c.heads, c.kv_heads, c.q_len, c.kv_len, c.head_dim, c.causal,
                                       c.dtype, c.dtype);
}

}  // namespace

Op ops::attention_prefill_flash2(std::string name, int64_t batch, int64_t heads, int64_t kv_heads, int64_t q_len,
                                 int64_t kv_len, int64_t head_dim, bool causal, DType act, DType kv, int64_t window) {
  Op op = attention_prefill(std::move(name), batch, heads, kv_heads, q_len, kv_len, head_dim, causal, act, kv, window);
  op.kernel = KernelId::attention_prefill_flash2;
  return op;
}

const KernelDef& kernel_def_attention_prefill_flash2() {
  static const KernelDef d{.id = KernelId::attention_prefill_flash2,
                           .name = "attention_prefill_flash2",
                           .accuracy_set = "attention",
                           .from_case = from_case,
                           .instructions = {},
                           .cost = flash2_prefill_cost};
  return d;
}

}  // namespace perfmodel
