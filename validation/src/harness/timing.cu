// Timing (nvbench-style): hot replays of a CUDA graph until the spread settles, cold launches after an L2 flush.
#include <chrono>
#include <sstream>

#include "harness.cuh"

namespace perfmodel::validation {
namespace detail {

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
void launch_spin(uint64_t ns, cudaStream_t s) {
  spin_kernel<<<1, 32, 0, s>>>(ns);
  PV_LAUNCH();
}

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


}  // namespace detail

}  // namespace perfmodel::validation
