// The process-wide CUDA context (device, stream, cuBLAS handles, the L2 flush buffer).
#include <mutex>

#include "harness.cuh"

namespace perfmodel::validation {
namespace detail {

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

cudaStream_t ready_stream() { return g_ctx.stream; }


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


}  // namespace detail

}  // namespace perfmodel::validation
