#pragma once
// Production decode attention's launch plan (lib/src/cost/production_decode_cost.cpp;
// docs/model.md, "production decode"): FlashAttention-2's split rule with the GQA group packed
// into one tile.
#include <cstdint>

namespace perfmodel {

struct ProductionDecodePlan {
  int64_t ctas = 1;    // (sequence, KV head, 64-query-head block) CTAs before splitting
  int64_t splits = 1;  // 1: the non-split kernel (one launch); else a split kernel and a combine
};
// FlashAttention-2's num_splits_heuristic (flash_api.cpp), counted against two CTAs an SM: no split when `ctas` fill
// 80 % of the slots; else the fewest splits of the `blocks` key blocks whose wave efficiency is within 85 % of the
// best eligible count's. mha_fwd applies it to prefill too (64-row query blocks), so small prefill grids split.
int64_t flash2_split_count(int64_t ctas, int64_t blocks, int sm_count);
// The head dim of the FlashAttention-2 kernel a call runs: the next one PyTorch 2.11 compiles (32, 64, 96, 128, 192,
// 256); past 256 the call's own (attention_prefill_flash2.cpp).
int64_t flash2_kernel_dim(int64_t head_dim);
// CTAs an SM of the non-split FlashAttention-2 kernel at this head dim (two, one at 192: eight warps); the tiles'
// table in attention_prefill_flash2.cpp.
int flash2_ctas_per_sm(int64_t head_dim);
struct Flash2Prefill;
// A call's time over its compiled kernel's at the same shape: the calibration's uneven_dim for a head dim short of
// that kernel's (Is_even_K false), else 1.
double flash2_uneven_dim(const Flash2Prefill& f, int64_t head_dim);
ProductionDecodePlan plan_production_decode(int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len,
                                            int64_t head_dim, int sm_count);

}  // namespace perfmodel
