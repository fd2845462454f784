// Elementwise, normalization, softmax, rotary, KV-append and embedding kernels + their workloads.
#include <algorithm>
#include <cstring>
#include <map>

#include "common.cuh"

namespace perfmodel::validation::detail {
namespace {

constexpr int kBlock = 256;

// ------------------------------------------------------------------ elementwise map kernels
struct FCopy { __device__ float operator()(float a, float) const { return a; } };
struct FAdd { __device__ float operator()(float a, float b) const { return a + b; } };
struct FMul { __device__ float operator()(float a, float b) const { return a * b; } };
struct FPow3 { __device__ float operator()(float a, float) const { return a * a * a; } };
struct FMulC { float c; __device__ float operator()(float a, float) const { return c * a; } };
struct FAddC { float c; __device__ float operator()(float a, float) const { return c + a; } };
struct FTanh { __device__ float operator()(float a, float) const { return tanhf(a); } };
struct FExp { __device__ float operator()(float a, float) const { return expf(a); } };
struct FGelu {
  __device__ float operator()(float x, float) const {
    return 0.5f * x * (1.f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  }
};

template <typename T, int NIN, class F>
__global__ void map_kernel(F f, T* __restrict__ y, const T* __restrict__ a, const T* __restrict__ b, int64_t nv) {
  constexpr int V = VecN<T>::n;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nv; i += stride) {
    float fa[V], fb[V], fy[V];
    load_vec(a + i * V, fa);
    if constexpr (NIN == 2) load_vec(b + i * V, fb);
#pragma unroll
    for (int j = 0; j < V; ++j) fy[j] = f(fa[j], NIN == 2 ? fb[j] : 0.f);
    store_vec(y + i * V, fy);
  }
}

template <typename T, int NIN, class F>
void map(F f, T* y, const T* a, const T* b, int64_t n, cudaStream_t s) {
  constexpr int V = VecN<T>::n;
  const int64_t nv = n / V;
  map_kernel<T, NIN, F><<<grid_for(nv, kBlock), kBlock, 0, s>>>(f, y, a, b, nv);
  PV_LAUNCH();
}

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

// ------------------------------------------------------------------ block reductions
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
// all threads get the result; sh must hold 32 floats; safe to call repeatedly
__device__ float block_sum(float v, float* sh) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  v = warp_sum(v);
  __syncthreads();
  if (lane == 0) sh[w] = v;
  __syncthreads();
  float r = lane < nw ? sh[lane] : 0.f;
  return warp_sum(r);
}
__device__ float block_max(float v, float* sh) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) sh[w] = v;
  __syncthreads();
  float r = lane < nw ? sh[lane] : -INFINITY;
  return warp_max(r);
}

int row_threads(int64_t cols, int V) {
  int64_t nv = cols / V;
  int t = static_cast<int>(std::min<int64_t>(256, ceil_div(nv, 32) * 32));
  return std::max(32, t);
}

// ------------------------------------------------------------------ row kernels
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

// fused softmax: pass 1 online (max, sum), pass 2 writes. Optional scale and causal mask:
// row r has query position qpos = (r % mask_q_len) + mask_offset; columns c > qpos are masked (output 0).
template <typename T>
__global__ void softmax_fused_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t cols, float scale,
                                     int64_t mask_q_len, int64_t mask_offset) {
  constexpr int V = VecN<T>::n;
  __shared__ float sh[32];
  const int64_t row = blockIdx.x;
  const T* xr = x + row * cols;
  T* yr = y + row * cols;
  const int64_t nv = cols / V;
  const int64_t limit = mask_q_len > 0 ? (row % mask_q_len) + mask_offset : cols;  // last valid col
  const float sl = scale * 1.4426950408889634f;  // log2(e)
  float m = -INFINITY, s = 0.f;
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V];
    load_vec(xr + j * V, f);
    float lm = -INFINITY;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      f[e] = (j * V + e <= limit) ? f[e] * sl : -INFINITY;
      lm = fmaxf(lm, f[e]);
    }
    if (lm == -INFINITY) continue;
    const float mn = fmaxf(m, lm);
    float acc = s * exp2f(m - mn);
