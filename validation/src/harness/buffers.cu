// Device buffers: random fill, NaN count, readback to double, sampled indices.
#include <chrono>
#include <cstring>

#include "harness.cuh"

namespace perfmodel::validation {
namespace detail {

// ------------------------------------------------------------------ random fill, NaN count, readback

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


}  // namespace detail

}  // namespace perfmodel::validation
