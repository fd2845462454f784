// Measurement harness (nvbench-style hot/cold timing), device info, NVML probe, calibration, checks.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <numeric>
#include <sstream>

#include "common.cuh"
#include "perfmodel/validation/testing.hpp"

namespace perfmodel::validation {
namespace detail {

void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  std::ostringstream os;
  os << "CUDA error " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e) << ") in " << what << " at " << file << ":" << line;
  throw CudaError(os.str());
}
void throw_cublas(int st, const char* what, const char* file, int line) {
  std::ostringstream os;
  os << "cuBLAS status " << st << " (" << cublasGetStatusString(static_cast<cublasStatus_t>(st)) << ") in " << what << " at " << file << ":" << line;
  throw CudaError(os.str());
}

ET et_of(Dtype d) {
  switch (d) {
    case Dtype::fp32: case Dtype::tf32: return ET::f32;
    case Dtype::bf16: return ET::bf16;
    case Dtype::fp16: return ET::f16;
    case Dtype::fp8: return ET::e4m3;
  }
  return ET::bf16;
}
double tolerance(Dtype d) {
  switch (d) {
    case Dtype::fp32: return 1e-5;
    case Dtype::tf32: return 5e-3;
    case Dtype::bf16: return 2e-2;
    case Dtype::fp16: return 5e-3;
    case Dtype::fp8: return 6e-2;
  }
  return 1e-2;
}

CheckOut Comparer::finish(double tol, const std::string& what) const {
  CheckOut o;
  if (bad > 0) {
    o.ok = false;
    o.msg = std::to_string(bad) + " checked elements of " + what + " are not finite, first at flat index " + std::to_string(first_bad) + ": " +
            first_bad_what;
    return o;
  }
  o.rel_err = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  if (!(o.rel_err <= tol)) {
    o.ok = false;
    std::ostringstream os;
    os << "relative error " << o.rel_err << " of " << what << " exceeds tolerance " << tol;
    o.msg = os.str();
    return o;
  }
  // element-wise guard: one corrupted element hides in the norm of a large tensor
  const double rms = count > 0 ? std::sqrt(den / count) : 0;
  if (count > 0 && max_abs > 10 * tol * std::max(rms, 1e-30)) {
    o.ok = false;
    std::ostringstream os;
    os << "element-wise relative error " << max_abs / std::max(rms, 1e-30) << " (|out-ref| / rms(ref)) of " << what << " at flat index "
       << max_idx << " (out " << max_out << ", ref " << max_ref << ") exceeds " << 10 * tol;
    o.msg = os.str();
  }
  return o;
}

double Workload::bytes() const {
  double b = 0;
  for (auto& s : bufs)
    if (s.role != Role::scratch) b += static_cast<double>(s.bytes()) * (s.role == Role::inout ? 2 : 1);
  return b;
}
double Workload::touched_bytes() const {
  double b = 0;
  for (auto& s : bufs)
    if (s.rotate) b += static_cast<double>(s.bytes());
  return b;
}

// ------------------------------------------------------------------ context
namespace {
std::once_flag g_once;
Ctx g_ctx;
std::string g_init_error;
void* g_flush = nullptr;
size_t g_flush_bytes = 0;
}  // namespace

Ctx& ctx() {
  std::call_once(g_once, [] {
    try {
      int n = 0;
      cudaError_t e = cudaGetDeviceCount(&n);
      if (e != cudaSuccess || n == 0) {
        g_init_error = e != cudaSuccess ? std::string("no CUDA device found (") + cudaGetErrorString(e) + ")" : "no CUDA device found";
        cudaGetLastError();
        return;
      }
      PV_CUDA(cudaSetDevice(0));
      cudaDeviceProp p{};
      PV_CUDA(cudaGetDeviceProperties(&p, 0));
      g_ctx.sm_count = p.multiProcessorCount;
      g_ctx.l2_bytes = p.l2CacheSize;
      g_ctx.cc_major = p.major;
      g_ctx.cc_minor = p.minor;
      PV_CUDA(cudaStreamCreateWithFlags(&g_ctx.stream, cudaStreamNonBlocking));
      PV_CUBLAS(cublasCreate(&g_ctx.blas));
      PV_CUBLAS(cublasLtCreate(&g_ctx.lt));
      PV_CUDA(cudaMalloc(&g_ctx.blas_ws, 32u << 20));
      PV_CUBLAS(cublasSetWorkspace(g_ctx.blas, g_ctx.blas_ws, 32u << 20));
      PV_CUBLAS(cublasSetStream(g_ctx.blas, g_ctx.stream));
      g_flush_bytes = static_cast<size_t>(2 * g_ctx.l2_bytes);
      PV_CUDA(cudaMalloc(&g_flush, g_flush_bytes));
    } catch (const std::exception& ex) {
      g_init_error = ex.what();
      g_ctx.stream = nullptr;
    }
  });
  if (!g_ctx.stream) throw std::runtime_error(g_init_error.empty() ? "no CUDA device found" : g_init_error);
  return g_ctx;
}

