#pragma once
// cuDNN's unmasked decode kernel as lib/src/kernels/attention_decode_cudnn.cpp prices it, restated for
// the tests that check its formulas: the eager profile's cudnn_decode stream (hardware/h200.calibration.yaml),
// the three constants of a CTA's walk, and the join of a wave's walk and stream where its CTAs share SMs
// (the card's decode_overlap, 4). Branch decodeknee's law, refitted with branch splitgrid's split
// count and merge (validation/scripts/production/decodeknee.py).
#include <cmath>

namespace cudnn_law {

constexpr double kStream = 4293.5e9;      // B/s, the card's rate for this kernel
constexpr double kCtaStream = 100.41e9;    // B/s, a CTA's bytes
constexpr double kTileWait = 0.737e-6;    // s, a 128-key tile's fixed wait
constexpr double kUnhiddenTile = 2.290e-6;  // s, one CTA an SM (head dim 256)

inline double tile_bytes(double head_dim) { return 4.0 * 128 * head_dim; }

// A CTA's own K / V read rate; `alone`: one CTA fills its SM (head dim 256).
inline double rate(double head_dim, bool alone = false) {
  const double tile = tile_bytes(head_dim);
  return tile / (tile / kCtaStream + kTileWait + (alone ? kUnhiddenTile : 0.0));
}

// A walk of `tiles` whole 128-key tiles over `bytes`.
inline double walk(double bytes, double tiles, bool alone = false) {
  return bytes / kCtaStream + tiles * (kTileWait + (alone ? kUnhiddenTile : 0.0));
}

inline double joined(double a, double b) { return std::pow(std::pow(a, 4) + std::pow(b, 4), 0.25); }

}  // namespace cudnn_law
