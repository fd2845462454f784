// The device the backend runs on: whether there is one, its properties and versions, its power.
#include <sstream>

#include "harness.cuh"

namespace perfmodel::validation {
namespace detail {


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


}  // namespace perfmodel::validation
