// Internal pieces of the measurement harness shared by its files (validation/src/harness/*.cu):
// the buffer sets a case cycles through, CUDA graphs and events, NVML (dlopen), and the
// functions one file defines for another.
#pragma once
#include <dlfcn.h>

#include <algorithm>
#include <functional>
#include <memory>

#include "../common.cuh"

namespace perfmodel::validation::detail {

__host__ __device__ inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// ------------------------------------------------------------------ NVML (dlopen)
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
inline Nvml& nvml() {
  static Nvml n;
  return n;
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

// ------------------------------------------------------------------ graphs and events
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

// context.cu
cudaStream_t ready_stream();        // the context's stream once it is up, else nullptr
void flush_l2(cudaStream_t s);      // overwrite 2 x L2 (cold timing)
// workloads.cu: the registered kernel kinds (kernels/kernels.def) and the harness's own
std::unique_ptr<Workload> make_workload(const Case& c);
Case small_version(const Case& c);  // the instance checked against the full reference
bool same_shape(const Case& a, const Case& b);
// check.cu
CheckOut check_once(Workload& w, const std::vector<void*>& p);
// timing.cu
void launch_spin(uint64_t ns, cudaStream_t s);
double time_graph_once(Graph& g);
double quantile(std::vector<double> v, double q);
void sample_hot(Graph& g, int64_t per_replay, const Options& o, Result& r);
double sample_cold(Graph& g1, int n);
// run.cu
Result run_case_impl(const Case& c, const Options& o, std::unique_ptr<Workload> wl_override = nullptr);
Result guarded(const std::function<Result()>& f);

}  // namespace perfmodel::validation::detail
