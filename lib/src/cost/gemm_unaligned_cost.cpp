// cuBLAS's fallback for a GEMM whose rows are not 16-byte aligned (validation/results/h200-unaligned16).
// cuBLASLt's sm90 kernels (nvjet) load their tiles with TMA, whose global address and strides must be
// multiples of 16 bytes (CUDA driver API, cuTensorMapEncodeTiled: globalStrides "must be a multiple of
// 16"); a bf16 row of 50257 elements (GPT-2's tied LM head) is 100514 bytes, so cuBLAS runs older
// kernels instead: gemv2T_kernel_val at one row, gemmSN_TN_kernel at two, and from there Turing
// CUTLASS kernels with one-element alignment (cutlass_75_tensorop_bf16_s1688gemm_bf16_{64x64,128x128}_tn_align1).
#include <algorithm>
#include <cmath>

#include "kernel_costs.hpp"

namespace perfmodel {

namespace {
// The align1 kernels load A and B one element per load (no vector loads on an unaligned row): a CTA
// of a tm x tn tile issues (tm + tn) * k scalar loads whatever the valid rows, and the SM issues
// them at a fixed rate. Fitted on h200-unaligned16's M = 8 and M = 512 rows (2.80 and 2.83 elements
// per clock per SM at the 1980 MHz SM clock the run held, after the kernel floor); M = 24, 64 and 128
// held out.
constexpr double kAlign1ElementsPerClock = 2.82;
// gemv2T streams the weight at a share of the card's read rate: fitted on M = 1 (28.9 us over the
// floor for 77.3 MB, 0.574 of 4658 GB/s); gemmSN (M = 2) held out.
constexpr double kLegacyStreamShare = 0.574;
}  // namespace

bool unaligned_gemm_rows(const Op& op) {
  const int64_t bytes = static_cast<int64_t>(bytes_of(op.dtype));
  if (op.kernel != KernelId::gemm || op.gemm.batch != 1 || bytes != 2) return false;
  // y[m,n] = x[m,k] . W[n,k]^T: x and W rows are k long, y's rows n long.
  return (op.gemm.n * bytes) % 16 != 0 || (op.gemm.k * bytes) % 16 != 0;
}

KernelTimes unaligned_gemm_cost(const Op& op, const Roofs& r) {
  const Card& card = r.card;
  KernelTimes t;
  t.fixed_s = op.launches * r.kernel_floor_s;
  const int64_t m = op.gemm.m, n = op.gemm.n, k = op.gemm.k;
  if (m <= 2) {  // gemv2T / gemmSN: the weight read once, at the legacy kernels' stream rate
    t.memory_s = with_l2_hit(op, r, (op.bytes_read + op.bytes_written) / (kLegacyStreamShare * r.read_bandwidth));
    // Their CUDA-core FMAs (2.6-4.2 TFLOP/s here) stay far below the card's fp32 rate: the stream is the roof.
    return t;
  }
  // cuBLAS's heuristic picked 64 x 64 tiles below 128 rows, 128 x 128 from 128 (h200-unaligned16).
  const int64_t tile = m < 128 ? 64 : 128;
  const int64_t tiles = ((m + tile - 1) / tile) * ((n + tile - 1) / tile);
  const int64_t waves = (tiles + card.sm_count - 1) / std::max<int64_t>(1, card.sm_count);
  const double loads_per_sm = static_cast<double>(waves) * 2.0 * static_cast<double>(tile) * static_cast<double>(k);
  t.compute_s = loads_per_sm / (kAlign1ElementsPerClock * card.cuda_clock_hz);
  t.memory_s = with_l2_hit(op, r, stream_memory_s(op, r));
  return t;
}

}  // namespace perfmodel
