// Tensor-parallel decode steps measured on 2xH200 (validation/results/h200x2-tp/tp_decode.csv,
// validation/scripts/nccl/tp_decode.py) against perfmodel's fused profile on the calibrated H200,
// recomputed from the committed data. Nothing is fitted on this set. Issue 13's targets are TP=2
// steps within 10 % (median) and the TP=2 / TP=1 ratio within 5 %; both are met, and tighter bounds
// at what the model achieves today (validation/results/h200x2-tp/README.md) keep it from slipping.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Point {
  std::string model;
  int tp = 1;
  int64_t batch = 0, ctx = 0;
  double measured_s = 0, predicted_s = 0;
  double error() const { return predicted_s / measured_s - 1; }
};

double median_abs(std::vector<double> v) {
  REQUIRE_FALSE(v.empty());
  for (double& x : v) x = std::fabs(x);
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const std::vector<Point>& points() {
  static const std::vector<Point> pts = [] {
    const Card card = test::catalogue().card("h200");
    const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
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
      p.predicted_s = evaluate(m, w, card, &cal, o).analysis.step_time_s;
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
