// Running a case or a sequence of cases: check, then time (harness/timing.cu); errors become a Result.
#include "perfmodel/validation/testing.hpp"

#include "harness.cuh"

namespace perfmodel::validation {
namespace detail {

Result run_case_impl(const Case& c, const Options& o, std::unique_ptr<Workload> wl_override) {
  Result r;
  ctx();
  std::unique_ptr<Workload> w = wl_override ? std::move(wl_override) : make_workload(c);
  r.kernels_per_launch = w->kernels();
  r.flops = w->flops();
  r.bytes = w->bytes();
  const uint64_t seed = mix64(check_seed() ^ std::hash<std::string>{}(c.name));
  // correctness: small instance (full reference), then the timed shape (full if small, else sampled + NaN scan)
  if (o.check && !is_spin(c)) {
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
  if (o.check && !is_spin(c)) {
    CheckOut co = check_once(*w, bs.sets[0]);
    r.max_rel_error = std::max(r.max_rel_error, co.rel_err);
    if (!co.ok) {
      r.error = "wrong result: " + co.msg;
      return r;
    }
    r.correct = true;
  } else if (is_spin(c)) {
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
    if (ready_stream()) cudaStreamSynchronize(ready_stream());
    cudaGetLastError();
    return r;
  }
}


}  // namespace detail

using namespace detail;

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
      if (o.check && !is_spin(cases[i])) {
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


// ------------------------------------------------------------------ test hooks
namespace testing {
static Result broken(int64_t rows, int64_t cols, int mode) {
  return guarded([&] {
    Case c;
    c.kernel = KernelId::copy;
    c.dtype = DType::bf16;
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
