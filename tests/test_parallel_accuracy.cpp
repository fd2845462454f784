// Tensor-parallel decode steps measured on 2xH200 (validation/results/h200x2-tp/tp_decode.csv,
// validation/scripts/nccl/tp_decode.py) against perfmodel's fused profile on the calibrated H200,
// recomputed from the committed data, each step priced with the kernels the script ran (AsRun,
// since branch idle7; the fused profile's own kernels are guarded apart). Nothing is fitted on this set. Issue 13's targets are TP=2
// steps within 10 % (median) and the TP=2 / TP=1 ratio within 5 %; both are met, and tighter bounds
// at what the model achieves today (validation/results/h200x2-tp/README.md) keep it from slipping.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Point {
  std::string model;
  int tp = 1;
  int64_t batch = 0, ctx = 0;
  double measured_s = 0;
  double predicted_s = 0;  // the step with the kernels tp_decode.py ran (AsRun)
  double profile_s = 0;    // the fused profile's own step (a serving engine's kernels)
  double error() const { return predicted_s / measured_s - 1; }
};

double median_abs(std::vector<double> v) {
  REQUIRE_FALSE(v.empty());
  for (double& x : v) x = std::fabs(x);
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// What tp_decode.py's step runs, kernel by kernel, where it differs from the fused profile's step
// (validation/results/h200x2-tp/README.md and run.log): no token embedding and no rotary; the new
// token's K and V written by two ATen copies into strided cache views; F.rms_norm (one ATen kernel)
// after a separate residual add (x = x + y); F.silu(g) * u as two ATen kernels; and PyTorch's
// FlashAttention-2 decode (flash_fwd_splitkv_kernel + combine, flash_fwd_kernel unsplit at batch 64),
// priced by the fused profile's FlashAttention-2 keys (`decode:`, production_decode_cost) with
// cuDNN's GQA-packed kernel taken out, as FlashAttention-2's own tests price it (test_properties).
// The GEMMs, collectives and the graph gap per launch are the fused profile's. Every kernel priced
// from a single-call harness fit (ATen's kernels, FlashAttention-2's call floor) is priced alone, its
// floor less the idle after each launch, as the fused profile's small kernels are (harness_idle, when
// the profile has it): the graph adds its own gap per launch. ATen's kernels read activations the
// previous kernel just wrote, L2-resident. Nothing here is fitted on h200x2-tp.
struct AsRun {
  Roofs fused, fa2, eager;
  explicit AsRun(const Card& card, const Calibration& cal)
      : fused(make_roofs(card, &cal, Impl::fused)), fa2(fused), eager(make_roofs(card, &cal, Impl::eager)) {
    fa2.cudnn_decode = {};
  }

  // The step's time with each op as the script runs it, through combine_step (graph gap per launch).
  double time(const Step& step) const {
    std::vector<Op> ops;
    std::vector<const Roofs*> roofs;  // nullptr: the fused profile's own price
    auto push = [&](Op op, const Roofs* r) {
      // ATen's kernels read activations the previous kernel just wrote (at most batch x 14336 bf16
      // values, 1.8 MB, against a 60 MB L2): their dependent row loops wait on L2, not DRAM
      // (aten_kernel_cost.cpp's chain_scale, as the harness cases whose buffers fit the L2 measure).
      if (r == &eager) op.l2_hit = 1;
      ops.push_back(std::move(op));
      roofs.push_back(r);
    };
    for (const Op& op : step.ops) {
      const int64_t n = op.count;
      auto counted = [n](Op o) {
        o.count = n;
        return o;
      };
      if (op.name == "embed_tokens" || op.kernel == KernelId::rotary) continue;
      if (op.kernel == KernelId::kv_append) {
        for (const char* part : {"k", "v"}) {
          Op c = counted(ops::copy(op.name + "_" + part, op.rows * op.attention.kv_heads, op.attention.head_dim, op.dtype));
          c.strided = true;
          push(c, &eager);
        }
      } else if (op.kernel == KernelId::rmsnorm) {
        if (op.residual) push(counted(ops::add(op.name + "_add", op.rows, op.cols, op.dtype)), &eager);
        push(counted(ops::rmsnorm(op.name, op.rows, op.cols, op.dtype, false)), &eager);
      } else if (op.kernel == KernelId::silu_mul) {
        for (Op& k : eager_form(op, false)) push(counted(k), &eager);
      } else if (op.kernel == KernelId::attention_decode) {
        push(op, &fa2);
      } else {
        push(op, nullptr);
      }
    }
    std::vector<const Op*> ptrs;
    std::vector<OpCost> costs;
    for (size_t i = 0; i < ops.size(); ++i) {
      ptrs.push_back(&ops[i]);
      OpCost c = price(ops[i], roofs[i] ? *roofs[i] : fused, Impl::fused);  // device time only
      if (roofs[i]) {  // a single-call harness fit: the kernel alone
        const double idle = std::min(c.time_s, fused.harness_idle_s * static_cast<double>(ops[i].launches));
        c.time_s -= idle;
        c.device_time_s -= idle;
        c.overhead_time_s = std::max(0.0, c.overhead_time_s - idle);
      }
      costs.push_back(c);
    }
    return combine_step(ptrs, std::move(costs), fused, Impl::fused).time_s;
  }
};

const std::vector<Point>& points() {
  static const std::vector<Point> pts = [] {
    const Card card = test::catalogue().card("h200");
    const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    const AsRun as_run(card, cal);
    std::ifstream in(test::root() + "/validation/results/h200x2-tp/tp_decode.csv");
    REQUIRE(in);
    std::string line;
    std::getline(in, line);
    REQUIRE(line.rfind("model,tp,batch,ctx,time_s", 0) == 0);
    std::vector<Point> v;
    while (std::getline(in, line)) {
      std::stringstream ss(line);
      std::string f[5];
      for (auto& x : f) std::getline(ss, x, ',');
      Point p{f[0], std::stoi(f[1]), std::stoll(f[2]), std::stoll(f[3]), std::stod(f[4]), 0};
      Model m = test::catalogue().model(p.model);
      // The script has no rotary embedding and random weights: Llama-2-13B's 4096 positions do not
      // bound its 8192-token caches.
      m.max_positions = std::max(m.max_positions, p.ctx);
      Workload w;
      w.batch = p.batch;
      w.ctx = p.ctx;
      w.parallel.tp = p.tp;
      EvaluateOptions o;
      o.with_ttft = false;
      const Evaluation e = evaluate(m, w, card, &cal, o);
      p.profile_s = e.analysis.step_time_s;
      // The step as the fused profile prices it, its ops replaced by what the script ran.
      p.predicted_s = p.profile_s - price_step(e.step, as_run.fused, Impl::fused).time_s + as_run.time(e.step);
      v.push_back(p);
    }
    return v;
  }();
  return pts;
}

}  // namespace

