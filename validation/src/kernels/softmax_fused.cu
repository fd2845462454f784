// softmax_fused: one-pass online softmax over rows (also the scaled, causally masked softmax of unfused attention).
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

// fused softmax: pass 1 online (max, sum), pass 2 writes. Optional scale and causal mask:
// row r has query position qpos = (r % mask_q_len) + mask_offset; columns c > qpos are masked (output 0).
template <typename T>
__global__ void softmax_fused_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t cols, float scale,
                                     int64_t mask_q_len, int64_t mask_offset) {
  constexpr int V = VecN<T>::n;
  __shared__ float sh[32];
  const int64_t row = blockIdx.x;
  const T* xr = x + row * cols;
  T* yr = y + row * cols;
  const int64_t nv = cols / V;
  const int64_t limit = mask_q_len > 0 ? (row % mask_q_len) + mask_offset : cols;  // last valid col
  const float sl = scale * 1.4426950408889634f;  // log2(e)
  float m = -INFINITY, s = 0.f;
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V];
    load_vec(xr + j * V, f);
    float lm = -INFINITY;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      f[e] = (j * V + e <= limit) ? f[e] * sl : -INFINITY;
      lm = fmaxf(lm, f[e]);
    }
    if (lm == -INFINITY) continue;
    const float mn = fmaxf(m, lm);
    float acc = s * exp2f(m - mn);
#pragma unroll
    for (int e = 0; e < V; ++e) acc += exp2f(f[e] - mn);
    s = acc;
    m = mn;
  }
  const float M = block_max(m, sh);
  const float S = block_sum(m == -INFINITY ? 0.f : s * exp2f(m - M), sh);
  const float inv = 1.f / S;
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V];
    load_vec(xr + j * V, f);
#pragma unroll
    for (int e = 0; e < V; ++e) f[e] = (j * V + e <= limit) ? exp2f(f[e] * sl - M) * inv : 0.f;
    store_vec(yr + j * V, f);
  }
}

class SoftmaxFusedWorkload : public EwWorkload {
 public:
  explicit SoftmaxFusedWorkload(const Case& c) : EwWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n());
    bufs = {{"x", et_, N, Role::input, true, -4.f, 4.f}, {"y", et_, N, Role::output}};
  }
  double bytes() const override { return 2.0 * static_cast<double>(n()) * et_size(et_); }
  double flops() const override { return 5.0 * static_cast<double>(n()); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const int th = row_threads(c_.cols, VecN<T>::n);
      softmax_fused_kernel<T><<<static_cast<unsigned>(c_.rows), th, 0, s>>>(static_cast<const T*>(p[0]), static_cast<T*>(p[1]), c_.cols, 1.f, 0, 0);
      PV_LAUNCH();
    });
  }
  CheckOut check(void* const* p) override {
    return check_rows(c_, et_, p, 1, [](int64_t, const std::vector<double>& x, Comparer&) { return softmax_ref(x); });
  }
};

}  // namespace

std::unique_ptr<Workload> make_softmax_fused(const Case& c) { return std::make_unique<SoftmaxFusedWorkload>(c); }

// softmax over rows with scale and causal mask (used by unfused attention)
template <typename T>
void launch_softmax_rows(const T* x, T* y, int64_t rows, int64_t cols, float scale, int64_t mask_q_len, int64_t mask_offset, cudaStream_t s) {
  softmax_fused_kernel<T><<<static_cast<unsigned>(rows), row_threads(cols, VecN<T>::n), 0, s>>>(x, y, cols, scale, mask_q_len, mask_offset);
  PV_LAUNCH();
}
template void launch_softmax_rows<__nv_bfloat16>(const __nv_bfloat16*, __nv_bfloat16*, int64_t, int64_t, float, int64_t, int64_t, cudaStream_t);
template void launch_softmax_rows<__half>(const __half*, __half*, int64_t, int64_t, float, int64_t, int64_t, cudaStream_t);

}  // namespace perfmodel::validation::detail