#pragma unroll
    for (int e = 0; e < V; ++e) acc += exp2f(f[e] - mn);
    s = acc;
    m = mn;
  }
  const float M = block_max(m, sh);
  const float S = block_sum(m == -INFINITY ? 0.f : s * exp2f(m - M), sh);
  const float inv = 1.f / S;
  for (int64_t j = threadIdx.x; j < nv; j += blockDim.x) {
    float f[V];
    load_vec(xr + j * V, f);
#pragma unroll
    for (int e = 0; e < V; ++e) f[e] = (j * V + e <= limit) ? exp2f(f[e] * sl - M) * inv : 0.f;
    store_vec(yr + j * V, f);
  }
}

// naive softmax pieces
template <typename T, bool IsMax>
__global__ void row_reduce_kernel(const T* __restrict__ x, float* __restrict__ out, int64_t cols) {
  constexpr int V = VecN<T>::n;
  __shared__ float sh[32];
  const T* xr = x + blockIdx.x * cols;
  float a = IsMax ? -INFINITY : 0.f;
  for (int64_t j = threadIdx.x; j < cols / V; j += blockDim.x) {
    float f[V];
    load_vec(xr + j * V, f);
#pragma unroll
    for (int e = 0; e < V; ++e) a = IsMax ? fmaxf(a, f[e]) : a + f[e];
  }
  a = IsMax ? block_max(a, sh) : block_sum(a, sh);
  if (threadIdx.x == 0) out[blockIdx.x] = a;
}
template <typename T, bool IsSub>
__global__ void row_bcast_kernel(const T* __restrict__ x, const float* __restrict__ st, T* __restrict__ y,
                                 int64_t cols, int64_t nv) {
  constexpr int V = VecN<T>::n;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t vpr = cols / V;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nv; i += stride) {
    const float r = st[i / vpr];
    float f[V];
    load_vec(x + i * V, f);
#pragma unroll
    for (int e = 0; e < V; ++e) f[e] = IsSub ? f[e] - r : f[e] / r;
    store_vec(y + i * V, f);
  }
}

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

template <typename T>
__global__ void embedding_kernel(const int32_t* __restrict__ ids, const T* __restrict__ table, T* __restrict__ out,
                                 int64_t cols, int64_t nv) {
  constexpr int V = VecN<T>::n;
  const int64_t vpr = cols / V;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nv; i += stride) {
    const int64_t r = i / vpr, c = i % vpr;
    const int64_t id = ids[r];
    *reinterpret_cast<uint4*>(out + i * V) = *reinterpret_cast<const uint4*>(table + id * cols + c * V);
  }
}