// ------------------------------------------------------------------ random fill, NaN count, readback
__host__ __device__ inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T>
__global__ void fill_kernel(T* p, size_t n, uint64_t seed, float lo, float hi) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float u = static_cast<float>(mix64(seed ^ (i * 0x2545f4914f6cdd1dull)) >> 40) * (1.f / 16777216.f);
    const float v = lo + (hi - lo) * u;
    if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) p[i] = __nv_fp8_e4m3(v);
    else p[i] = from_f<T>(v);
  }
}
__global__ void fill_index_kernel(int32_t* p, size_t n, uint64_t seed, int32_t range) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = static_cast<int32_t>(mix64(seed ^ (i * 0x2545f4914f6cdd1dull)) % static_cast<uint64_t>(range));
}

void fill_buffer(void* p, const BufSpec& b, uint64_t seed, cudaStream_t s) {
  const unsigned g = grid_for(static_cast<int64_t>(b.count), 256, 16);
  switch (b.et) {
    case ET::f32: fill_kernel<float><<<g, 256, 0, s>>>(static_cast<float*>(p), b.count, seed, b.lo, b.hi); break;
    case ET::bf16: fill_kernel<__nv_bfloat16><<<g, 256, 0, s>>>(static_cast<__nv_bfloat16*>(p), b.count, seed, b.lo, b.hi); break;
    case ET::f16: fill_kernel<__half><<<g, 256, 0, s>>>(static_cast<__half*>(p), b.count, seed, b.lo, b.hi); break;
    case ET::e4m3: fill_kernel<__nv_fp8_e4m3><<<g, 256, 0, s>>>(static_cast<__nv_fp8_e4m3*>(p), b.count, seed, b.lo, b.hi); break;
    case ET::i32: fill_index_kernel<<<g, 256, 0, s>>>(static_cast<int32_t*>(p), b.count, seed, std::max<int32_t>(1, b.index_range)); break;
  }
  PV_LAUNCH();
}

template <typename U>
__global__ void nan_count_kernel(const U* p, size_t n, unsigned long long* out, int et) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  unsigned long long c = 0;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t v = static_cast<uint32_t>(p[i]);
    if (et == 0) c += ((v & 0x7fffffffu) > 0x7f800000u);       // f32
    else if (et == 1) c += ((v & 0x7fffu) > 0x7f80u);          // bf16
    else if (et == 2) c += ((v & 0x7fffu) > 0x7c00u);          // f16
    else c += ((v & 0x7fu) == 0x7fu);                          // e4m3
  }
  for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(out, c);
}

int64_t count_nan(const void* p, ET et, size_t count, cudaStream_t s) {
  unsigned long long* d = nullptr;
  PV_CUDA(cudaMallocAsync(&d, sizeof(unsigned long long), s));
  PV_CUDA(cudaMemsetAsync(d, 0, sizeof(unsigned long long), s));
  const unsigned g = grid_for(static_cast<int64_t>(count), 256, 8);
  switch (et) {
    case ET::f32: nan_count_kernel<uint32_t><<<g, 256, 0, s>>>(static_cast<const uint32_t*>(p), count, d, 0); break;
    case ET::bf16: nan_count_kernel<uint16_t><<<g, 256, 0, s>>>(static_cast<const uint16_t*>(p), count, d, 1); break;
    case ET::f16: nan_count_kernel<uint16_t><<<g, 256, 0, s>>>(static_cast<const uint16_t*>(p), count, d, 2); break;
    case ET::e4m3: nan_count_kernel<uint8_t><<<g, 256, 0, s>>>(static_cast<const uint8_t*>(p), count, d, 3); break;
    case ET::i32: break;
  }
  PV_LAUNCH();
  unsigned long long h = 0;
  PV_CUDA(cudaMemcpyAsync(&h, d, sizeof(h), cudaMemcpyDeviceToHost, s));
  PV_CUDA(cudaFreeAsync(d, s));
  PV_CUDA(cudaStreamSynchronize(s));
  return static_cast<int64_t>(h);
}

static double decode_f16(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 0) v = std::ldexp(m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = std::ldexp(1024 + m, e - 25);
  return s ? -v : v;
}
static double decode_e4m3(uint8_t b) {
  const int s = b >> 7, e = (b >> 3) & 15, m = b & 7;
  double v;
  if (e == 15 && m == 7) v = NAN;
  else if (e == 0) v = std::ldexp(m, -9);
  else v = std::ldexp(8 + m, e - 10);
  return s ? -v : v;
}

