// Shared pieces of the elementwise and row-wise kernels (validation/src/kernels/*.cu): the map
// functors and launcher, block reductions, host references and the workload bases.
#pragma once
#include <algorithm>
#include <cstring>

#include "../common.cuh"

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
    if (c.dtype == DType::tf32 || c.dtype == DType::fp8) throw std::runtime_error("dtype " + std::string(to_string(c.dtype)) + " not supported by " + to_string(c.kernel));
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

// Elementwise maps (copy, add, gelu*, silu_mul): y = f(inputs) over rows x cols. The check
// compares every checked element of `y` with ref(a, b) in double.
class MapWorkload : public EwWorkload {
 public:
  using EwWorkload::EwWorkload;
  double touched_bytes() const override { return bytes(); }
  CheckOut check(void* const* p) override {
    const int out = out_buffer();
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
        if (gated()) {
          a = download(p[0], et_, r * 2 * C + c0, len);
          b = download(p[0], et_, r * 2 * C + C + c0, len);
        } else {
          a = download(p[0], et_, r * C + c0, len);
          if (out == 2) b = download(p[1], et_, r * C + c0, len);
        }
        for (size_t i = 0; i < len; ++i) cmp.add(r * C + c0 + static_cast<int64_t>(i), y[i], ref(a[i], b.empty() ? 0.0 : b[i]));
      }
    }
    return cmp.finish(tolerance(c_.dtype), "y");
  }

 protected:
  virtual double ref(double a, double b) const = 0;
  virtual int out_buffer() const { return 1; }  // 2 when a second input b is buffer 1
  virtual bool gated() const { return false; }  // input rows are [gate | up]: a = gate, b = up
};

// softmax of one row in double (the reference of both softmax kernels)
inline std::vector<double> softmax_ref(const std::vector<double>& x) {
  std::vector<double> ref(x.size());
  double mx = -1e300, sum = 0;
  for (double v : x) mx = std::max(mx, v);
  for (size_t i = 0; i < x.size(); ++i) { ref[i] = std::exp(x[i] - mx); sum += ref[i]; }
  for (auto& v : ref) v /= sum;
  return ref;
}

// Row-wise kernels (norms, softmaxes): one CTA per row. The check compares each checked row of
// output buffer `out` with ref_row(r, x, cmp), x being input row r in double (ref_row may add
// comparisons of its own, before the output's).
template <class F>
CheckOut check_rows(const Case& c, ET et, void* const* p, int out, F&& ref_row) {
  Comparer cmp;
  const int64_t C = c.cols;
  for (int64_t r : rows_to_check(c.rows, C)) {
    auto x = download(p[0], et, r * C, C);
    auto y = download(p[out], et, r * C, C);
    const std::vector<double> ref = ref_row(r, x, cmp);
    for (int64_t i = 0; i < C; ++i) cmp.add(r * C + i, y[i], ref[i]);
  }
  return cmp.finish(tolerance(c.dtype), "y");
}

}  // namespace
}  // namespace perfmodel::validation::detail
