// rotary: rotate-half position embedding of q and k in place, cos/sin from a cache (vLLM's kernel).
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

// rotary (rotate-half), in place on q [tokens, heads, d] and k [tokens, kv_heads, d], as vLLM's
// rotary_embedding kernel runs it: each token's position is read from `positions`, and its cos and
// sin come from a precomputed cache [max_pos, d] (cos in the first half, sin in the second) in the
// activation dtype. (Computing sincosf in the kernel instead takes the accurate slow path for
// angles past ~1e5 rad: at 262144 tokens that kernel issued 2.07e9 instructions and ran 1.9x its
// byte time; validation/results/h200/ncu/README.md.)
template <typename T>
__global__ void rotary_kernel(T* __restrict__ q, T* __restrict__ k, const T* __restrict__ cos_sin,
                              const int64_t* __restrict__ positions, int64_t tokens, int heads, int kv_heads, int d) {
  constexpr int V = VecN<T>::n;
  const int vph = d / 2 / V;  // vectors per half head
  const int64_t total = tokens * (heads + kv_heads) * vph;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int jv = static_cast<int>(i % vph);
    const int64_t rest = i / vph;
    const int hh = static_cast<int>(rest % (heads + kv_heads));
    const int64_t t = rest / (heads + kv_heads);
    T* base = hh < heads ? q + (t * heads + hh) * d : k + (t * kv_heads + (hh - heads)) * d;
    const T* cs_row = cos_sin + positions[t] * d;
    float x1[V], x2[V], cs[V], sn[V];
    load_vec(base + jv * V, x1);
    load_vec(base + d / 2 + jv * V, x2);
    load_vec(cs_row + jv * V, cs);
    load_vec(cs_row + d / 2 + jv * V, sn);
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const float a = x1[e], b = x2[e];
      x1[e] = a * cs[e] - b * sn[e];
      x2[e] = b * cs[e] + a * sn[e];
    }
    store_vec(base + jv * V, x1);
    store_vec(base + d / 2 + jv * V, x2);
  }
}

template <typename T>
__global__ void convert_kernel(const float* __restrict__ x, T* __restrict__ y, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = from_f<T>(x[i]);
}