std::vector<double> download(const void* base, ET et, size_t off, size_t count) {
  const size_t es = et_size(et);
  std::vector<unsigned char> raw(count * es);
  PV_CUDA(cudaStreamSynchronize(ctx().stream));
  PV_CUDA(cudaMemcpy(raw.data(), static_cast<const unsigned char*>(base) + off * es, raw.size(), cudaMemcpyDeviceToHost));
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i) {
    const unsigned char* q = raw.data() + i * es;
    switch (et) {
      case ET::f32: { float f; std::memcpy(&f, q, 4); out[i] = f; break; }
      case ET::i32: { int32_t v; std::memcpy(&v, q, 4); out[i] = v; break; }
      case ET::bf16: { uint16_t h; std::memcpy(&h, q, 2); uint32_t u = static_cast<uint32_t>(h) << 16; float f; std::memcpy(&f, &u, 4); out[i] = f; break; }
      case ET::f16: { uint16_t h; std::memcpy(&h, q, 2); out[i] = decode_f16(h); break; }
      case ET::e4m3: out[i] = decode_e4m3(*q); break;
    }
  }
  return out;
}

std::vector<int64_t> sample_indices(int64_t n, int count, uint64_t seed) {
  std::vector<int64_t> r;
  if (n <= 0) return r;
  for (int i = 0; i < count; ++i) r.push_back(static_cast<int64_t>(mix64(seed + 977 * i) % static_cast<uint64_t>(n)));
  return r;
}
uint64_t check_seed() {
  static uint64_t s = static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  return s;
}

// ------------------------------------------------------------------ NVML (dlopen)
namespace {
struct Nvml {
  bool ok = false;
  void* dev = nullptr;
  int (*clock)(void*, int, unsigned*) = nullptr;
  int (*reasons)(void*, unsigned long long*) = nullptr;
  int (*driver)(char*, unsigned) = nullptr;
  int (*power)(void*, unsigned*) = nullptr;        // board draw, mW
  int (*power_limit)(void*, unsigned*) = nullptr;  // enforced cap, mW
  Nvml() {
    void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    auto init = reinterpret_cast<int (*)()>(dlsym(h, "nvmlInit_v2"));
    auto by_pci = reinterpret_cast<int (*)(const char*, void**)>(dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2"));
    auto by_idx = reinterpret_cast<int (*)(unsigned, void**)>(dlsym(h, "nvmlDeviceGetHandleByIndex_v2"));
    clock = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(h, "nvmlDeviceGetClockInfo"));
    reasons = reinterpret_cast<int (*)(void*, unsigned long long*)>(dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!reasons) reasons = reinterpret_cast<int (*)(void*, unsigned long long*)>(dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    driver = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(h, "nvmlSystemGetDriverVersion"));
    power = reinterpret_cast<int (*)(void*, unsigned*)>(dlsym(h, "nvmlDeviceGetPowerUsage"));
    power_limit = reinterpret_cast<int (*)(void*, unsigned*)>(dlsym(h, "nvmlDeviceGetEnforcedPowerLimit"));
    if (!init || !clock || init() != 0) return;
    char bus[64] = {0};
    if (by_pci && cudaDeviceGetPCIBusId(bus, sizeof(bus), 0) == cudaSuccess && by_pci(bus, &dev) == 0) ok = true;
    else if (by_idx && by_idx(0, &dev) == 0) ok = true;
    cudaGetLastError();
  }
  // returns sm clock MHz (0 unknown) and throttle flag
  unsigned sm_clock(bool* throttled) {
    *throttled = false;
    if (!ok) return 0;
    unsigned mhz = 0;
    if (clock(dev, 1 /*NVML_CLOCK_SM*/, &mhz) != 0) mhz = 0;
    unsigned long long r = 0;
    if (reasons && reasons(dev, &r) == 0) *throttled = (r & ~0x3ull) != 0;  // other than GpuIdle / ApplicationsClocksSetting
    return mhz;
  }
  // board power draw and its enforced cap, W (0 unknown)
  double watts() {
    unsigned mw = 0;
    return ok && power && power(dev, &mw) == 0 ? mw / 1000.0 : 0.0;
  }
  double limit_watts() {
    unsigned mw = 0;
    return ok && power_limit && power_limit(dev, &mw) == 0 ? mw / 1000.0 : 0.0;
  }
};
Nvml& nvml() {
  static Nvml n;
  return n;
}
}  // namespace

// ------------------------------------------------------------------ utility kernels
__global__ void empty_kernel() {}
__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__global__ void spin_kernel(uint64_t ns) {
  const uint64_t t0 = globaltimer();
  while (globaltimer() - t0 < ns) {
  }
}
__global__ void flush_kernel(uint4* p, size_t n, unsigned v) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = make_uint4(v, i, v, i);
}
void flush_l2(cudaStream_t s) {
  static unsigned v = 0;
  const size_t n = g_flush_bytes / 16;
  flush_kernel<<<grid_for(static_cast<int64_t>(n), 256, 8), 256, 0, s>>>(static_cast<uint4*>(g_flush), n, ++v);
  PV_LAUNCH();
}

class SpinWorkload : public Workload {
 public:
  explicit SpinWorkload(const Case& c) : Workload(c) {
    if (!(c.spin_seconds > 0) || c.spin_seconds > 1.0) throw std::runtime_error("spin needs 0 < spin_seconds <= 1");
  }
  void launch(void* const*, cudaStream_t s) override {
    spin_kernel<<<1, 32, 0, s>>>(static_cast<uint64_t>(c_.spin_seconds * 1e9));
    PV_LAUNCH();
  }
  CheckOut check(void* const*) override { return {}; }
  double bytes() const override { return 0; }
};

