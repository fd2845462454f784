#include "perfmodel/decode_attention.hpp"

#include <algorithm>

namespace perfmodel {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

DecodeSplit plan_decode_split(int64_t batch, int64_t heads, int64_t kv_heads, int64_t kv_len, int sm_count) {
  DecodeSplit d;
  const bool mma = heads / std::max<int64_t>(1, kv_heads) >= 4;
  const int64_t tile = mma ? 64 : 32, min_chunk = mma ? 128 : 64;
  const int64_t base = std::max<int64_t>(1, batch * kv_heads);
  d.splits = std::max<int64_t>(1, std::min(ceil_div(3 * static_cast<int64_t>(sm_count), base), ceil_div(kv_len, min_chunk)));
  d.chunk = ceil_div(ceil_div(kv_len, d.splits), tile) * tile;
  d.splits = ceil_div(kv_len, d.chunk);
  d.tiles_per_cta = ceil_div(d.chunk, tile);
  d.ctas = base * d.splits;
  return d;
}

}  // namespace perfmodel
