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
ProductionDecodePlan plan_production_decode(int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len,
                                            int64_t head_dim, int sm_count);

}  // namespace perfmodel