std::unique_ptr<Workload> make_workload(const Case& c) {
  switch (c.kernel) {
    case Kernel::gemm: return make_gemm_workload(c);
    case Kernel::attention_decode: case Kernel::attention_prefill_unfused: case Kernel::attention_prefill_fused:
      return make_attention_workload(c);
    case Kernel::spin: return std::make_unique<SpinWorkload>(c);
    default: return make_ew_workload(c);
  }
}

// ------------------------------------------------------------------ buffers
struct BufferSets {
  std::vector<void*> owned;
  std::vector<std::vector<void*>> sets;  // sets[s][i]
  const Workload* w = nullptr;
  explicit BufferSets(const Workload& wl) : w(&wl) {}
  ~BufferSets() {
    cudaStreamSynchronize(ctx().stream);
    for (void* p : owned) cudaFree(p);
  }
  void* alloc(size_t bytes) {
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, std::max<size_t>(bytes, 256));
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error("cudaMalloc of " + std::to_string(bytes) + " bytes failed: " + cudaGetErrorString(e));
    }
    owned.push_back(p);
    return p;
  }
  size_t rot_bytes() const {
    size_t b = 0;
    for (auto& s : w->bufs) if (s.rotate) b += s.bytes();
    return b;
  }
  void add_sets(int total, uint64_t seed) {
    while (static_cast<int>(sets.size()) < total) {
      const size_t si = sets.size();
      std::vector<void*> ptrs(w->bufs.size());
      for (size_t i = 0; i < w->bufs.size(); ++i) {
        const BufSpec& b = w->bufs[i];
        if (!b.rotate && si > 0) { ptrs[i] = sets[0][i]; continue; }
        ptrs[i] = alloc(b.bytes());
        if (b.role == Role::input || b.role == Role::inout) fill_buffer(ptrs[i], b, mix64(seed + 1315423911ull * si + i), ctx().stream);
        else if (b.role == Role::output) PV_CUDA(cudaMemsetAsync(ptrs[i], 0xFF, b.bytes(), ctx().stream));
      }
      sets.push_back(std::move(ptrs));
    }
    PV_CUDA(cudaStreamSynchronize(ctx().stream));
  }
};

CheckOut check_once(Workload& w, const std::vector<void*>& p) {
  cudaStream_t s = ctx().stream;
  for (size_t i = 0; i < w.bufs.size(); ++i)
    if (w.bufs[i].role == Role::output) PV_CUDA(cudaMemsetAsync(p[i], 0xFF, w.bufs[i].bytes(), s));
  PV_CUDA(cudaStreamSynchronize(s));
  w.before_check(p.data());
  w.launch(p.data(), s);
  PV_CUDA(cudaStreamSynchronize(s));
  CheckOut co = w.check(p.data());
  if (co.ok && w.full_write())
    for (size_t i = 0; i < w.bufs.size(); ++i)
      if (w.bufs[i].role == Role::output) {
        const int64_t nan = count_nan(p[i], w.bufs[i].et, w.bufs[i].count, s);
        if (nan > 0) return {false, co.rel_err, std::to_string(nan) + " elements of " + w.bufs[i].name + " not finite (unwritten: NaN poison left)"};
      }
  return co;
}

