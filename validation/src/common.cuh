// Internal helpers of the validation backend (CUDA).
#pragma once

#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cublas_v2.h>
#include <cublasLt.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "perfmodel/validation/validation.hpp"

namespace perfmodel::validation::detail {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda(cudaError_t e, const char* what, const char* file, int line);
[[noreturn]] void throw_cublas(int st, const char* what, const char* file, int line);

#define PV_CUDA(x)                                                              \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) ::perfmodel::validation::detail::throw_cuda(e_, #x, __FILE__, __LINE__); \
  } while (0)
#define PV_CUBLAS(x)                                                            \
  do {                                                                          \
    int s_ = static_cast<int>(x);                                               \
    if (s_ != 0) ::perfmodel::validation::detail::throw_cublas(s_, #x, __FILE__, __LINE__); \
  } while (0)
#define PV_LAUNCH() PV_CUDA(cudaGetLastError())

// element types of device buffers
enum class ET { f32, bf16, f16, e4m3, i32 };
inline size_t et_size(ET e) {
  switch (e) {
    case ET::f32: case ET::i32: return 4;
    case ET::bf16: case ET::f16: return 2;
    case ET::e4m3: return 1;
  }
  return 1;
}
ET et_of(DType d);          // element type of activations for this dtype (tf32 -> f32, fp8 -> e4m3)
double tolerance(DType d);  // allowed ||out-ref||/||ref||

enum class Role { input, output, inout, scratch };
struct BufSpec {
  std::string name;
  ET et = ET::bf16;
  size_t count = 0;  // elements
  Role role = Role::input;
  bool rotate = true;  // one copy per rotating buffer set (false: shared by all sets)
  float lo = -1.f, hi = 1.f;  // uniform init range (inputs)
  int32_t index_range = 0;    // i32 inputs: uniform in [0, index_range)
  size_t bytes() const { return count * et_size(et); }
};

struct CheckOut {
  bool ok = true;
  double rel_err = 0;
  std::string msg;
};

// Compares out against ref: NaN/unwritten detection + relative L2 error.
struct Comparer {
  double num = 0, den = 0;
  int64_t bad = 0;
  int64_t first_bad = -1;
  std::string first_bad_what;
  int64_t count = 0;
  double max_abs = -1, max_out = 0, max_ref = 0;
  int64_t max_idx = -1;
  void add(int64_t idx, double out, double ref) {
    if (!std::isfinite(out)) {
      if (bad++ == 0) { first_bad = idx; first_bad_what = std::isnan(out) ? "NaN (unwritten or invalid)" : "inf"; }
      return;
    }
    const double d = std::fabs(out - ref);
    if (d > max_abs) { max_abs = d; max_idx = idx; max_out = out; max_ref = ref; }
    num += (out - ref) * (out - ref);
    den += ref * ref;
    ++count;
  }
  CheckOut finish(double tol, const std::string& what) const;
};

class Workload {
 public:
  explicit Workload(const Case& c) : c_(c) {}
  virtual ~Workload() = default;
  std::vector<BufSpec> bufs;
  // enqueue one launch of the case on stream s using buffer set p (p[i] = buffer i)
  virtual void launch(void* const* p, cudaStream_t s) = 0;
  // after poisoning outputs and one launch: compare against a double CPU reference (full if small, else sampled)
  virtual CheckOut check(void* const* p) = 0;
  // called before the check launch (in-place kernels save their inputs here)
  virtual void before_check(void* const* /*p*/) {}
  // every element of every output buffer is written by one launch (enables the full NaN-poison scan)
  virtual bool full_write() const { return true; }
  virtual int kernels() const { return 1; }
  virtual double flops() const { return 0; }
  virtual double bytes() const;          // default: sum over rotating+shared input/output buffers
  virtual double touched_bytes() const;  // bytes of rotating buffers touched per launch (default: their sum)
  const Case& c() const { return c_; }

 protected:
  Case c_;
};

// Each kernel kind's workload: make_<kind> in kernels/<kind>.cu, listed in kernels/kernels.def.
std::unique_ptr<Workload> make_workload(const Case& c);
std::unique_ptr<Workload> make_broken_copy_workload(const Case& c, int mode);  // harness self-test

// process-wide context
struct Ctx {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* blas_ws = nullptr;  // 32 MiB workspace for the cublas handle
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int cc_major = 0, cc_minor = 0;
};
Ctx& ctx();

// host readback helpers
std::vector<double> download(const void* base, ET et, size_t offset_elems, size_t count);
double host_round(ET et, double v);  // round a double to et (for references that mimic stored intermediates)

// device helpers (defined in harness/buffers.cu)
void fill_buffer(void* p, const BufSpec& b, uint64_t seed, cudaStream_t s);
int64_t count_nan(const void* p, ET et, size_t count, cudaStream_t s);

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline unsigned grid_for(int64_t work, int block, int max_blocks_per_sm = 32) {
  int64_t g = ceil_div(work, block);
  int64_t cap = static_cast<int64_t>(ctx().sm_count > 0 ? ctx().sm_count : 132) * max_blocks_per_sm;
  if (g > cap) g = cap;
  if (g < 1) g = 1;
  return static_cast<unsigned>(g);
}

// sample indices for sampled checks (deterministic per seed)
std::vector<int64_t> sample_indices(int64_t n, int count, uint64_t seed);
uint64_t check_seed();

// ---------------------------------------------------------------- device-side type helpers
template <typename T> struct TypeOf;
template <> struct TypeOf<float> { static constexpr ET et = ET::f32; };
template <> struct TypeOf<__nv_bfloat16> { static constexpr ET et = ET::bf16; };
template <> struct TypeOf<__half> { static constexpr ET et = ET::f16; };

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_f(__half x) { return __half2float(x); }
template <typename T> __device__ __forceinline__ T from_f(float x);
template <> __device__ __forceinline__ float from_f<float>(float x) { return x; }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <> __device__ __forceinline__ __half from_f<__half>(float x) { return __float2half_rn(x); }

template <typename T> struct VecN { static constexpr int n = 16 / sizeof(T); };

// load/store 16 bytes as floats
template <typename T>
__device__ __forceinline__ void load_vec(const T* p, float* f) {
  uint4 r = *reinterpret_cast<const uint4*>(p);
  const T* e = reinterpret_cast<const T*>(&r);
#pragma unroll
  for (int j = 0; j < VecN<T>::n; ++j) f[j] = to_f(e[j]);
}
template <typename T>
__device__ __forceinline__ void store_vec(T* p, const float* f) {
  uint4 r;
  T* e = reinterpret_cast<T*>(&r);
#pragma unroll
  for (int j = 0; j < VecN<T>::n; ++j) e[j] = from_f<T>(f[j]);
  *reinterpret_cast<uint4*>(p) = r;
}

// Dispatch a 16/32-bit activation dtype to a template functor.
template <typename F>
void dispatch_float_types(DType d, F&& f) {
  switch (d) {
    case DType::bf16: f(__nv_bfloat16{}); return;
    case DType::fp16: f(__half{}); return;
    case DType::fp32: f(float{}); return;
    default: throw std::runtime_error("dtype " + std::string(to_string(d)) + " not supported by this kernel");
  }
}

}  // namespace perfmodel::validation::detail