// ------------------------------------------------------------------ host references
double gelu_ref(double x) { return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
double silu_ref(double g) { return g / (1.0 + std::exp(-g)); }

// rows to check: all if small, else a sample (+ first/last)
std::vector<int64_t> rows_to_check(int64_t rows, int64_t cols) {
  if (rows * cols <= (int64_t{1} << 20)) {
    std::vector<int64_t> r(rows);
    for (int64_t i = 0; i < rows; ++i) r[i] = i;
    return r;
  }
  int cnt = static_cast<int>(std::min<int64_t>(rows, std::max<int64_t>(2, (int64_t{1} << 18) / std::max<int64_t>(cols, 1))));
  cnt = std::min(cnt, 16);
  auto s = sample_indices(rows, cnt, check_seed());
  s.push_back(rows - 1);
  s.push_back(0);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

// ------------------------------------------------------------------ workloads
class EwWorkload : public Workload {
 public:
  EwWorkload(const Case& c) : Workload(c) {
    et_ = et_of(c.dtype);
    if (c.dtype == Dtype::tf32 || c.dtype == Dtype::fp8) throw std::runtime_error("dtype " + to_string(c.dtype) + " not supported by " + to_string(c.kernel));
    V_ = static_cast<int>(16 / et_size(et_));
  }
  void require_rows_cols() const {
    if (c_.rows <= 0 || c_.cols <= 0) throw std::runtime_error("rows and cols must be > 0");
    if (c_.cols % V_ != 0) throw std::runtime_error("cols must be a multiple of " + std::to_string(V_));
  }
  ET et_;
  int V_;
  int64_t n() const { return c_.rows * c_.cols; }
};

// copy / add / gelu_fused / gelu_unfused / silu_mul
class MapWorkload : public EwWorkload {
 public:
  MapWorkload(const Case& c) : EwWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n());
    switch (c.kernel) {
      case Kernel::copy: bufs = {{"x", et_, N, Role::input}, {"y", et_, N, Role::output}}; break;
      case Kernel::add: bufs = {{"a", et_, N, Role::input}, {"b", et_, N, Role::input}, {"y", et_, N, Role::output}}; break;
      case Kernel::gelu_fused: bufs = {{"x", et_, N, Role::input, true, -3.f, 3.f}, {"y", et_, N, Role::output}}; break;
      case Kernel::gelu_unfused:
        bufs = {{"x", et_, N, Role::input, true, -3.f, 3.f}, {"y", et_, N, Role::output}, {"t1", et_, N, Role::scratch}, {"t2", et_, N, Role::scratch}};
        break;
      case Kernel::silu_mul: bufs = {{"gate_up", et_, 2 * N, Role::input, true, -3.f, 3.f}, {"y", et_, N, Role::output}}; break;
      default: throw std::runtime_error("not a map kernel");
    }
  }
  int kernels() const override { return c_.kernel == Kernel::gelu_unfused ? 8 : 1; }
  double bytes() const override {
    const double e = static_cast<double>(n()) * et_size(et_);
    switch (c_.kernel) {
      case Kernel::copy: return 2 * e;
      case Kernel::add: return 3 * e;
      case Kernel::gelu_fused: return 2 * e;
      case Kernel::gelu_unfused: return 18 * e;  // 10 reads + 8 writes over the 8 kernels
      case Kernel::silu_mul: return 3 * e;
      default: return 0;
    }
  }
  double touched_bytes() const override { return bytes() / (c_.kernel == Kernel::gelu_unfused ? 4.5 : 1.0); }
  double flops() const override {
    const double N = static_cast<double>(n());
    switch (c_.kernel) {
      case Kernel::add: return N;
      case Kernel::gelu_fused: case Kernel::gelu_unfused: return 8 * N;
      case Kernel::silu_mul: return 4 * N;
      default: return 0;
    }
  }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const int64_t N = n();
      T* x = static_cast<T*>(p[0]);
      switch (c_.kernel) {
        case Kernel::copy: map<T, 1>(FCopy{}, static_cast<T*>(p[1]), x, x, N, s); break;
        case Kernel::add: map<T, 2>(FAdd{}, static_cast<T*>(p[2]), x, static_cast<T*>(p[1]), N, s); break;
        case Kernel::gelu_fused: map<T, 1>(FGelu{}, static_cast<T*>(p[1]), x, x, N, s); break;
        case Kernel::gelu_unfused: {
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
          break;
        }
        case Kernel::silu_mul: {
          const int64_t nv = N / VecN<T>::n;
          silu_mul_kernel<T><<<grid_for(nv, kBlock), kBlock, 0, s>>>(x, static_cast<T*>(p[1]), c_.cols, nv);
          PV_LAUNCH();
          break;
        }
        default: break;
      }
    });
  }
  CheckOut check(void* const* p) override {
    const int out = c_.kernel == Kernel::add ? 2 : 1;
    Comparer cmp;
    const int64_t C = c_.cols;
    for (int64_t r : rows_to_check(c_.rows, C)) {
      // column ranges: whole row if moderate, else head + tail
      std::vector<std::pair<int64_t, int64_t>> ranges;
      if (C <= 65536) ranges.push_back({0, C});
      else { ranges.push_back({0, 32768}); ranges.push_back({C - 1024, C}); }
      for (auto [c0, c1] : ranges) {
        const size_t len = static_cast<size_t>(c1 - c0);
        auto y = download(p[out], et_, r * C + c0, len);
        std::vector<double> a, b;
        if (c_.kernel == Kernel::silu_mul) {
          a = download(p[0], et_, r * 2 * C + c0, len);
          b = download(p[0], et_, r * 2 * C + C + c0, len);
        } else {
          a = download(p[0], et_, r * C + c0, len);
          if (c_.kernel == Kernel::add) b = download(p[1], et_, r * C + c0, len);
        }
        for (size_t i = 0; i < len; ++i) {
          double ref = 0;
          switch (c_.kernel) {
            case Kernel::copy: ref = a[i]; break;
            case Kernel::add: ref = a[i] + b[i]; break;
            case Kernel::gelu_fused: case Kernel::gelu_unfused: ref = gelu_ref(a[i]); break;
            case Kernel::silu_mul: ref = silu_ref(a[i]) * b[i]; break;
            default: break;
          }
          cmp.add(r * C + c0 + static_cast<int64_t>(i), y[i], ref);
        }
      }
    }
    return cmp.finish(tolerance(c_.dtype), "y");
  }
};

