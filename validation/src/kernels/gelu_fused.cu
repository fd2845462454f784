// gelu_fused: y = gelu(x) (tanh approximation) in one kernel.
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

class GeluFusedWorkload : public MapWorkload {
 public:
  explicit GeluFusedWorkload(const Case& c) : MapWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n());
    bufs = {{"x", et_, N, Role::input, true, -3.f, 3.f}, {"y", et_, N, Role::output}};
  }
  double bytes() const override { return 2.0 * static_cast<double>(n()) * et_size(et_); }
  double flops() const override { return 8.0 * static_cast<double>(n()); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      T* x = static_cast<T*>(p[0]);
      map<T, 1>(FGelu{}, static_cast<T*>(p[1]), x, x, n(), s);
    });
  }

 protected:
  double ref(double a, double) const override { return gelu_ref(a); }
};

}  // namespace

std::unique_ptr<Workload> make_gelu_fused(const Case& c) { return std::make_unique<GeluFusedWorkload>(c); }

}  // namespace perfmodel::validation::detail
