// The quantized-GEMM accuracy guard (issue 12): predictions recomputed for the committed H200
// measurements of PyTorch's quantized kernels (validation/results/h200-quant). The weight-only
// parameters of the calibration's `quant:` section were fitted on half of the shapes
// (validation/scripts/quant/fit_quant.py, FIT_SHAPES); the errors below are on the other half,
// and on every W8A8 case (nothing of it is fitted). Target: <= 8 % median, <= 20 % p90.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "perfmodel/calibration.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const std::set<std::pair<std::string, std::string>> kFitShapes{
    {"llama3-8b", "qkv"}, {"llama3-8b", "down"}, {"qwen2.5-7b", "o"}, {"qwen2.5-7b", "gateup"},
    {"llama3-70b", "qkv"}, {"llama3-70b", "down"}};

struct Stats {
  size_t n = 0;
  double median = 0, p90 = 0;
};

Stats stats(std::vector<double> e) {
  Stats s;
  s.n = e.size();
  if (e.empty()) return s;
  std::sort(e.begin(), e.end());
  s.median = e.size() % 2 ? e[e.size() / 2] : 0.5 * (e[e.size() / 2 - 1] + e[e.size() / 2]);
  s.p90 = e[static_cast<size_t>(0.9 * static_cast<double>(e.size() - 1))];
  return s;
}

// Sets of absolute errors by name: wonly_int4 / wonly_int8 (held-out shapes), scaled_tensor,
// scaled_row, act_quant (compiled), and wonly_*_fit for the shapes the fit used.
std::map<std::string, std::vector<double>> errors() {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs r = make_roofs(card, &cal);
  std::map<std::string, std::vector<double>> out;
  for (const char* part : {"quant-0.json", "quant-1.json"}) {
    std::ifstream f(test::root() + "/validation/results/h200-quant/" + part);
    REQUIRE(f.good());
    const nlohmann::json doc = nlohmann::json::parse(f);
    for (const auto& c : doc.at("cases")) {
      if (!c.value("ok", false) || !c.value("correct", false)) continue;
      const std::string kernel = c.at("kernel");
      const int64_t m = c.at("m"), n = c.value("n", 0), k = c.at("k");
      KernelCase kc;
      kc.rotated_bytes = c.value("rotated_bytes", 0.0);
      const double hit = harness_l2_hit(kc, r.l2_cyclic_capacity);
      std::vector<Op> ops;
      std::string set;
      if (kernel == "gemm_wonly") {
        const DType w = c.at("dtype") == "int8" ? DType::int8 : DType::int4;
        ops.push_back(ops::gemm_wonly("g", m, n, k, DType::bf16, w, c.at("group_size")));
        const bool fit = kFitShapes.count({c.at("model"), c.at("shape")}) > 0;
        set = std::string("wonly_") + (w == DType::int8 ? "int8" : "int4") + (fit ? "_fit" : "");
      } else if (kernel == "gemm_scaled") {
        const Scaling s = c.at("scaling") == "row" ? Scaling::row : Scaling::tensor;
        ops.push_back(ops::gemm_scaled("g", c.at("m_padded"), n, k, DType::bf16, DType::fp8, s));
        set = s == Scaling::row ? "scaled_row" : "scaled_tensor";
      } else if (kernel == "act_quant" && c.at("implementation") == "torch.compile") {
        const std::string scaling = c.at("scaling"), mode = c.at("act_quant");
        if (scaling == "tensor" && mode == "dynamic") ops.push_back(ops::act_amax("a", m, k, DType::bf16));
        ops.push_back(ops::act_quant("q", m, k, DType::bf16, DType::fp8,
                                     scaling == "row" ? Scaling::row : Scaling::tensor, scaling == "row"));
        set = "act_quant";
      } else {
        continue;
      }
      double t = 0;
      for (Op& op : ops) {
        op.l2_hit = hit;
        t += price(op, r, Impl::fused).time_s;
      }
      const double measured = c.at("measured_s");
      REQUIRE(measured > 0);
      out[set].push_back(std::fabs(t / measured - 1));
      if (std::getenv("QUANT_DEBUG") && set == std::getenv("QUANT_DEBUG"))
        MESSAGE(c.at("name").get<std::string>() << " pred " << t * 1e6 << " meas " << measured * 1e6);
    }
  }
  return out;
}

const std::map<std::string, std::vector<double>>& errs() {
  static const auto e = errors();
  return e;
}

TEST_CASE("the committed quantized-GEMM measurements are all there") {
  // 108 W4A16 cases per group size (12 shapes x 9 M) and 108 of each other kind.
  CHECK(errs().at("wonly_int4").size() + errs().at("wonly_int4_fit").size() == 216);
  CHECK(errs().at("wonly_int8").size() + errs().at("wonly_int8_fit").size() == 108);
  CHECK(errs().at("scaled_tensor").size() == 108);
  CHECK(errs().at("scaled_row").size() == 108);
}

Stats report(const char* set) {
  const Stats s = stats(errs().at(set));
  MESSAGE(std::string(set) << ": n=" << s.n << " median " << 100 * s.median << " % p90 " << 100 * s.p90 << " %");
  return s;
}

}  // namespace

TEST_CASE("weight-only W4A16 / W8A16 and tensor-scaled FP8 on held-out shapes: <= 8 % median, <= 20 % p90 (issue 12)") {
  std::vector<double> all;
  for (const char* set : {"wonly_int4", "wonly_int8", "scaled_tensor"}) {
    report(set);
    all.insert(all.end(), errs().at(set).begin(), errs().at(set).end());
  }
  const Stats s = stats(all);
  MESSAGE("together: n=" << s.n << " median " << 100 * s.median << " % p90 " << 100 * s.p90 << " %");
  CHECK(s.median <= 0.08);
  CHECK(s.p90 <= 0.20);
  CHECK(report("wonly_int4").median <= 0.08);
  CHECK(report("scaled_tensor").median <= 0.08);
}

// Row-scaled FP8 (_scaled_mm with per-token x per-channel scales) does NOT meet the issue's
// target: cuBLASLt's outer-vector-scaled kernel at small M is slower than one 128x128 tile per
// SM predicts for wide N (gate_up: -30 %) and faster for long K (down: +35 %: the model charges
// each SM its padded 128-row tile's MMA work at the calibrated fp8 peak, 64 us for Qwen2.5's
// 128x128x18944 tile against 48 us measured; no split-K there, no Memset in the kernel names).
// This guards today's level (12.4 % / 36.0 %) against regressions; it is not the target.
TEST_CASE("row-scaled FP8 stays at today's level (known miss of the issue-12 target)") {
  const Stats s = report("scaled_row");
  CHECK(s.median <= 0.13);
  CHECK(s.p90 <= 0.37);
}

// The activation-quantization cases were measured as torch.compile(dynamic=True) kernels, not the
// production CUDA kernels the model prices (README of h200-quant: Inductor's dynamic-shape
// per-tensor amax runs in one CTA, 1 ms at 4096 x 4096): reported, not a target.
TEST_CASE("activation quantization kernels (torch.compile'd): reported, not a target") {
  CHECK(report("act_quant").n == 45);
}