TEST_CASE("the committed 2xH200 TP decode set is complete") {
  int tp1 = 0, tp2 = 0, big = 0;
  for (const Point& p : points()) {
    if (std::getenv("TP_POINTS"))  // one line a point, for validation/results/h200-idle7
      MESSAGE(p.model << " tp" << p.tp << " b" << p.batch << " ctx" << p.ctx << " meas " << p.measured_s * 1e3 << " profile "
                      << p.profile_s * 1e3 << " asrun " << p.predicted_s * 1e3);
    (p.tp == 1 ? tp1 : tp2)++;
    big += p.model == "llama3-70b";
  }
  CHECK(tp1 == 22);  // Llama-3-8B 12, Llama-2-13B 10 (two KV caches did not fit one GPU)
  CHECK(tp2 == 34);  // Llama-3-8B 12, Llama-2-13B 11, Llama-3-70B 11
  CHECK(big == 11);
}

TEST_CASE("TP=2 decode steps: median abs error <= 10 % (issue 13 target)") {
  std::vector<double> all, small_batch;
  for (const Point& p : points()) {
    if (p.tp != 2) continue;
    all.push_back(p.error());
    if (p.batch <= 16 && p.ctx <= 4096) small_batch.push_back(p.error());
  }
  const double med = median_abs(all), med_small = median_abs(small_batch);
  MESSAGE("TP=2 steps: median abs error " << med * 100 << " % over " << all.size() << "; batch <= 16, ctx <= 4096: "
                                          << med_small * 100 << " % over " << small_batch.size());
  CHECK(med <= 0.10);
  // Priced as the script ran (AsRun, branch idle7): 4.5 %; batch <= 16, ctx <= 4096: 4.7 %. With
  // the fused profile's own kernels (before idle7): 4.5 % and 1.8 %, the misses cancelling.
  CHECK(med <= 0.05);
  CHECK(med_small <= 0.09);
}