// rmsnorm / layernorm / softmax_naive / softmax_fused
class RowWorkload : public EwWorkload {
 public:
  RowWorkload(const Case& c) : EwWorkload(c) {
    require_rows_cols();
    const size_t N = static_cast<size_t>(n());
    const size_t C = static_cast<size_t>(c.cols), R = static_cast<size_t>(c.rows);
    switch (c.kernel) {
      case Kernel::rmsnorm:
        if (c.residual)
          bufs = {{"x", et_, N, Role::input}, {"r", et_, N, Role::input}, {"w", et_, C, Role::input, true, 0.5f, 1.5f},
                  {"y", et_, N, Role::output}, {"h", et_, N, Role::output}};
        else
          bufs = {{"x", et_, N, Role::input}, {"w", et_, C, Role::input, true, 0.5f, 1.5f}, {"y", et_, N, Role::output}};
        break;
      case Kernel::layernorm:
        bufs = {{"x", et_, N, Role::input}, {"w", et_, C, Role::input, true, 0.5f, 1.5f}, {"b", et_, C, Role::input}, {"y", et_, N, Role::output}};
        break;
      case Kernel::softmax_fused: bufs = {{"x", et_, N, Role::input, true, -4.f, 4.f}, {"y", et_, N, Role::output}}; break;
      case Kernel::softmax_naive:
        bufs = {{"x", et_, N, Role::input, true, -4.f, 4.f}, {"y", et_, N, Role::output}, {"max", ET::f32, R, Role::scratch}, {"sum", ET::f32, R, Role::scratch}};
        break;
      default: throw std::runtime_error("not a row kernel");
    }
  }
  int kernels() const override { return c_.kernel == Kernel::softmax_naive ? 5 : 1; }
  double bytes() const override {
    const double e = static_cast<double>(n()) * et_size(et_);
    const double C = static_cast<double>(c_.cols) * et_size(et_), R = static_cast<double>(c_.rows) * 4;
    switch (c_.kernel) {
      case Kernel::rmsnorm: return (c_.residual ? 4 : 2) * e + C;
      case Kernel::layernorm: return 2 * e + 2 * C;
      case Kernel::softmax_fused: return 2 * e;
      case Kernel::softmax_naive: return 8 * e + 4 * R;  // 5MN+2M reads, 3MN+2M writes
      default: return 0;
    }
  }
  double flops() const override {
    const double N = static_cast<double>(n());
    return c_.kernel == Kernel::layernorm ? 7 * N : c_.kernel == Kernel::rmsnorm ? 4 * N : 5 * N;
  }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      constexpr int V = VecN<T>::n;
      const unsigned rows = static_cast<unsigned>(c_.rows);
      const int th = row_threads(c_.cols, V);
      const T* x = static_cast<const T*>(p[0]);
      switch (c_.kernel) {
        case Kernel::rmsnorm:
          if (c_.residual)
            rmsnorm_residual_kernel<T><<<rows, th, 0, s>>>(x, static_cast<const T*>(p[1]), static_cast<const T*>(p[2]),
                                                           static_cast<T*>(p[3]), static_cast<T*>(p[4]), c_.cols, 1e-6f);
          else
            rmsnorm_kernel<T><<<rows, th, 0, s>>>(x, static_cast<const T*>(p[1]), static_cast<T*>(p[2]), c_.cols, 1e-6f);
          break;
        case Kernel::layernorm:
          layernorm_kernel<T><<<rows, th, 0, s>>>(x, static_cast<const T*>(p[1]), static_cast<const T*>(p[2]), static_cast<T*>(p[3]), c_.cols, 1e-5f);
          break;
        case Kernel::softmax_fused:
          softmax_fused_kernel<T><<<rows, th, 0, s>>>(x, static_cast<T*>(p[1]), c_.cols, 1.f, 0, 0);
          break;
        case Kernel::softmax_naive: {
          T* y = static_cast<T*>(p[1]);
          float* mx = static_cast<float*>(p[2]);
          float* sm = static_cast<float*>(p[3]);
          const int64_t nv = n() / V;
          row_reduce_kernel<T, true><<<rows, th, 0, s>>>(x, mx, c_.cols);
          PV_LAUNCH();
          row_bcast_kernel<T, true><<<grid_for(nv, kBlock), kBlock, 0, s>>>(x, mx, y, c_.cols, nv);
          PV_LAUNCH();
          map<T, 1>(FExp{}, y, y, y, n(), s);
          row_reduce_kernel<T, false><<<rows, th, 0, s>>>(y, sm, c_.cols);
          PV_LAUNCH();
          row_bcast_kernel<T, false><<<grid_for(nv, kBlock), kBlock, 0, s>>>(y, sm, y, c_.cols, nv);
          break;
        }
        default: break;
      }
      PV_LAUNCH();
    });
  }
  CheckOut check(void* const* p) override {
    const bool res = c_.kernel == Kernel::rmsnorm && c_.residual;
    const int out = c_.kernel == Kernel::rmsnorm ? (res ? 3 : 2) : c_.kernel == Kernel::layernorm ? 3 : 1;
    const int64_t C = c_.cols;
    std::vector<double> w, b;
    if (c_.kernel == Kernel::rmsnorm || c_.kernel == Kernel::layernorm) w = download(p[res ? 2 : 1], et_, 0, C);
    if (c_.kernel == Kernel::layernorm) b = download(p[2], et_, 0, C);
    Comparer cmp;
    for (int64_t r : rows_to_check(c_.rows, C)) {
      auto x = download(p[0], et_, r * C, C);
      auto y = download(p[out], et_, r * C, C);
      std::vector<double> ref(C);
      if (res) {
        // h = x + r must be written too; the norm is taken of h as stored (rounded to T).
        auto rin = download(p[1], et_, r * C, C);
        auto h = download(p[4], et_, r * C, C);
        for (int64_t i = 0; i < C; ++i) cmp.add(r * C + i, h[i], x[i] + rin[i]);
        x = h;
      }
      if (c_.kernel == Kernel::rmsnorm) {
        double ss = 0;
        for (double v : x) ss += v * v;
        const double rr = 1.0 / std::sqrt(ss / C + 1e-6);
        for (int64_t i = 0; i < C; ++i) ref[i] = x[i] * rr * w[i];
      } else if (c_.kernel == Kernel::layernorm) {
        double mean = 0, var = 0;
        for (double v : x) mean += v;
        mean /= C;
        for (double v : x) var += (v - mean) * (v - mean);
        const double rs = 1.0 / std::sqrt(var / C + 1e-5);
        for (int64_t i = 0; i < C; ++i) ref[i] = (x[i] - mean) * rs * w[i] + b[i];
      } else {
        double mx = -1e300, sum = 0;
        for (double v : x) mx = std::max(mx, v);
        for (int64_t i = 0; i < C; ++i) { ref[i] = std::exp(x[i] - mx); sum += ref[i]; }
        for (auto& v : ref) v /= sum;
      }
      for (int64_t i = 0; i < C; ++i) cmp.add(r * C + i, y[i], ref[i]);
    }
    return cmp.finish(tolerance(c_.dtype), "y");
  }
};

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

