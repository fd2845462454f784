// Which workload runs a case (the kernel registry), the harness's own spin kernel, and the small instance of a case that is checked in full.

#include "harness.cuh"

namespace perfmodel::validation {
namespace detail {

// The kernel kinds the backend runs: one line each in kernels/kernels.def, whose file
// kernels/<kind>.cu defines make_<kind>.
#define PV_KERNEL(kind) std::unique_ptr<Workload> make_##kind(const Case& c);
#include "../kernels/kernels.def"
#undef PV_KERNEL

class SpinWorkload : public Workload {
 public:
  explicit SpinWorkload(const Case& c) : Workload(c) {
    if (!(c.spin_seconds > 0) || c.spin_seconds > 1.0) throw std::runtime_error("spin needs 0 < spin_seconds <= 1");
  }
  void launch(void* const*, cudaStream_t s) override {
    launch_spin(static_cast<uint64_t>(c_.spin_seconds * 1e9), s);
  }
  CheckOut check(void* const*) override { return {}; }
  double bytes() const override { return 0; }
};


std::unique_ptr<Workload> make_workload(const Case& c) {
  if (is_spin(c)) return std::make_unique<SpinWorkload>(c);
  switch (c.kernel) {
#define PV_KERNEL(kind) \
  case KernelId::kind:    \
    return make_##kind(c);
#include "../kernels/kernels.def"
#undef PV_KERNEL
    default: throw std::runtime_error("the backend has no kernel " + to_string(c.kernel) + " (src/kernels/kernels.def)");
  }
}

Case small_version(const Case& c) {
  Case s = c;
  auto mn = [](int64_t a, int64_t b) { return std::min(a, b); };
  switch (c.kernel) {
    case KernelId::gemm: s.m = mn(c.m, 48); s.n = mn(c.n, 80); s.k = mn(c.k, 160); break;
    case KernelId::embedding: s.vocab = mn(c.vocab, 1000); s.rows = mn(c.rows, 5); s.cols = mn(c.cols, 1024); break;
    case KernelId::rotary: case KernelId::kv_append: {
      s.batch = mn(c.batch, 2);
      s.q_len = mn(c.q_len, 7);
      const int64_t kvl = c.kv_len > 0 ? c.kv_len : c.q_len;
      s.kv_len = s.q_len + mn(kvl - c.q_len, 5);
      s.kv_heads = mn(c.kv_heads, 2);
      s.heads = c.kv_heads > 0 ? s.kv_heads * (c.heads / c.kv_heads) : c.heads;
      break;
    }
    case KernelId::attention_decode: case KernelId::attention_prefill_unfused: case KernelId::attention_prefill_fused: {
      s.batch = mn(c.batch, 2);
      s.kv_heads = mn(c.kv_heads, 2);
      s.heads = s.kv_heads * (c.heads / std::max<int64_t>(1, c.kv_heads));
      if (c.kernel == KernelId::attention_decode) {
        s.q_len = 1;
        s.kv_len = mn(c.kv_len, 300);
      } else {
        const int64_t sq = c.q_len > 0 ? c.q_len : c.kv_len;
        s.q_len = mn(sq, 96);
        s.kv_len = s.q_len + mn(c.kv_len - sq, 40) / 8 * 8;
      }
      break;
    }
    default: s.rows = mn(c.rows, 5); s.cols = mn(c.cols, 1024); break;
  }
  return s;
}
bool same_shape(const Case& a, const Case& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.rows == b.rows && a.cols == b.cols && a.vocab == b.vocab && a.batch == b.batch &&
         a.heads == b.heads && a.kv_heads == b.kv_heads && a.q_len == b.q_len && a.kv_len == b.kv_len;
}


}  // namespace detail

}  // namespace perfmodel::validation
