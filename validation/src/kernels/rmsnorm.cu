// rmsnorm: y = x * rsqrt(mean(x^2) + eps) * w, optionally with the residual add fused in.
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

template <typename T>
__global__ void rmsnorm_kernel(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, int64_t cols, float eps) {
  constexpr int V = VecN<T>::n;
  __shared__ float sh[32];
  const T* xr = x + blockIdx.x * cols;
  T* yr = y + blockIdx.x * cols;
  const int64_t nv = cols / V;
  float ss = 0.f;
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V];
    load_vec(xr + j * V, f);
#pragma unroll
    for (int e = 0; e < V; ++e) ss += f[e] * f[e];
  }
  ss = block_sum(ss, sh);
  const float r = rsqrtf(ss / static_cast<float>(cols) + eps);
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V], g[V];
    load_vec(xr + j * V, f);
    load_vec(w + j * V, g);
#pragma unroll
    for (int e = 0; e < V; ++e) f[e] = f[e] * r * g[e];
    store_vec(yr + j * V, f);
  }
}

// Fused residual add + RMSNorm (vLLM's fused_add_rms_norm): h = x + r is written back as the
// new residual stream and y = h * rsqrt(mean(h^2) + eps) * w.
template <typename T>
__global__ void rmsnorm_residual_kernel(const T* __restrict__ x, const T* __restrict__ r, const T* __restrict__ w,
                                        T* __restrict__ y, T* __restrict__ h, int64_t cols, float eps) {
  constexpr int V = VecN<T>::n;
  __shared__ float sh[32];
  const T* xr = x + blockIdx.x * cols;
  const T* rr = r + blockIdx.x * cols;
  T* hr = h + blockIdx.x * cols;
  T* yr = y + blockIdx.x * cols;
  const int64_t nv = cols / V;
  float ss = 0.f;
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V], g[V];
    load_vec(xr + j * V, f);
    load_vec(rr + j * V, g);
#pragma unroll
    for (int e = 0; e < V; ++e) {
      f[e] += g[e];
      ss += f[e] * f[e];
    }
    store_vec(hr + j * V, f);
  }
  ss = block_sum(ss, sh);
  const float inv = rsqrtf(ss / static_cast<float>(cols) + eps);
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V], g[V];
    load_vec(hr + j * V, f);  // this thread's own writes: same thread, no barrier needed
    load_vec(w + j * V, g);
#pragma unroll
    for (int e = 0; e < V; ++e) f[e] = f[e] * inv * g[e];
    store_vec(yr + j * V, f);
  }
}

class RmsnormWorkload : public EwWorkload {
 public:
  explicit RmsnormWorkload(const Case& c) : EwWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n()), C = static_cast<size_t>(c.cols);
    if (c.residual)
      bufs = {{"x", et_, N, Role::input}, {"r", et_, N, Role::input}, {"w", et_, C, Role::input, true, 0.5f, 1.5f},
              {"y", et_, N, Role::output}, {"h", et_, N, Role::output}};
    else
      bufs = {{"x", et_, N, Role::input}, {"w", et_, C, Role::input, true, 0.5f, 1.5f}, {"y", et_, N, Role::output}};
  }
  double bytes() const override {
    const double e = static_cast<double>(n()) * et_size(et_), C = static_cast<double>(c_.cols) * et_size(et_);
    return (c_.residual ? 4 : 2) * e + C;
  }
  double flops() const override { return 4.0 * static_cast<double>(n()); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const unsigned rows = static_cast<unsigned>(c_.rows);
      const int th = row_threads(c_.cols, VecN<T>::n);
      const T* x = static_cast<const T*>(p[0]);
      if (c_.residual)
        rmsnorm_residual_kernel<T><<<rows, th, 0, s>>>(x, static_cast<const T*>(p[1]), static_cast<const T*>(p[2]),
                                                       static_cast<T*>(p[3]), static_cast<T*>(p[4]), c_.cols, 1e-6f);
      else
        rmsnorm_kernel<T><<<rows, th, 0, s>>>(x, static_cast<const T*>(p[1]), static_cast<T*>(p[2]), c_.cols, 1e-6f);
      PV_LAUNCH();
    });
  }
  CheckOut check(void* const* p) override {
    const bool res = c_.residual;
    const int64_t C = c_.cols;
    const std::vector<double> w = download(p[res ? 2 : 1], et_, 0, C);
    return check_rows(c_, et_, p, res ? 3 : 2, [&](int64_t r, std::vector<double> x, Comparer& cmp) {
      if (res) {
        // h = x + r must be written too; the norm is taken of h as stored (rounded to T).
        auto rin = download(p[1], et_, r * C, C);
        auto h = download(p[4], et_, r * C, C);
        for (int64_t i = 0; i < C; ++i) cmp.add(r * C + i, h[i], x[i] + rin[i]);
        x = h;
      }
      std::vector<double> ref(C);
      double ss = 0;
      for (double v : x) ss += v * v;
      const double rr = 1.0 / std::sqrt(ss / C + 1e-6);
      for (int64_t i = 0; i < C; ++i) ref[i] = x[i] * rr * w[i];
      return ref;
    });
  }
};

}  // namespace

std::unique_ptr<Workload> make_rmsnorm(const Case& c) { return std::make_unique<RmsnormWorkload>(c); }

}  // namespace perfmodel::validation::detail