Case small_version(const Case& c) {
  Case s = c;
  auto mn = [](int64_t a, int64_t b) { return std::min(a, b); };
  switch (c.kernel) {
    case Kernel::gemm: s.m = mn(c.m, 48); s.n = mn(c.n, 80); s.k = mn(c.k, 160); break;
    case Kernel::spin: break;
    case Kernel::embedding: s.vocab = mn(c.vocab, 1000); s.rows = mn(c.rows, 5); s.cols = mn(c.cols, 1024); break;
    case Kernel::rotary: case Kernel::kv_append: {
      s.batch = mn(c.batch, 2);
      s.q_len = mn(c.q_len, 7);
      const int64_t kvl = c.kv_len > 0 ? c.kv_len : c.q_len;
      s.kv_len = s.q_len + mn(kvl - c.q_len, 5);
      s.kv_heads = mn(c.kv_heads, 2);
      s.heads = c.kv_heads > 0 ? s.kv_heads * (c.heads / c.kv_heads) : c.heads;
      break;
    }
    case Kernel::attention_decode: case Kernel::attention_prefill_unfused: case Kernel::attention_prefill_fused: {
      s.batch = mn(c.batch, 2);
      s.kv_heads = mn(c.kv_heads, 2);
      s.heads = s.kv_heads * (c.heads / std::max<int64_t>(1, c.kv_heads));
      if (c.kernel == Kernel::attention_decode) {
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

// ------------------------------------------------------------------ timing
struct Graph {
  cudaGraph_t g = nullptr;
  cudaGraphExec_t e = nullptr;
  ~Graph() {
    if (e) cudaGraphExecDestroy(e);
    if (g) cudaGraphDestroy(g);
  }
  template <class F>
  void capture(F&& enqueue) {
    cudaStream_t s = ctx().stream;
    PV_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    try {
      enqueue(s);
    } catch (...) {
      cudaGraph_t dummy = nullptr;
      cudaStreamEndCapture(s, &dummy);
      if (dummy) cudaGraphDestroy(dummy);
      cudaGetLastError();
      throw;
    }
    PV_CUDA(cudaStreamEndCapture(s, &g));
    PV_CUDA(cudaGraphInstantiate(&e, g, 0));
  }
  void launch() { PV_CUDA(cudaGraphLaunch(e, ctx().stream)); }
};

struct Events {
  cudaEvent_t a = nullptr, b = nullptr;
  Events() {
    PV_CUDA(cudaEventCreate(&a));
    PV_CUDA(cudaEventCreate(&b));
  }
  ~Events() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  double seconds() {
    PV_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    PV_CUDA(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3;
  }
};

double time_graph_once(Graph& g) {
  Events ev;
  cudaStream_t s = ctx().stream;
  PV_CUDA(cudaEventRecord(ev.a, s));
  g.launch();
  PV_CUDA(cudaEventRecord(ev.b, s));
  return ev.seconds();
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const size_t i = static_cast<size_t>(pos);
  const double f = pos - i;
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

std::string pct(double x) {
  std::ostringstream os;
  os.precision(2);
  os << std::fixed << x * 100 << "%";
  return os.str();
}

// Hot sampling loop over replays of g (each replay = per_replay launches). Fills timing fields of r.
void sample_hot(Graph& g, int64_t per_replay, const Options& o, Result& r) {
  using clk = std::chrono::steady_clock;
  const auto t0 = clk::now();
  std::vector<double> times;
  std::vector<unsigned> clocks;
  std::vector<char> thr;
  std::vector<double> watts;
  Events ev;
  cudaStream_t s = ctx().stream;
  double spread = 1e9;
  const int min_samples = std::max(1, o.min_samples);
  while (true) {
    PV_CUDA(cudaEventRecord(ev.a, s));
    g.launch();
    PV_CUDA(cudaEventRecord(ev.b, s));
    const double t = ev.seconds() / static_cast<double>(per_replay);
    bool th = false;
    const unsigned mhz = nvml().sm_clock(&th);
    watts.push_back(nvml().watts());
    times.push_back(t);
    clocks.push_back(mhz);
    thr.push_back(th);
    const double wall = std::chrono::duration<double>(clk::now() - t0).count();
    if (static_cast<int>(times.size()) >= min_samples) {
      const double med = quantile(times, 0.5);
      spread = med > 0 ? (quantile(times, 0.75) - quantile(times, 0.25)) / med : 0;
      if (spread <= o.target_rel_spread) {
        r.converged = true;
        r.stop_reason = "spread " + pct(spread) + " <= " + pct(o.target_rel_spread);
        break;
      }
    }
    if (wall > o.max_seconds_per_case) {
      std::ostringstream os;
      os.precision(3);
      os << "timeout " << o.max_seconds_per_case << " s: ";
      if (static_cast<int>(times.size()) < min_samples) os << "only " << times.size() << " < " << min_samples << " samples";
      else os << "spread " << pct(spread) << " > " << pct(o.target_rel_spread);
      r.stop_reason = os.str();
      break;
    }
  }
  r.samples = static_cast<int>(times.size());
  r.median_s = quantile(times, 0.5);
  r.q1_s = quantile(times, 0.25);
  r.q3_s = quantile(times, 0.75);
  unsigned cmax = 0, cmin = ~0u;
  for (unsigned c : clocks) if (c) { cmax = std::max(cmax, c); cmin = std::min(cmin, c); }
  r.sm_clock_mhz_max = cmax;
  r.sm_clock_mhz_min = cmax ? cmin : 0;
  std::vector<double> mhz(clocks.begin(), clocks.end());
  r.sm_clock_mhz_median = cmax ? quantile(mhz, 0.5) : 0;
  r.power_w_median = quantile(watts, 0.5);
  r.throttled_samples = 0;
  for (size_t i = 0; i < times.size(); ++i)
    if (thr[i] || (cmax && clocks[i] && clocks[i] < 0.9 * cmax)) ++r.throttled_samples;
}

// cold: L2 flush, short spin so the timed launch is queued before the GPU reaches it, events around one replay
double sample_cold(Graph& g1, int n) {
  std::vector<double> v;
  Events ev;
  cudaStream_t s = ctx().stream;
  for (int i = 0; i < n; ++i) {
    flush_l2(s);
    spin_kernel<<<1, 32, 0, s>>>(20000);
    PV_LAUNCH();
    PV_CUDA(cudaEventRecord(ev.a, s));
    g1.launch();
    PV_CUDA(cudaEventRecord(ev.b, s));
    v.push_back(ev.seconds());
  }
  return quantile(v, 0.5);
}

Result run_case_impl(const Case& c, const Options& o, std::unique_ptr<Workload> wl_override = nullptr) {
  Result r;
  ctx();
  std::unique_ptr<Workload> w = wl_override ? std::move(wl_override) : make_workload(c);
  r.kernels_per_launch = w->kernels();
  r.flops = w->flops();
  r.bytes = w->bytes();
  const uint64_t seed = mix64(check_seed() ^ std::hash<std::string>{}(c.name));
  // correctness: small instance (full reference), then the timed shape (full if small, else sampled + NaN scan)
  if (o.check && c.kernel != Kernel::spin) {
    const Case sc = small_version(c);
    if (!wl_override && !same_shape(sc, c)) {
      auto ws = make_workload(sc);
      BufferSets b(*ws);
      b.add_sets(1, seed + 17);
      CheckOut co = check_once(*ws, b.sets[0]);
      r.max_rel_error = co.rel_err;
      if (!co.ok) {
        r.error = "wrong result on the small instance: " + co.msg;
        return r;
      }
    }
  }
  BufferSets bs(*w);
  bs.add_sets(1, seed);
  if (o.check && c.kernel != Kernel::spin) {
    CheckOut co = check_once(*w, bs.sets[0]);
    r.max_rel_error = std::max(r.max_rel_error, co.rel_err);
    if (!co.ok) {
      r.error = "wrong result: " + co.msg;
      return r;
    }
    r.correct = true;
  } else if (c.kernel == Kernel::spin) {
    r.correct = true;
  }
  // warm-up and first estimate
  Graph g1;
  g1.capture([&](cudaStream_t s) { w->launch(bs.sets[0].data(), s); });
  for (int i = 0; i < std::max(1, o.warmup); ++i) g1.launch();
  PV_CUDA(cudaStreamSynchronize(ctx().stream));
  double t1 = time_graph_once(g1);
  t1 = std::min(t1, time_graph_once(g1));
  int64_t L = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(1e-3 / std::max(t1, 1e-7))), 1, 1000);
  // rotating buffer sets: cycle through > 2 x L2 unless l2_resident
  auto want_sets = [&](int64_t Lx) {
    if (c.l2_resident) return int64_t{1};
    const double touched = std::max(1.0, w->touched_bytes());
    int64_t need = static_cast<int64_t>(std::ceil(2.0 * ctx().l2_bytes / touched));
    need = std::clamp<int64_t>(need, 1, Lx);
    size_t fr = 0, tot = 0;
    PV_CUDA(cudaMemGetInfo(&fr, &tot));
    const double rb = std::max<double>(1.0, static_cast<double>(bs.rot_bytes()));
    const double budget = std::max(0.0, static_cast<double>(fr) - 4e9) + rb * bs.sets.size();
    const int64_t mem_cap = std::max<int64_t>(1, static_cast<int64_t>(std::min(budget, 24e9) / rb));
    return std::min(need, mem_cap);
  };
  int64_t nsets = want_sets(L);
  bs.add_sets(static_cast<int>(nsets), seed);
  auto build = [&](Graph& g, int64_t Lx) {
    g.capture([&](cudaStream_t s) {
      for (int64_t i = 0; i < Lx; ++i) w->launch(bs.sets[static_cast<size_t>(i % nsets)].data(), s);
    });
  };
  auto gL = std::make_unique<Graph>();
  build(*gL, L);
  gL->launch();
  double tr = time_graph_once(*gL);
  if (tr < 0.7e-3 && L < 1000) {  // launch overhead made the first estimate too long: grow L once
    L = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(L * 1.2e-3 / std::max(tr, 1e-7))), L, 1000);
    const int64_t ns2 = want_sets(L);
    if (ns2 > nsets) { bs.add_sets(static_cast<int>(ns2), seed); nsets = ns2; }
    gL = std::make_unique<Graph>();
    build(*gL, L);
    gL->launch();
  }
  r.launches_per_sample = L;
  r.buffer_sets = static_cast<int>(nsets);
  r.rotated_bytes = w->touched_bytes() * static_cast<double>(std::min<int64_t>(nsets, L));
  sample_hot(*gL, L, o, r);
  if (o.cold) r.cold_median_s = sample_cold(g1, r.median_s < 10e-3 ? 7 : 5);
  PV_CUDA(cudaStreamSynchronize(ctx().stream));
  r.ok = true;
  return r;
}

Result guarded(const std::function<Result()>& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    Result r;
    r.ok = false;
    r.correct = false;
    r.error = e.what();
    cudaError_t sticky = cudaGetLastError();
    if (sticky != cudaSuccess) r.error += std::string(" [last CUDA error: ") + cudaGetErrorString(sticky) + "]";
    if (g_ctx.stream) cudaStreamSynchronize(g_ctx.stream);
    cudaGetLastError();
    return r;
  }
}

}  // namespace detail

