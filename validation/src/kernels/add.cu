// add: y = a + b (the residual add).
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

class AddWorkload : public MapWorkload {
 public:
  explicit AddWorkload(const Case& c) : MapWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n());
    bufs = {{"a", et_, N, Role::input}, {"b", et_, N, Role::input}, {"y", et_, N, Role::output}};
  }
  double bytes() const override { return 3.0 * static_cast<double>(n()) * et_size(et_); }
  double flops() const override { return static_cast<double>(n()); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      map<T, 2>(FAdd{}, static_cast<T*>(p[2]), static_cast<T*>(p[0]), static_cast<T*>(p[1]), n(), s);
    });
  }

 protected:
  double ref(double a, double b) const override { return a + b; }
  int out_buffer() const override { return 2; }
};

}  // namespace

std::unique_ptr<Workload> make_add(const Case& c) { return std::make_unique<AddWorkload>(c); }

}  // namespace perfmodel::validation::detail
