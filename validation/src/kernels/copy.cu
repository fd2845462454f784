// copy: y = x (the bandwidth probe). Also the harness self-test's deliberately broken copies.
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

class CopyWorkload : public MapWorkload {
 public:
  explicit CopyWorkload(const Case& c) : MapWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n());
    bufs = {{"x", et_, N, Role::input}, {"y", et_, N, Role::output}};
  }
  double bytes() const override { return 2.0 * static_cast<double>(n()) * et_size(et_); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      T* x = static_cast<T*>(p[0]);
      map<T, 1>(FCopy{}, static_cast<T*>(p[1]), x, x, n(), s);
    });
  }

 protected:
  double ref(double a, double) const override { return a; }
};

// test-only broken copies: mode 0 skips the last element, mode 1 writes a wrong value at n/2
template <typename T>
__global__ void broken_copy_kernel(T* __restrict__ y, const T* __restrict__ a, int64_t n, int mode) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (mode == 0 && i == n - 1) continue;
    float v = to_f(a[i]);
    if (mode == 1 && i == n / 2) v = v + 1.5f;
    y[i] = from_f<T>(v);
  }
}

class BrokenCopyWorkload : public EwWorkload {
 public:
  BrokenCopyWorkload(const Case& c, int mode) : EwWorkload(c), mode_(mode) {
    require_rows_cols();
    bufs = {{"x", et_, static_cast<size_t>(n()), Role::input}, {"y", et_, static_cast<size_t>(n()), Role::output}};
  }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      broken_copy_kernel<T><<<grid_for(n(), kBlock), kBlock, 0, s>>>(static_cast<T*>(p[1]), static_cast<const T*>(p[0]), n(), mode_);
      PV_LAUNCH();
    });
  }
  CheckOut check(void* const* p) override {
    Comparer cmp;
    auto x = download(p[0], et_, 0, n());
    auto y = download(p[1], et_, 0, n());
    for (int64_t i = 0; i < n(); ++i) cmp.add(i, y[i], x[i]);
    return cmp.finish(tolerance(c_.dtype), "y");
  }
  int mode_;
};

}  // namespace

std::unique_ptr<Workload> make_copy(const Case& c) { return std::make_unique<CopyWorkload>(c); }

std::unique_ptr<Workload> make_broken_copy_workload(const Case& c, int mode) { return std::make_unique<BrokenCopyWorkload>(c, mode); }

}  // namespace perfmodel::validation::detail