using namespace detail;

bool device_available(std::string* why) {
  try {
    ctx();
    return true;
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return false;
  }
}

static std::string ver3(int v) {  // 13000 -> 13.0, 130001 -> 13.0.1 (cublas)
  std::ostringstream os;
  if (v >= 100000) os << v / 10000 << "." << (v / 100) % 100 << "." << v % 100;
  else os << v / 1000 << "." << (v % 1000) / 10;
  return os.str();
}

DeviceInfo device_info() {
  DeviceInfo d;
  ctx();
  cudaDeviceProp p{};
  PV_CUDA(cudaGetDeviceProperties(&p, 0));
  d.name = p.name;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.memory_bytes = static_cast<int64_t>(p.totalGlobalMem);
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  int v = 0;
  cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0);
  d.sm_clock_max_mhz = v / 1000;
  cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, 0);
  d.mem_clock_mhz = v / 1000;
  cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, 0);
  d.mem_bus_width_bits = v;
  cudaGetLastError();
  int dv = 0, rv = 0;
  cudaDriverGetVersion(&dv);
  cudaRuntimeGetVersion(&rv);
  char buf[96] = {0};
  if (nvml().ok && nvml().driver && nvml().driver(buf, sizeof(buf)) == 0) d.driver_version = std::string(buf) + " (CUDA " + ver3(dv) + ")";
  else d.driver_version = "CUDA " + ver3(dv);
  d.runtime_version = ver3(rv);
  d.cublas_version = ver3(static_cast<int>(cublasLtGetVersion()));
  return d;
}

