// vLLM's tuned fused_moe config files -> FusedMoeTiles (fused_moe_tiles.hpp).
#include "perfmodel/fused_moe_tiles.hpp"

#include <cstdlib>
#include <string>

#include "catalogue/yaml_reader.hpp"

namespace perfmodel {

namespace {

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// A token count as vLLM's loader reads a key (int(key)): digits only, at least 1.
int64_t token_key(const detail::MapReader& r, const std::string& key) {
  if (key.empty() || key.size() > 12 || key.find_first_not_of("0123456789") != std::string::npos)
    r.fail(key, "expected a token count (a positive integer key such as \"64\"), got '" + key + "'");
  const int64_t v = std::strtoll(key.c_str(), nullptr, 10);
  if (v < 1) r.fail(key, "a token count must be at least 1, got '" + key + "'");
  return v;
}

int64_t block(detail::MapReader& e, const std::string& field) {
  const int64_t v = e.integer(field, 1, 4096);
  if (!power_of_two(v)) e.fail(field, field + " must be a power of two (Triton's tl.arange), got " + std::to_string(v));
  return v;
}

}  // namespace

FusedMoeTiles load_fused_moe_tiles(const std::string& path) {
  detail::MapReader r(detail::load_file(path), path, "");
  FusedMoeTiles tiles;
  for (const std::string& key : r.keys()) {
    // vLLM's tuner stamps its Triton version on newer files; get_moe_configs drops the key before reading tokens.
    if (key == "triton_version") {
      r.ignore({key});
      continue;
    }
    const int64_t tokens = token_key(r, key);
    detail::MapReader e = r.map(key);
    FusedMoeTile t;
    t.block_m = block(e, "BLOCK_SIZE_M");
    t.block_n = block(e, "BLOCK_SIZE_N");
    t.block_k = block(e, "BLOCK_SIZE_K");
    t.group_m = e.integer("GROUP_SIZE_M", 1, 4096);
    t.warps = e.integer("num_warps", 1, 32);
    if (!power_of_two(t.warps)) e.fail("num_warps", "num_warps must be a power of two, got " + std::to_string(t.warps));
    t.stages = e.integer("num_stages", 1, 16);
    e.finish();
    tiles[tokens] = t;
  }
  r.finish();
  if (tiles.empty()) r.fail_here("no configs: expected entries such as \"64\": {\"BLOCK_SIZE_M\": 16, ...}");
  return tiles;
}

FusedMoeTile nearest_fused_moe_tile(const FusedMoeTiles& tiles, int64_t tokens) {
  const FusedMoeTile* best = nullptr;
  int64_t best_gap = 0;
  for (const auto& [key, tile] : tiles) {
    const int64_t gap = key > tokens ? key - tokens : tokens - key;
    if (!best || gap < best_gap) {
      best = &tile;
      best_gap = gap;
    }
  }
  return best ? *best : FusedMoeTile{};
}

}  // namespace perfmodel
