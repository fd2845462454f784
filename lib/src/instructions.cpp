#include "perfmodel/instructions.hpp"

#include <algorithm>

namespace perfmodel {

namespace {

// Per kernel: instructions per thread (index math, loop set-up, block reductions) and per
// element. Counted with Nsight Compute (smsp__inst_executed) on the validation kernels built
// for sm_90 by nvcc 13.0, bf16, at shapes outside the timed suite (3000 x 1024/4096/8192 and
// 6 x 4096), and solved from two shapes and checked on a third within 1 %:
// validation/results/h200/ncu/counts.csv, validation/scripts/ncu_count.sh.
struct Count {
  double per_thread, per_element;
};

// Map kernels: one thread per 16-byte vector (threads = elements / V); the per-thread part is
// an upper bound once the grid is capped and threads loop.
Count map_count(KernelId k) {
  switch (k) {
    case KernelId::copy:
    case KernelId::cast: return {20.0, 3.63};
    case KernelId::add:
    case KernelId::mul:
    case KernelId::other: return {22.0, 6.5};
    case KernelId::gelu_fused: return {17.5, 25.9};
    case KernelId::gelu_unfused: return {8 * 20.3, 8 * 7.0};  // eight kernels of one operation
    case KernelId::silu_mul: return {23.4, 30.8};
    case KernelId::gelu_mul: return {23.4, 32.4};  // gelu_fused's arithmetic plus the product
    case KernelId::embedding: return {76.9, 6.64};
    case KernelId::rotary: return {0.0, 15.0};     // per element of q and k
    case KernelId::kv_append: return {0.0, 14.6};  // per element of K and V
    case KernelId::softmax_naive: return {0.0, 59.4};  // five kernels, counted together
    default: return {0.0, 0.0};
  }
}

// Row kernels: one CTA of row_threads(cols) threads per row.
bool row_kernel(KernelId k, Count* c) {
  switch (k) {
    case KernelId::rmsnorm: *c = {87.0, 12.1}; return true;
    case KernelId::layernorm: *c = {130.0, 20.25}; return true;
    case KernelId::softmax_fused: *c = {122.0, 34.1}; return true;
    default: return false;
  }
}

}  // namespace

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
  Count c{};
  if (row_kernel(kernel, &c)) {
    if (residual && kernel == KernelId::rmsnorm) c.per_element = 16.4;  // the add and a second write
    return static_cast<double>(rows) * static_cast<double>(row_threads(cols, dtype)) * c.per_thread +
           elements * c.per_element;
  }
  c = map_count(kernel);
  const double vec = std::max(1.0, 16.0 / bytes_of(dtype));
  return elements / vec * c.per_thread + elements * c.per_element;
}

int64_t thread_iterations(KernelId kernel, int64_t cols, DType dtype) {
  Count c{};
  if (!row_kernel(kernel, &c) || cols <= 0) return 1;
  const int64_t vec = std::max<int64_t>(1, static_cast<int64_t>(16 / bytes_of(dtype)));
  const int64_t per_pass = vec * row_threads(cols, dtype);
  return (cols + per_pass - 1) / per_pass;
}

double thread_instructions(KernelId kernel, int64_t cols, DType dtype) {
  if (cols <= 0) return 0;
  Count c{};
  if (row_kernel(kernel, &c))
    return c.per_thread + c.per_element * static_cast<double>(cols) / static_cast<double>(row_threads(cols, dtype));
  c = map_count(kernel);
  const double vec = std::max(1.0, 16.0 / bytes_of(dtype));
  // Rotary and KV append count per element of two operands (q/k halves, K and V).
  const double operands = kernel == KernelId::rotary || kernel == KernelId::kv_append ? 2.0 : 1.0;
  return c.per_thread + c.per_element * vec * operands;
}

}  // namespace perfmodel
