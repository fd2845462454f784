// Instruction counts of the reference kernels and the issue roof they feed (docs/model.md,
// "issue roof"): counts by hand from the per-thread and per-element coefficients.
#include <doctest/doctest.h>

#include "perfmodel/instructions.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("threads per row: one 16-byte vector each, whole warps, 32..256") {
  CHECK(row_threads(4096, DType::bf16) == 256);  // 512 vectors, capped
  CHECK(row_threads(1024, DType::bf16) == 128);  // 128 vectors
  CHECK(row_threads(768, DType::bf16) == 96);    // 96 vectors: three warps
  CHECK(row_threads(100, DType::bf16) == 32);    // 13 vectors: one warp
  CHECK(row_threads(4096, DType::fp32) == 256);
  CHECK(row_threads(1024, DType::fp32) == 256);  // 256 vectors of 4
}

TEST_CASE("instruction counts: row kernels pay per thread, map kernels per vector") {
  // Fused softmax, 3000 rows of 4096: 256 threads x 122 per row + 34.1 per element. Nsight
  // Compute counted 16,032,000 warp instructions (x 32 = 513.0e6) on this shape.
  const double sm = kernel_instructions(KernelId::softmax_fused, 3000, 4096, DType::bf16);
  CHECK(sm == test::approx(3000.0 * 256 * 122 + 3000.0 * 4096 * 34.1));
  CHECK(sm == test::approx(16032000.0 * 32).epsilon(0.01));
  // ... and at 1024 columns (128 threads per row) it counted 4,740,000 warp instructions.
  CHECK(kernel_instructions(KernelId::softmax_fused, 3000, 1024, DType::bf16) ==
        test::approx(4740000.0 * 32).epsilon(0.01));
  // Copy: one thread per 8 bf16 elements, 20 + 8 x 3.63 instructions each.
  CHECK(kernel_instructions(KernelId::copy, 6, 4096, DType::bf16) == test::approx(6 * 512 * (20 + 8 * 3.63)));
  // The residual RMSNorm does more per element than the plain one.
  CHECK(kernel_instructions(KernelId::rmsnorm, 8, 4096, DType::bf16, true) >
        kernel_instructions(KernelId::rmsnorm, 8, 4096, DType::bf16));
  // Tensor-core kernels are not counted; empty shapes count nothing.
  CHECK(kernel_instructions(KernelId::gemm, 8, 4096, DType::bf16) == 0);
  CHECK(kernel_instructions(KernelId::copy, 0, 4096, DType::bf16) == 0);
}

TEST_CASE("the issue roof makes a large fused softmax compute-bound, not a copy") {
  const Card h200 = test::catalogue().card("h200");
  const Roofs r = make_roofs(h200, nullptr);
  // 132 SMs x 4 schedulers x 1.98 GHz x 0.85 (uncalibrated default).
  CHECK(r.issue_rate == test::approx(132 * 4 * 1.98e9 * 0.85));
  const Op sm = ops::softmax("s", 32768, 4096, DType::bf16, true);
  const OpCost c = price(sm, r, Impl::fused);
  const double issue = sm.instructions / 32 / r.issue_rate;
  CHECK(c.compute_time_s == test::approx(issue));
  CHECK(c.compute_time_s > c.memory_time_s);
  CHECK(c.bound == Bound::compute);
  // A copy of the same bytes stays memory-bound.
  const OpCost cp = price(ops::copy("c", 32768, 4096, DType::bf16), r, Impl::fused);
  CHECK(cp.bound == Bound::memory);
  CHECK(cp.memory_time_s > cp.compute_time_s);
}
