// The measurements behind a calibration file's roofs (docs/calibration.md).
#include <chrono>
#include <sstream>

#include "harness.cuh"

namespace perfmodel::validation {
namespace detail {

__global__ void empty_kernel() {}

}  // namespace detail

using namespace detail;

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
    if (c.kernel == KernelId::gemm) os << ", " << 2.0 * c.m * c.n * c.k / r.median_s / 1e12 << " TFLOP/s";
    say(os.str());
  };
  auto ew = [](KernelId k, int64_t bytes, bool l2 = false) {
    Case c;
    c.kernel = k;
    c.dtype = DType::bf16;
    const int64_t elems = bytes / 2;
    c.cols = std::min<int64_t>(4096, elems);
    c.rows = elems / c.cols;
    c.l2_resident = l2;
    c.name = to_string(k) + "_" + std::to_string(bytes) + "B" + (l2 ? "_l2" : "");
    return c;
  };
  const int64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
  for (int64_t s : {256 * MiB, 512 * MiB, GiB, 2 * GiB}) add("copy_large", ew(KernelId::copy, s), 2 * s);
  for (int64_t s : {4 * MiB, 8 * MiB, 16 * MiB}) add("l2_copy", ew(KernelId::copy, s, true), 2 * s);
  for (int64_t s = 8 * KiB; s <= 2 * GiB; s *= 2) add("copy_ramp", ew(KernelId::copy, s), 2 * s);
  for (int64_t s = 8 * KiB; s <= 2 * GiB; s *= 4) add("add_ramp", ew(KernelId::add, s), 3 * s);
  auto gemm = [](DType dt, int64_t m, int64_t n, int64_t k) {
    Case c;
    c.kernel = KernelId::gemm;
    c.dtype = dt;
    c.m = m; c.n = n; c.k = k;
    c.name = "gemm_" + std::string(to_string(dt)) + "_" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    return c;
  };
  auto gbytes = [](const Case& c) {
    const int64_t in = c.dtype == DType::fp8 ? 1 : (c.dtype == DType::fp32 || c.dtype == DType::tf32) ? 4 : 2;
    const int64_t out = c.dtype == DType::fp8 ? 2 : in;
    return (c.m * c.k + c.n * c.k) * in + c.m * c.n * out;
  };
  for (DType dt : {DType::bf16, DType::fp16, DType::tf32, DType::fp8, DType::fp32}) {
    if (dt == DType::fp8 && d.device.cc_major * 10 + d.device.cc_minor < 89) continue;
    Case c = gemm(dt, 8192, 8192, 8192);
    add("gemm_peak", c, gbytes(c));
  }
  for (int64_t m = 1; m <= 4096; m *= 2) {
    Case c = gemm(DType::bf16, m, 4096, 4096);
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
    d.points.push_back({"empty_kernel_graph", DType::fp32, 0, 0, 0, 0, r.median_s});
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
    d.points.push_back({"host_launch", DType::fp32, 0, 0, 0, 0, d.host_launch_overhead_s});
    d.points.push_back({"stream_launch_throughput", DType::fp32, 0, 0, 0, 0, stream_rate});
    say("host launch overhead: " + std::to_string(d.host_launch_overhead_s * 1e6) + " us per launch (to completion: " +
        std::to_string(stream_rate * 1e6) + " us)");
  }
  return d;
}


}  // namespace perfmodel::validation