class EmbeddingWorkload : public EwWorkload {
 public:
  EmbeddingWorkload(const Case& c) : EwWorkload(c) {
    require_rows_cols();
    if (c.vocab <= 0) throw std::runtime_error("embedding needs vocab > 0");
    bufs = {{"ids", ET::i32, static_cast<size_t>(c.rows), Role::input, true, 0, 0, static_cast<int32_t>(c.vocab)},
            {"table", et_, static_cast<size_t>(c.vocab * c.cols), Role::input, false},
            {"y", et_, static_cast<size_t>(c.rows * c.cols), Role::output}};
  }
  double bytes() const override { return 2.0 * c_.rows * c_.cols * et_size(et_) + 4.0 * c_.rows; }
  double touched_bytes() const override { return bytes(); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const int64_t nv = c_.rows * c_.cols / VecN<T>::n;
      embedding_kernel<T><<<grid_for(nv, kBlock), kBlock, 0, s>>>(static_cast<const int32_t*>(p[0]), static_cast<const T*>(p[1]),
                                                                  static_cast<T*>(p[2]), c_.cols, nv);
      PV_LAUNCH();
    });
  }
  CheckOut check(void* const* p) override {
    Comparer cmp;
    const int64_t C = c_.cols;
    for (int64_t r : rows_to_check(c_.rows, C)) {
      int32_t id = 0;
      PV_CUDA(cudaMemcpy(&id, static_cast<const int32_t*>(p[0]) + r, 4, cudaMemcpyDeviceToHost));
      if (id < 0 || id >= c_.vocab) return {false, 0, "bad token id"};
      auto src = download(p[1], et_, static_cast<size_t>(id) * C, C);
      auto y = download(p[2], et_, r * C, C);
      for (int64_t i = 0; i < C; ++i) cmp.add(r * C + i, y[i], src[i]);
    }
    return cmp.finish(tolerance(c_.dtype), "y");
  }
};

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