TEST_CASE("TP=2 / TP=1 time ratio: median abs error <= 5 % (issue 13 target)") {
  std::map<std::tuple<std::string, int64_t, int64_t>, const Point*> one;
  for (const Point& p : points())
    if (p.tp == 1) one[{p.model, p.batch, p.ctx}] = &p;
  std::vector<double> errs;
  for (const Point& p : points()) {
    if (p.tp != 2) continue;
    auto it = one.find({p.model, p.batch, p.ctx});
    if (it == one.end()) continue;
    const double measured = p.measured_s / it->second->measured_s;
    const double predicted = p.predicted_s / it->second->predicted_s;
    errs.push_back(predicted / measured - 1);
  }
  REQUIRE(errs.size() == 22);
  const double med = median_abs(errs);
  MESSAGE("TP=2/TP=1 ratio: median abs error " << med * 100 << " % over " << errs.size() << " pairs");
  CHECK(med <= 0.05);
  CHECK(med <= 0.035);  // today: 3.1 % as run (the fused profile's own kernels: 3.3 %)
  // Branch graphhost11 (the graph's idle per launch and the host's launch per node apart, both in
  // time_s: tp_decode.py times one replay on an idle GPU, so its events catch the launch): TP=2
  // 2.07 -> 2.19 %, batch <= 16 2.37 -> 2.36 %, ratio 2.34 -> 2.35 %; the profile's own kernels
  // TP=1 8.1 -> 8.5 %, TP=2 6.3 -> 6.8 %, ratio 3.6 -> 3.7 %.
}

// The fused profile's own step (a serving engine's kernels: GQA-packed decode, fused norm + add,
// SiLU*mul, rotary, KV write), what the guards above held before branch idle7: TP=1 6.5 %, TP=2
// 4.5 %, ratio 3.3 %. It under-prices the batch-64 and Llama-2-13B batch-16 steps (PyTorch's
// FlashAttention-2 ran there: -38..-7 %) and over-prices batch 1-4, and the two cancel in the median
// (validation/results/h200-idle7/README.md). Held to issue 13's targets only: it prices kernels the
// script did not run (with harness_idle on: TP=2 6.3 %, ratio 3.5 %).
TEST_CASE("TP decode steps priced with the fused profile's own kernels (a serving engine's): issue 13's targets") {
  std::map<std::tuple<std::string, int64_t, int64_t>, const Point*> one;
  std::vector<double> tp1, tp2, ratio;
  for (const Point& p : points()) {
    (p.tp == 1 ? tp1 : tp2).push_back(p.profile_s / p.measured_s - 1);
    if (p.tp == 1) one[{p.model, p.batch, p.ctx}] = &p;
  }
  for (const Point& p : points()) {
    auto it = one.find({p.model, p.batch, p.ctx});
    if (p.tp != 2 || it == one.end()) continue;
    ratio.push_back((p.profile_s / it->second->profile_s) / (p.measured_s / it->second->measured_s) - 1);
  }
  REQUIRE(ratio.size() == 22);
  const double m1 = median_abs(tp1), m2 = median_abs(tp2), mr = median_abs(ratio);
  MESSAGE("the fused profile's own kernels: TP=1 " << m1 * 100 << " %, TP=2 " << m2 * 100 << " %, TP=2/TP=1 ratio " << mr * 100 << " %");
  CHECK(m1 <= 0.10);  // 6.5 %
  CHECK(m2 <= 0.10);  // 4.5 %
  CHECK(mr <= 0.05);  // 3.3 %
}
