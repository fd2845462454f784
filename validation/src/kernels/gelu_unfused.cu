// gelu_unfused: the same tanh GELU as eight elementwise kernels, as eager PyTorch runs it.
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

class GeluUnfusedWorkload : public MapWorkload {
 public:
  explicit GeluUnfusedWorkload(const Case& c) : MapWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n());
    bufs = {{"x", et_, N, Role::input, true, -3.f, 3.f}, {"y", et_, N, Role::output}, {"t1", et_, N, Role::scratch}, {"t2", et_, N, Role::scratch}};
  }
  int kernels() const override { return 8; }
  double bytes() const override { return 18.0 * static_cast<double>(n()) * et_size(et_); }  // 10 reads + 8 writes over the 8 kernels
  double touched_bytes() const override { return bytes() / 4.5; }
  double flops() const override { return 8.0 * static_cast<double>(n()); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const int64_t N = n();
      T* x = static_cast<T*>(p[0]);
      T* y = static_cast<T*>(p[1]);
      T* A = static_cast<T*>(p[2]);
      T* B = static_cast<T*>(p[3]);
      map<T, 1>(FPow3{}, A, x, x, N, s);                       // A = x^3
      map<T, 1>(FMulC{0.044715f}, B, A, A, N, s);              // B = 0.044715 A
      map<T, 2>(FAdd{}, A, x, B, N, s);                        // A = x + B
      map<T, 1>(FMulC{0.7978845608028654f}, B, A, A, N, s);    // B = sqrt(2/pi) A
      map<T, 1>(FTanh{}, A, B, B, N, s);                       // A = tanh(B)
      map<T, 1>(FAddC{1.f}, B, A, A, N, s);                    // B = 1 + A
      map<T, 1>(FMulC{0.5f}, A, x, x, N, s);                   // A = 0.5 x
      map<T, 2>(FMul{}, y, A, B, N, s);                        // y = A * B
    });
  }

 protected:
  double ref(double a, double) const override { return gelu_ref(a); }
};

}  // namespace

std::unique_ptr<Workload> make_gelu_unfused(const Case& c) { return std::make_unique<GeluUnfusedWorkload>(c); }

}  // namespace perfmodel::validation::detail
