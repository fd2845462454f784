#pragma once
// Instructions the reference kernels issue, for the issue roof (docs/model.md, "issue roof").
// A memory-bound kernel whose threads do enough arithmetic per byte stops being memory-bound:
// each SM's schedulers issue at most one warp instruction per clock each. The fused softmax is
// the case in point (34 instructions per element: two exponentials, a mask test and the online
// max/sum rescale), and so is the softmax of unfused attention.
#include <cstdint>

#include "perfmodel/card.hpp"
#include "perfmodel/dtype.hpp"
#include "perfmodel/op.hpp"

namespace perfmodel {

// Thread instructions one instance of `kernel` executes on rows x cols elements of `dtype`
// (`residual`: the norm with the residual add fused in; 0 for kernels the model does not count: GEMMs and attention run on tensor cores).
double kernel_instructions(KernelId kernel, int64_t rows, int64_t cols, DType dtype, bool residual = false);

// Instructions one thread of `kernel` executes on rows of `cols` elements (row kernels: its share
// of a row; map kernels: one 16-byte vector of each operand; chains of kernels: summed over them).
// The default thread chain of a small kernel is derived from it (price.cpp).
double thread_instructions(KernelId kernel, int64_t cols, DType dtype);

// Iterations of a thread's loop over its share of one sweep: row kernels walk cols / (16-byte
// vector x row_threads) vectors of a row; map kernels one vector (1).
int64_t thread_iterations(KernelId kernel, int64_t cols, DType dtype);

// Threads per row of the one-CTA-per-row kernels (norms, fused softmax): one 16-byte vector per
// thread per sweep, rounded up to whole warps, 32..256.
int64_t row_threads(int64_t cols, DType dtype);

// Warp schedulers per SM: four on every NVIDIA SM since Volta (Volta whitepaper, "SM
// architecture") and four SIMDs per AMD CDNA compute unit (CDNA3 whitepaper); each issues one
// warp (wavefront) instruction per clock.
constexpr int kSchedulersPerSm = 4;

// Warp instructions per second the whole card can issue: SMs x schedulers x CUDA-core clock
// (0 when the card states no clock).
double issue_slots_per_second(const Card& card);

}  // namespace perfmodel
