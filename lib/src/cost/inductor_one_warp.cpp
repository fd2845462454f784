// Inductor's one-warp persistent reductions (issue 10, branch eltwise10). A row reduction of at most
// 1024 columns is a persistent reduction (the row read once into registers); Inductor gives it one
// warp a CTA when its size hints say many rows of 256-1024 columns (torch/_inductor/runtime/
// triton_heuristics.py, _persistent_reduction_configs, ReductionHint.INNER, PyTorch 2.11: `rnumel >=
// 256` and not `rnumel > 1024 or xnumel // 8 < 128`: x_block = min(1024 // rnumel, 8), num_warps 1,
// "to disable shared memory"); the hints are the powers of two at or above the columns and the rows.
// validation/results/h200-eltwise4/inductor_code.json and h200-eltwise5's: 2048 x 768, 32768 x 1024
// (hints 1024), 640 x 1000 (row hint 1024) one row a warp, 16384 x 512 two; 1 x 896 and 4 x 1024
// keep the multi-warp config. Each lane then holds hint x XBLOCK / 32 elements (32 at every one of
// them) and reduces across the warp with shuffles, no shared memory and no barrier.
#include "inductor_one_warp.hpp"

#include <algorithm>
#include <cmath>

namespace perfmodel {

namespace {

int64_t next_power_of_2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace

std::optional<OneWarpLaunch> inductor_one_warp(const Op& op, const Card& card) {
  if (op.rows <= 0 || op.cols <= 0 || card.sm_count <= 0) return std::nullopt;
  const int64_t rnumel = next_power_of_2(op.cols), xnumel = next_power_of_2(op.rows);
  if (rnumel < 256 || rnumel > 1024 || xnumel / 8 < 128) return std::nullopt;
  OneWarpLaunch l;
  l.rows_per_cta = static_cast<double>(std::min<int64_t>(1024 / rnumel, 8));
  l.elements_per_thread = static_cast<double>(rnumel) * l.rows_per_cta / 32.0;
  const double ctas = std::ceil(static_cast<double>(op.rows) / l.rows_per_cta);
  l.warps_per_sm = std::ceil(ctas / static_cast<double>(card.sm_count));
  return l;
}

}  // namespace perfmodel