PowerInfo power_info() {
  ctx();
  return {nvml().watts(), nvml().limit_watts()};
}

Result run_case(const Case& c, const Options& o) {
  return guarded([&] { return run_case_impl(c, o); });
}

Result run_sequence(const std::vector<Case>& cases, const Options& o) {
  return guarded([&] {
    Result r;
    ctx();
    std::vector<std::unique_ptr<Workload>> ws;
    std::vector<std::unique_ptr<BufferSets>> bufs;
    const uint64_t seed = mix64(check_seed() + 99);
    for (size_t i = 0; i < cases.size(); ++i) {
      ws.push_back(make_workload(cases[i]));
      r.kernels_per_launch += ws.back()->kernels();
      r.flops += ws.back()->flops();
      r.bytes += ws.back()->bytes();
      bufs.push_back(std::make_unique<BufferSets>(*ws.back()));
      bufs.back()->add_sets(1, seed + i);
      if (o.check && cases[i].kernel != Kernel::spin) {
        CheckOut co = check_once(*ws.back(), bufs.back()->sets[0]);
        r.max_rel_error = std::max(r.max_rel_error, co.rel_err);
        if (!co.ok) {
          r.error = "case " + std::to_string(i) + " (" + cases[i].name + ") wrong result: " + co.msg;
          return r;
        }
      }
    }
    r.correct = o.check;
    auto enqueue_all = [&](cudaStream_t s, int64_t reps) {
      for (int64_t k = 0; k < reps; ++k)
        for (size_t i = 0; i < ws.size(); ++i) ws[i]->launch(bufs[i]->sets[0].data(), s);
    };
    Graph g1;
    g1.capture([&](cudaStream_t s) { enqueue_all(s, 1); });
    for (int i = 0; i < std::max(1, o.warmup); ++i) g1.launch();
    double t1 = time_graph_once(g1);
    t1 = std::min(t1, time_graph_once(g1));
    const int64_t R = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(1e-3 / std::max(t1, 1e-7))), 1, 100);
    Graph gR;
    gR.capture([&](cudaStream_t s) { enqueue_all(s, R); });
    gR.launch();
    r.launches_per_sample = R;
    r.buffer_sets = 1;
    sample_hot(gR, R, o, r);
    if (o.cold) r.cold_median_s = sample_cold(g1, 5);
    PV_CUDA(cudaStreamSynchronize(ctx().stream));
    r.ok = true;
    return r;
  });
}

