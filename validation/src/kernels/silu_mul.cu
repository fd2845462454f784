// silu_mul: y = silu(gate) * up (the SwiGLU activation), input rows [gate | up].
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

// silu(gate) * up; input rows x 2*cols ([gate | up]), output rows x cols
template <typename T>
__global__ void silu_mul_kernel(const T* __restrict__ in, T* __restrict__ y, int64_t cols, int64_t nv) {
  constexpr int V = VecN<T>::n;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t vpr = cols / V;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nv; i += stride) {
    const int64_t r = i / vpr, c = (i % vpr) * V;
    float g[V], u[V];
    load_vec(in + r * 2 * cols + c, g);
    load_vec(in + r * 2 * cols + cols + c, u);
#pragma unroll
    for (int e = 0; e < V; ++e) g[e] = g[e] / (1.f + expf(-g[e])) * u[e];
    store_vec(y + i * V, g);
  }
}

class SiluMulWorkload : public MapWorkload {
 public:
  explicit SiluMulWorkload(const Case& c) : MapWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n());
    bufs = {{"gate_up", et_, 2 * N, Role::input, true, -3.f, 3.f}, {"y", et_, N, Role::output}};
  }
  double bytes() const override { return 3.0 * static_cast<double>(n()) * et_size(et_); }
  double flops() const override { return 4.0 * static_cast<double>(n()); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const int64_t nv = n() / VecN<T>::n;
      silu_mul_kernel<T><<<grid_for(nv, kBlock), kBlock, 0, s>>>(static_cast<T*>(p[0]), static_cast<T*>(p[1]), c_.cols, nv);
      PV_LAUNCH();
    });
  }

 protected:
  double ref(double a, double b) const override { return silu_ref(a) * b; }
  bool gated() const override { return true; }
};

}  // namespace

std::unique_ptr<Workload> make_silu_mul(const Case& c) { return std::make_unique<SiluMulWorkload>(c); }

}  // namespace perfmodel::validation::detail
