// kv_append: the new tokens' K and V written into the cache at their positions.
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

// KV append: new [b, q_len, kvh, d] -> cache [b, kvh, kv_len, d] at kv_len - q_len
template <typename T>
__global__ void kv_append_kernel(const T* __restrict__ kn, const T* __restrict__ vn, T* __restrict__ kc,
                                 T* __restrict__ vc, int64_t batch, int64_t q_len, int kvh, int d, int64_t kv_len) {
  constexpr int V = VecN<T>::n;
  const int vpd = d / V;
  const int64_t total = batch * q_len * kvh * vpd;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int dv = static_cast<int>(i % vpd);
    int64_t rest = i / vpd;
    const int h = static_cast<int>(rest % kvh);
    rest /= kvh;
    const int64_t t = rest % q_len, b = rest / q_len;
    const int64_t dst = ((b * kvh + h) * kv_len + (kv_len - q_len + t)) * d + dv * V;
    *reinterpret_cast<uint4*>(kc + dst) = *reinterpret_cast<const uint4*>(kn + i * V);
    *reinterpret_cast<uint4*>(vc + dst) = *reinterpret_cast<const uint4*>(vn + i * V);
  }
}

class KvAppendWorkload : public EwWorkload {
 public:
  KvAppendWorkload(const Case& c) : EwWorkload(c) {
    if (c.batch <= 0 || c.q_len <= 0 || c.kv_heads <= 0 || c.head_dim <= 0) throw std::runtime_error("kv_append needs batch, q_len, kv_heads, head_dim > 0");
    if (c.head_dim % V_ != 0) throw std::runtime_error("head_dim must be a multiple of " + std::to_string(V_));
    kvl_ = c.kv_len > 0 ? c.kv_len : c.q_len;
    if (kvl_ < c.q_len) throw std::runtime_error("kv_len < q_len");
    const size_t nn = static_cast<size_t>(c.batch * c.q_len * c.kv_heads * c.head_dim);
    const size_t nc = static_cast<size_t>(c.batch * kvl_ * c.kv_heads * c.head_dim);
    bufs = {{"k_new", et_, nn, Role::input}, {"v_new", et_, nn, Role::input}, {"k_cache", et_, nc, Role::output}, {"v_cache", et_, nc, Role::output}};
  }
  double bytes() const override { return 4.0 * c_.batch * c_.q_len * c_.kv_heads * c_.head_dim * et_size(et_); }
  bool full_write() const override { return kvl_ == c_.q_len; }
  double touched_bytes() const override { return bytes(); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const int64_t total = c_.batch * c_.q_len * c_.kv_heads * (c_.head_dim / VecN<T>::n);
      kv_append_kernel<T><<<grid_for(total, kBlock), kBlock, 0, s>>>(static_cast<const T*>(p[0]), static_cast<const T*>(p[1]),
                                                                     static_cast<T*>(p[2]), static_cast<T*>(p[3]), c_.batch, c_.q_len,
                                                                     static_cast<int>(c_.kv_heads), static_cast<int>(c_.head_dim), kvl_);
      PV_LAUNCH();
    });
  }
  CheckOut check(void* const* p) override {
    Comparer cmp;
    const int64_t d = c_.head_dim, H = c_.kv_heads;
    for (int64_t tok : rows_to_check(c_.batch * c_.q_len, H * d)) {
      const int64_t b = tok / c_.q_len, t = tok % c_.q_len;
      for (int w = 0; w < 2; ++w) {
        auto src = download(p[w], et_, tok * H * d, H * d);
        for (int64_t h = 0; h < H; ++h) {
          auto dst = download(p[2 + w], et_, ((b * H + h) * kvl_ + (kvl_ - c_.q_len + t)) * d, d);
          for (int64_t j = 0; j < d; ++j) cmp.add(tok, dst[j], src[h * d + j]);
        }
      }
    }
    return cmp.finish(tolerance(c_.dtype), "cache");
  }
  int64_t kvl_ = 0;
};

}  // namespace

std::unique_ptr<Workload> make_kv_append(const Case& c) { return std::make_unique<KvAppendWorkload>(c); }

}  // namespace perfmodel::validation::detail