// ------------------------------------------------------------------ calibration
CalibrationData collect_calibration(const Options& opt, const std::function<void(const std::string&)>& progress) {
  CalibrationData d;
  d.device = device_info();
  Options o = opt;
  o.max_seconds_per_case = std::min(opt.max_seconds_per_case, 0.5);
  o.cold = false;
  auto say = [&](const std::string& s) { if (progress) progress(s); };
  auto add = [&](const std::string& what, const Case& c, int64_t bytes) {
    Result r = run_case(c, o);
    std::ostringstream os;
    os << what << " " << c.name << ": ";
    if (!r.ok) {
      os << "FAILED " << r.error;
      say(os.str());
      return;
    }
    CalibrationPoint p{what, c.dtype, c.m, c.n, c.k, bytes, r.median_s};
    d.points.push_back(p);
    os.precision(4);
    os << r.median_s * 1e6 << " us";
    if (bytes > 0) os << ", " << bytes / r.median_s / 1e9 << " GB/s";
    if (c.kernel == Kernel::gemm) os << ", " << 2.0 * c.m * c.n * c.k / r.median_s / 1e12 << " TFLOP/s";
    say(os.str());
  };
  auto ew = [](Kernel k, int64_t bytes, bool l2 = false) {
    Case c;
    c.kernel = k;
    c.dtype = Dtype::bf16;
    const int64_t elems = bytes / 2;
    c.cols = std::min<int64_t>(4096, elems);
    c.rows = elems / c.cols;
    c.l2_resident = l2;
    c.name = to_string(k) + "_" + std::to_string(bytes) + "B" + (l2 ? "_l2" : "");
    return c;
  };
  const int64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
  for (int64_t s : {256 * MiB, 512 * MiB, GiB, 2 * GiB}) add("copy_large", ew(Kernel::copy, s), 2 * s);
  for (int64_t s : {4 * MiB, 8 * MiB, 16 * MiB}) add("l2_copy", ew(Kernel::copy, s, true), 2 * s);
  for (int64_t s = 8 * KiB; s <= 2 * GiB; s *= 2) add("copy_ramp", ew(Kernel::copy, s), 2 * s);
  for (int64_t s = 8 * KiB; s <= 2 * GiB; s *= 4) add("add_ramp", ew(Kernel::add, s), 3 * s);
  auto gemm = [](Dtype dt, int64_t m, int64_t n, int64_t k) {
    Case c;
    c.kernel = Kernel::gemm;
    c.dtype = dt;
    c.m = m; c.n = n; c.k = k;
    c.name = "gemm_" + to_string(dt) + "_" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    return c;
  };
  auto gbytes = [](const Case& c) {
    const int64_t in = c.dtype == Dtype::fp8 ? 1 : (c.dtype == Dtype::fp32 || c.dtype == Dtype::tf32) ? 4 : 2;
    const int64_t out = c.dtype == Dtype::fp8 ? 2 : in;
    return (c.m * c.k + c.n * c.k) * in + c.m * c.n * out;
  };
  for (Dtype dt : {Dtype::bf16, Dtype::fp16, Dtype::tf32, Dtype::fp8, Dtype::fp32}) {
    if (dt == Dtype::fp8 && d.device.cc_major * 10 + d.device.cc_minor < 89) continue;
    Case c = gemm(dt, 8192, 8192, 8192);
    add("gemm_peak", c, gbytes(c));
  }
  for (int64_t m = 1; m <= 4096; m *= 2) {
    Case c = gemm(Dtype::bf16, m, 4096, 4096);
    add("gemm_m_ramp", c, gbytes(c));
  }
  // minimal kernel time: empty kernels in a graph
  {
    Graph g;
    g.capture([&](cudaStream_t s) {
      for (int i = 0; i < 1000; ++i) empty_kernel<<<1, 32, 0, s>>>();
    });
    g.launch();
    Result r;
    sample_hot(g, 1000, o, r);
    d.min_kernel_time_s = r.median_s;
    d.points.push_back({"empty_kernel_graph", Dtype::fp32, 0, 0, 0, 0, r.median_s});
    say("empty kernel in a graph: " + std::to_string(r.median_s * 1e6) + " us per launch");
  }
  // host launch overhead: back-to-back launches without a graph, wall time per launch
  {
    cudaStream_t s = ctx().stream;
    for (int i = 0; i < 1000; ++i) empty_kernel<<<1, 32, 0, s>>>();
    PV_CUDA(cudaStreamSynchronize(s));
    const int N = 20000;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < N; ++i) empty_kernel<<<1, 32, 0, s>>>();
    auto t1 = std::chrono::steady_clock::now();
    PV_CUDA(cudaStreamSynchronize(s));
    auto t2 = std::chrono::steady_clock::now();
    d.host_launch_overhead_s = std::chrono::duration<double>(t1 - t0).count() / N;
    const double stream_rate = std::chrono::duration<double>(t2 - t0).count() / N;
    d.points.push_back({"host_launch", Dtype::fp32, 0, 0, 0, 0, d.host_launch_overhead_s});
    d.points.push_back({"stream_launch_throughput", Dtype::fp32, 0, 0, 0, 0, stream_rate});
    say("host launch overhead: " + std::to_string(d.host_launch_overhead_s * 1e6) + " us per launch (to completion: " +
        std::to_string(stream_rate * 1e6) + " us)");
  }
  return d;
}

// ------------------------------------------------------------------ test hooks
namespace testing {
static Result broken(int64_t rows, int64_t cols, int mode) {
  return guarded([&] {
    Case c;
    c.kernel = Kernel::copy;
    c.dtype = Dtype::bf16;
    c.rows = rows;
    c.cols = cols;
    c.name = mode == 0 ? "broken_copy_skip_last" : "broken_copy_wrong_value";
    Options o;
    o.cold = false;
    o.max_seconds_per_case = 0.05;
    return run_case_impl(c, o, make_broken_copy_workload(c, mode));
  });
}
Result run_broken_copy_check(int64_t rows, int64_t cols) { return broken(rows, cols, 0); }
Result run_wrong_value_check(int64_t rows, int64_t cols) { return broken(rows, cols, 1); }
}  // namespace testing

}  // namespace perfmodel::validation
