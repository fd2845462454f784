// Tensor-parallel decode steps measured on 2xH200 (validation/results/h200x2-tp/tp_decode.csv,
// validation/scripts/nccl/tp_decode.py) against perfmodel's fused profile on the calibrated H200,
// recomputed from the committed data. Nothing is fitted on this set. Issue 13's targets are TP=2
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
  double measured_s = 0, predicted_s = 0;
  double as_run_s = 0;  // the same step with the kernels tp_decode.py ran (AsRun)
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
// floor less the idle after each launch, as the fused profile's small kernels are (harness_idle):
// the graph adds its own gap per launch. Nothing here is fitted on h200x2-tp.
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
      p.predicted_s = e.analysis.step_time_s;
      // The step as the fused profile prices it, its ops replaced by what the script ran.
      p.as_run_s = p.predicted_s - price_step(e.step, as_run.fused, Impl::fused).time_s + as_run.time(e.step);
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
                      << p.predicted_s * 1e3 << " asrun " << p.as_run_s * 1e3);
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
  CHECK(med <= 0.05);  // today: 4.5 % (7.0 % when the engine's decode was priced as FlashAttention-2)
  // today: 8.4 % (10.0 % while the production decode split rule took its best efficiency over
  // ineligible split counts too, which priced 20-head TP=2 decode unsplit)
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
  CHECK(med <= 0.035);  // today: 3.0 %
}

// Like with like (branch idle7): the same steps priced with the kernels tp_decode.py ran (AsRun:
// FlashAttention-2's split-KV decode, F.rms_norm after a separate residual add, F.silu(g) * u as two
// kernels, two K/V copies, no rotary, no embedding). Nothing fitted on h200x2-tp. Under the
// committed calibration (the fused profile's floors holding the harness idle): TP=1 steps 4.5 %
// (the profile's own price: 6.5 %), TP=2 9.0 %, ratio 4.4 %: the FlashAttention-2 decode puts the
// batch-64 and Llama-2-13B batch-16 steps near (-38..-7 % -> -16..+10 %), and what is left over is
// fixed cost at batch 1-4 (+6.5..+15 % at TP=2): ATen's F.rms_norm priced 7.6 us a row at one row
// against 4.4 us measured alone (h200-production's 1 x 4096), and the fused profile's own small-batch
// over-price (h200-fused-step-cudnn: b1-b8 +6..+9 %). The profile's price above stays the guard:
// what it achieves rests on the two cancelling (validation/results/h200-idle7/README.md).
TEST_CASE("TP decode steps priced as the script ran them (like with like): today's levels") {
  std::map<std::tuple<std::string, int64_t, int64_t>, const Point*> one;
  std::vector<double> tp1, tp2, ratio;
  for (const Point& p : points()) {
    (p.tp == 1 ? tp1 : tp2).push_back(p.as_run_s / p.measured_s - 1);
    if (p.tp == 1) one[{p.model, p.batch, p.ctx}] = &p;
  }
  for (const Point& p : points()) {
    auto it = one.find({p.model, p.batch, p.ctx});
    if (p.tp != 2 || it == one.end()) continue;
    ratio.push_back((p.as_run_s / it->second->as_run_s) / (p.measured_s / it->second->measured_s) - 1);
  }
  REQUIRE(ratio.size() == 22);
  const double m1 = median_abs(tp1), m2 = median_abs(tp2), mr = median_abs(ratio);
  MESSAGE("as run: TP=1 " << m1 * 100 << " %, TP=2 " << m2 * 100 << " %, TP=2/TP=1 ratio " << mr * 100 << " %");
  CHECK(m1 <= 0.046);  // 4.5 %
  CHECK(m2 <= 0.092);  // 9.0 %
  CHECK(mr <= 0.044);  // 4.4 %
}
