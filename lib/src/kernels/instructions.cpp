#include "perfmodel/instructions.hpp"

#include <algorithm>

#include "perfmodel/kernel.hpp"

namespace perfmodel {

// Per kernel: instructions per thread (index math, loop set-up, block reductions) and per
// element, from the kernel's definition (lib/src/kernels/). Counted with Nsight Compute
// (smsp__inst_executed) on the validation kernels built for sm_90 by nvcc 13.0, bf16, at shapes
// outside the timed suite (3000 x 1024/4096/8192 and 6 x 4096), and solved from two shapes and
// checked on a third within 1 %: validation/results/h200/ncu/counts.csv,
// validation/scripts/ncu_count.sh. Map kernels run one thread per 16-byte vector (threads =
// elements / V); the per-thread part is an upper bound once the grid is capped and threads loop.
// Row kernels run one CTA of row_threads(cols) threads per row.

double issue_slots_per_second(const Card& card) {
  return static_cast<double>(card.sm_count) * kSchedulersPerSm * card.cuda_clock_hz;
}

int64_t row_threads(int64_t cols, DType dtype) {
  const int64_t vec = std::max<int64_t>(1, static_cast<int64_t>(16 / bytes_of(dtype)));
  const int64_t vectors = (cols + vec - 1) / vec;
  return std::clamp<int64_t>((vectors + 31) / 32 * 32, 32, 256);
}

double kernel_instructions(KernelId kernel, int64_t rows, int64_t cols, DType dtype, bool residual) {
  if (rows <= 0 || cols <= 0) return 0;
  const double elements = static_cast<double>(rows) * static_cast<double>(cols);
  const InstructionCount& c = kernel_def(kernel).instructions;
  if (c.row_kernel) {
    const double per_element = residual && c.residual_per_element > 0 ? c.residual_per_element : c.per_element;
    return static_cast<double>(rows) * static_cast<double>(row_threads(cols, dtype)) * c.per_thread +
           elements * per_element;
  }
  const double vec = std::max(1.0, 16.0 / bytes_of(dtype));
  return elements / vec * c.per_thread + elements * c.per_element;
}

int64_t thread_iterations(KernelId kernel, int64_t cols, DType dtype) {
  if (!kernel_def(kernel).instructions.row_kernel || cols <= 0) return 1;
  const int64_t vec = std::max<int64_t>(1, static_cast<int64_t>(16 / bytes_of(dtype)));
  const int64_t per_pass = vec * row_threads(cols, dtype);
  return (cols + per_pass - 1) / per_pass;
}

double thread_instructions(KernelId kernel, int64_t cols, DType dtype) {
  if (cols <= 0) return 0;
  const InstructionCount& c = kernel_def(kernel).instructions;
  if (c.row_kernel)
    return c.per_thread + c.per_element * static_cast<double>(cols) / static_cast<double>(row_threads(cols, dtype));
  const double vec = std::max(1.0, 16.0 / bytes_of(dtype));
  // Rotary and KV append count per element of two operands (q/k halves, K and V).
  return c.per_thread + c.per_element * vec * c.operands;
}

}  // namespace perfmodel
