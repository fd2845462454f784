// softmax_naive: softmax as five kernels (max, subtract, exp, sum, divide), as eager PyTorch composes it.
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

// naive softmax pieces
template <typename T, bool IsMax>
__global__ void row_reduce_kernel(const T* __restrict__ x, float* __restrict__ out, int64_t cols) {
  constexpr int V = VecN<T>::n;
  __shared__ float sh[32];
  const T* xr = x + blockIdx.x * cols;
  float a = IsMax ? -INFINITY : 0.f;
  for (int64_t j = threadIdx.x; j < cols / V; j += blockDim.x) {
    float f[V];
    load_vec(xr + j * V, f);
#pragma unroll
    for (int e = 0; e < V; ++e) a = IsMax ? fmaxf(a, f[e]) : a + f[e];
  }
  a = IsMax ? block_max(a, sh) : block_sum(a, sh);
  if (threadIdx.x == 0) out[blockIdx.x] = a;
}
template <typename T, bool IsSub>
__global__ void row_bcast_kernel(const T* __restrict__ x, const float* __restrict__ st, T* __restrict__ y,
                                 int64_t cols, int64_t nv) {
  constexpr int V = VecN<T>::n;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t vpr = cols / V;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nv; i += stride) {
    const float r = st[i / vpr];
    float f[V];
    load_vec(x + i * V, f);
#pragma unroll
    for (int e = 0; e < V; ++e) f[e] = IsSub ? f[e] - r : f[e] / r;
    store_vec(y + i * V, f);
  }
}

class SoftmaxNaiveWorkload : public EwWorkload {
 public:
  explicit SoftmaxNaiveWorkload(const Case& c) : EwWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n()), R = static_cast<size_t>(c.rows);
    bufs = {{"x", et_, N, Role::input, true, -4.f, 4.f}, {"y", et_, N, Role::output}, {"max", ET::f32, R, Role::scratch}, {"sum", ET::f32, R, Role::scratch}};
  }
  int kernels() const override { return 5; }
  double bytes() const override {
    const double e = static_cast<double>(n()) * et_size(et_), R = static_cast<double>(c_.rows) * 4;
    return 8 * e + 4 * R;  // 5MN+2M reads, 3MN+2M writes
  }
  double flops() const override { return 5.0 * static_cast<double>(n()); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      constexpr int V = VecN<T>::n;
      const unsigned rows = static_cast<unsigned>(c_.rows);
      const int th = row_threads(c_.cols, V);
      const T* x = static_cast<const T*>(p[0]);
      T* y = static_cast<T*>(p[1]);
      float* mx = static_cast<float*>(p[2]);
      float* sm = static_cast<float*>(p[3]);
      const int64_t nv = n() / V;
      row_reduce_kernel<T, true><<<rows, th, 0, s>>>(x, mx, c_.cols);
      PV_LAUNCH();
      row_bcast_kernel<T, true><<<grid_for(nv, kBlock), kBlock, 0, s>>>(x, mx, y, c_.cols, nv);
      PV_LAUNCH();
      map<T, 1>(FExp{}, y, y, y, n(), s);
      row_reduce_kernel<T, false><<<rows, th, 0, s>>>(y, sm, c_.cols);
      PV_LAUNCH();
      row_bcast_kernel<T, false><<<grid_for(nv, kBlock), kBlock, 0, s>>>(y, sm, y, c_.cols, nv);
      PV_LAUNCH();
    });
  }
  CheckOut check(void* const* p) override {
    return check_rows(c_, et_, p, 1, [](int64_t, const std::vector<double>& x, Comparer&) { return softmax_ref(x); });
  }
};

}  // namespace

std::unique_ptr<Workload> make_softmax_naive(const Case& c) { return std::make_unique<SoftmaxNaiveWorkload>(c); }

}  // namespace perfmodel::validation::detail
