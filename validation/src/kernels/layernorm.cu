// layernorm: y = (x - mean) * rsqrt(var + eps) * w + b.
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

template <typename T>
__global__ void layernorm_kernel(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ bias,
                                 T* __restrict__ y, int64_t cols, float eps) {
  constexpr int V = VecN<T>::n;
  __shared__ float sh[32];
  const T* xr = x + blockIdx.x * cols;
  T* yr = y + blockIdx.x * cols;
  const int64_t nv = cols / V;
  float s = 0.f;
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V];
    load_vec(xr + j * V, f);
#pragma unroll
    for (int e = 0; e < V; ++e) s += f[e];
  }
  const float mean = block_sum(s, sh) / static_cast<float>(cols);
  float v = 0.f;
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V];
    load_vec(xr + j * V, f);
#pragma unroll
    for (int e = 0; e < V; ++e) v += (f[e] - mean) * (f[e] - mean);
  }
  const float rstd = rsqrtf(block_sum(v, sh) / static_cast<float>(cols) + eps);
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V], g[V], b[V];
    load_vec(xr + j * V, f);
    load_vec(w + j * V, g);
    load_vec(bias + j * V, b);
#pragma unroll
    for (int e = 0; e < V; ++e) f[e] = (f[e] - mean) * rstd * g[e] + b[e];
    store_vec(yr + j * V, f);
  }
}

class LayernormWorkload : public EwWorkload {
 public:
  explicit LayernormWorkload(const Case& c) : EwWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n()), C = static_cast<size_t>(c.cols);
    bufs = {{"x", et_, N, Role::input}, {"w", et_, C, Role::input, true, 0.5f, 1.5f}, {"b", et_, C, Role::input}, {"y", et_, N, Role::output}};
  }
  double bytes() const override {
    const double e = static_cast<double>(n()) * et_size(et_), C = static_cast<double>(c_.cols) * et_size(et_);
    return 2 * e + 2 * C;
  }
  double flops() const override { return 7.0 * static_cast<double>(n()); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const unsigned rows = static_cast<unsigned>(c_.rows);
      const int th = row_threads(c_.cols, VecN<T>::n);
      layernorm_kernel<T><<<rows, th, 0, s>>>(static_cast<const T*>(p[0]), static_cast<const T*>(p[1]), static_cast<const T*>(p[2]),
                                              static_cast<T*>(p[3]), c_.cols, 1e-5f);
      PV_LAUNCH();
    });
  }
  CheckOut check(void* const* p) override {
    const int64_t C = c_.cols;
    const std::vector<double> w = download(p[1], et_, 0, C), b = download(p[2], et_, 0, C);
    return check_rows(c_, et_, p, 3, [&](int64_t, const std::vector<double>& x, Comparer&) {
      std::vector<double> ref(C);
      double mean = 0, var = 0;
      for (double v : x) mean += v;
      mean /= C;
      for (double v : x) var += (v - mean) * (v - mean);
      const double rs = 1.0 / std::sqrt(var / C + 1e-5);
      for (int64_t i = 0; i < C; ++i) ref[i] = (x[i] - mean) * rs * w[i] + b[i];
      return ref;
    });
  }
};

}  // namespace

std::unique_ptr<Workload> make_layernorm(const Case& c) { return std::make_unique<LayernormWorkload>(c); }

}  // namespace perfmodel::validation::detail