std::unique_ptr<Workload> make_ew_workload(const Case& c) {
  switch (c.kernel) {
    case Kernel::copy: case Kernel::add: case Kernel::gelu_fused: case Kernel::gelu_unfused: case Kernel::silu_mul:
      return std::make_unique<MapWorkload>(c);
    case Kernel::rmsnorm: case Kernel::layernorm: case Kernel::softmax_naive: case Kernel::softmax_fused:
      return std::make_unique<RowWorkload>(c);
    case Kernel::rotary: return std::make_unique<RotaryWorkload>(c);
    case Kernel::kv_append: return std::make_unique<KvAppendWorkload>(c);
    case Kernel::embedding: return std::make_unique<EmbeddingWorkload>(c);
    default: return nullptr;
  }
}

std::unique_ptr<Workload> make_broken_copy_workload(const Case& c, int mode) { return std::make_unique<BrokenCopyWorkload>(c, mode); }

// softmax over rows with scale and causal mask (used by unfused attention)
template <typename T>
void launch_softmax_rows(const T* x, T* y, int64_t rows, int64_t cols, float scale, int64_t mask_q_len, int64_t mask_offset, cudaStream_t s) {
  softmax_fused_kernel<T><<<static_cast<unsigned>(rows), row_threads(cols, VecN<T>::n), 0, s>>>(x, y, cols, scale, mask_q_len, mask_offset);
  PV_LAUNCH();
}
template void launch_softmax_rows<__nv_bfloat16>(const __nv_bfloat16*, __nv_bfloat16*, int64_t, int64_t, float, int64_t, int64_t, cudaStream_t);
template void launch_softmax_rows<__half>(const __half*, __half*, int64_t, int64_t, float, int64_t, int64_t, cudaStream_t);

}  // namespace perfmodel::validation::detail