class RotaryWorkload : public EwWorkload {
 public:
  RotaryWorkload(const Case& c) : EwWorkload(c) {
    if (c.batch <= 0 || c.q_len <= 0 || c.heads <= 0 || c.kv_heads <= 0 || c.head_dim <= 0) throw std::runtime_error("rotary needs batch, q_len, heads, kv_heads, head_dim > 0");
    if (c.head_dim % (2 * V_) != 0) throw std::runtime_error("head_dim must be a multiple of " + std::to_string(2 * V_));
    kvl_ = c.kv_len > 0 ? c.kv_len : c.q_len;
    if (kvl_ < c.q_len) throw std::runtime_error("kv_len < q_len");
    tokens_ = c.batch * c.q_len;
    bufs = {{"q", et_, static_cast<size_t>(tokens_ * c.heads * c.head_dim), Role::inout},
            {"k", et_, static_cast<size_t>(tokens_ * c.kv_heads * c.head_dim), Role::inout}};
    // positions of the new tokens (the last q_len of each sequence) and the cos/sin cache
    // [kv_len, d], built once like a model's buffers; the reference recomputes cos/sin in double
    const int64_t d = c.head_dim;
    std::vector<int64_t> pos(static_cast<size_t>(tokens_));
    for (int64_t t = 0; t < tokens_; ++t) pos[static_cast<size_t>(t)] = kvl_ - c.q_len + t % c.q_len;
    std::vector<float> table(static_cast<size_t>(kvl_ * d));
    for (int64_t p = 0; p < kvl_; ++p)
      for (int64_t j = 0; j < d / 2; ++j) {
        const double ang = static_cast<double>(p) * std::pow(10000.0, -2.0 * static_cast<double>(j) / static_cast<double>(d));
        table[static_cast<size_t>(p * d + j)] = static_cast<float>(std::cos(ang));
        table[static_cast<size_t>(p * d + d / 2 + j)] = static_cast<float>(std::sin(ang));
      }
    PV_CUDA(cudaMalloc(&positions_, pos.size() * sizeof(int64_t)));
    PV_CUDA(cudaMemcpy(positions_, pos.data(), pos.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
    float* staging = nullptr;
    PV_CUDA(cudaMalloc(&staging, table.size() * sizeof(float)));
    PV_CUDA(cudaMemcpy(staging, table.data(), table.size() * sizeof(float), cudaMemcpyHostToDevice));
    PV_CUDA(cudaMalloc(&cos_sin_, table.size() * et_size(et_)));
    dispatch_float_types(c.dtype, [&](auto tag) {
      using T = decltype(tag);
      const int64_t n = static_cast<int64_t>(table.size());
      convert_kernel<T><<<grid_for(n, kBlock), kBlock>>>(staging, static_cast<T*>(cos_sin_), n);
      PV_LAUNCH();
    });
    PV_CUDA(cudaDeviceSynchronize());
    PV_CUDA(cudaFree(staging));
  }
  ~RotaryWorkload() override {
    cudaFree(positions_);
    cudaFree(cos_sin_);
  }
  double flops() const override { return 6.0 * tokens_ * (c_.heads + c_.kv_heads) * c_.head_dim / 2; }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const int64_t total = tokens_ * (c_.heads + c_.kv_heads) * (c_.head_dim / 2 / VecN<T>::n);
      rotary_kernel<T><<<grid_for(total, kBlock), kBlock, 0, s>>>(static_cast<T*>(p[0]), static_cast<T*>(p[1]),
                                                                  static_cast<const T*>(cos_sin_), positions_, tokens_,
                                                                  static_cast<int>(c_.heads), static_cast<int>(c_.kv_heads),
                                                                  static_cast<int>(c_.head_dim));
      PV_LAUNCH();
    });
  }
  std::vector<int64_t> tok_;
  std::vector<std::vector<double>> q0_, k0_;
  void before_check(void* const* p) override {
    tok_ = rows_to_check(tokens_, (c_.heads + c_.kv_heads) * c_.head_dim);
    q0_.clear();
    k0_.clear();
    for (int64_t t : tok_) {
      q0_.push_back(download(p[0], et_, t * c_.heads * c_.head_dim, c_.heads * c_.head_dim));
      k0_.push_back(download(p[1], et_, t * c_.kv_heads * c_.head_dim, c_.kv_heads * c_.head_dim));
    }
  }
  CheckOut check(void* const* p) override {
    Comparer cmp;
    const int64_t d = c_.head_dim;
    for (size_t ti = 0; ti < tok_.size(); ++ti) {
      const int64_t t = tok_[ti];
      const double pos = static_cast<double>(kvl_ - c_.q_len + t % c_.q_len);
      for (int which = 0; which < 2; ++which) {
        const int64_t H = which == 0 ? c_.heads : c_.kv_heads;
        const auto& x0 = which == 0 ? q0_[ti] : k0_[ti];
        auto y = download(p[which], et_, t * H * d, H * d);
        for (int64_t h = 0; h < H; ++h)
          for (int64_t j = 0; j < d / 2; ++j) {
            const double ang = pos * std::pow(10000.0, -2.0 * static_cast<double>(j) / static_cast<double>(d));
            const double a = x0[h * d + j], b = x0[h * d + j + d / 2];
            cmp.add(t, y[h * d + j], a * std::cos(ang) - b * std::sin(ang));
            cmp.add(t, y[h * d + j + d / 2], b * std::cos(ang) + a * std::sin(ang));
          }
      }
    }
    return cmp.finish(tolerance(c_.dtype), "q/k");
  }
  double bytes() const override {
    const double e = static_cast<double>(et_size(et_));
    // q and k read and written, plus each token's position and cos/sin row
    return 2.0 * e * tokens_ * (c_.heads + c_.kv_heads) * c_.head_dim + tokens_ * (8.0 + e * c_.head_dim);
  }
  int64_t kvl_ = 0, tokens_ = 0;
  int64_t* positions_ = nullptr;
  void* cos_sin_ = nullptr;
};

}  // namespace

std::unique_ptr<Workload> make_rotary(const Case& c) { return std::make_unique<RotaryWorkload>(c); }

}  // namespace perfmodel::validation::detail
