// Issue 10, the compiled profile's whole decode steps: Hugging Face models under torch.compile
// (reduce-overhead, StaticCache) cut to 4 layers, validation/results/h200-compiled/hf.json, re-run
// here as compare_compiled.py runs them (perfmodel at --ctx kv_len: the static cache attends over all
// its slots). What was fitted where:
// - cuDNN's decode SDPA (cudnn_decode:) on the even torch.sdpa.cudnn decode cases of
//   validation/results/h200-production/kernels.json; no step was used, the odd cases are held out;
// - graph_call_host on steps 0, 2, 4, 6 of hf.json (fit_compiled.py); steps 1, 3, 5 are held out.
// The figures are those the results README and docs/accuracy.md report; a change that moves them
// past these bounds fails here.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct StepError {
  int index = 0;
  bool fitted = false;  // graph_call_host was fitted on it
  double graph = 0;     // step.time_s / device_s - 1 (the graph replay, CUDA events around a call)
  double kernels = 0;   // step.device_time_s / kernel_s - 1 (the profiler's kernel sum)
  double sdpa = 0;      // the SDPA op against cuDNN's SDPA (+ lean_reduction) kernels of the step
  int64_t launches = 0;
  double measured_kernels = 0;
};

const Calibration& h200_calibration() {
  static const Calibration c = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return c;
}

double named_kernels_s(const YAML::Node& top, const std::string& prefix) {
  double t = 0;
  for (const auto& k : top)
    if (k.first.as<std::string>().rfind(prefix, 0) == 0) t += k.second.as<double>();
  return t;
}

const std::vector<StepError>& step_errors() {
  static const std::vector<StepError> errors = [] {
    std::vector<StepError> out;
    const YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-compiled/hf.json");
    const Card card = test::catalogue().card("h200");
    int index = -1;
    for (const auto& s : root["steps"]) {
      if (!s["ok"].as<bool>()) continue;
      ++index;
      Model m = test::catalogue().model(s["model"].as<std::string>());
      m.layers = s["layers"].as<int64_t>();
      Workload w;
      w.phase = Phase::decode;
      w.batch = s["batch"].as<int64_t>();
      w.ctx = s["kv_len"].as<int64_t>();
      w.impl = Impl::compiled;
      const Evaluation e = evaluate(m, w, card, &h200_calibration());
      StepError r;
      r.index = index;
      r.fitted = index % 2 == 0;
      r.graph = e.cost.time_s / s["device_s"].as<double>() - 1;
      r.kernels = e.cost.device_time_s / s["kernel_s"].as<double>() - 1;
      double sdpa = 0;
      for (size_t i = 0; i < e.step.ops.size(); ++i) {
        const Op& op = e.step.ops[i];
        r.launches += op.launches * op.count;
        if (op.kernel == KernelId::attention_decode_cudnn) sdpa += static_cast<double>(op.count) * e.cost.ops[i].time_s;
      }
      const YAML::Node top = s["top_kernels_s"];
      const double measured_sdpa = named_kernels_s(top, "cudnn_generated_fort_native_sdpa") +
                                   named_kernels_s(top, "void cudnn::fusion::lean_reduction_kernel");
      r.sdpa = sdpa / measured_sdpa - 1;
      r.measured_kernels = s["kernels_per_step"].as<double>();
      out.push_back(r);
    }
    return out;
  }();
  return errors;
}

std::vector<double> abs_errors(double StepError::*field, int which) {  // which: 0 fit, 1 held out, 2 all
  std::vector<double> v;
  for (const StepError& e : step_errors())
    if (which == 2 || e.fitted == (which == 0)) v.push_back(std::fabs(e.*field));
  return v;
}

}  // namespace

TEST_CASE("compiled decode steps: 7 measured, graph replay and kernel sum within the achieved error") {
  REQUIRE(step_errors().size() == 7);
  const std::vector<double> graph_fit = abs_errors(&StepError::graph, 0), graph_held = abs_errors(&StepError::graph, 1);
  const std::vector<double> kernels = abs_errors(&StepError::kernels, 2);
  REQUIRE(graph_fit.size() == 4);
  REQUIRE(graph_held.size() == 3);
  CAPTURE(quantile(graph_fit, 0.5));
  CAPTURE(quantile(graph_held, 0.5));
  CAPTURE(quantile(kernels, 0.5));
  CAPTURE(quantile(kernels, 0.9));
  // Before this model: graph replay 16.1 % median, kernel sum 21.9 % (all over).
  CHECK(quantile(graph_fit, 0.5) <= 0.07);
  CHECK(quantile(graph_held, 0.5) <= 0.15);
  CHECK(quantile(kernels, 0.5) <= 0.03);
  CHECK(quantile(kernels, 0.9) <= 0.04);
  for (const StepError& e : step_errors()) {
    CAPTURE(e.index);
    CHECK(std::isfinite(e.graph));
    CHECK(std::fabs(e.graph) <= 0.21);
  }
}

TEST_CASE("compiled decode SDPA is cuDNN's 16-row-tile kernel: memory-bound, held out on every step") {
  // No step was used to fit cudnn_decode: each step's SDPA (4 layers, + lean_reduction at batch 1)
  // against the kernel names of its profile.
  const std::vector<double> sdpa = abs_errors(&StepError::sdpa, 2);
  REQUIRE(sdpa.size() == 7);
  CAPTURE(quantile(sdpa, 0.5));
  CAPTURE(quantile(sdpa, 0.9));
  CHECK(quantile(sdpa, 0.5) <= 0.08);
  CHECK(quantile(sdpa, 0.9) <= 0.13);
  // Llama-3-8B b64 over 1064 slots: the expanded K/V (1.115 GB a layer) streams; the padded
  // 16-row tiles' MMA work is far below it.
  const Roofs r = make_roofs(test::catalogue().card("h200"), &h200_calibration(), Impl::compiled);
  const OpCost big = price(ops::attention_decode_cudnn("a", 64, 32, 32, 1064, 128, DType::bf16, DType::bf16), r, Impl::fused);
  CHECK(big.bound == Bound::memory);
  CHECK(big.compute_time_s < 0.2 * big.memory_time_s);
  // 2048 CTAs, one per SM at a time: 16 waves of 132, the last one 68 % full.
  const Op big_op = ops::attention_decode_cudnn("a", 64, 32, 32, 1064, 128, DType::bf16, DType::bf16);
  CHECK(big_op.bytes() == test::approx(2.0 * 64 * 32 * 1064 * 128 * 2 + 2.0 * 64 * 32 * 128 * 2));  // K, V; q, o
  CHECK(big.memory_time_s == test::approx(big_op.bytes() / (4509.4e9 * 2048 / (16 * 132))).epsilon(1e-6));
  // Batch 1: 32 CTAs leave most of the 132 SMs idle, so the keys are split over all SMs and the
  // lean_reduction kernel merges them; batch 8 x 28 heads (224 CTAs) runs one kernel.
  const OpCost b1 = price(ops::attention_decode_cudnn("a", 1, 32, 32, 2088, 128, DType::bf16, DType::bf16), r, Impl::fused);
  CHECK(b1.time_s - b1.memory_time_s == test::approx(3.714e-6 + 4.082e-6).epsilon(1e-3));
  const OpCost b8 = price(ops::attention_decode_cudnn("a", 8, 28, 28, 1064, 128, DType::bf16, DType::bf16), r, Impl::fused);
  CHECK(b8.time_s - b8.memory_time_s == test::approx(3.714e-6).epsilon(1e-3));
  // 112 CTAs (Qwen2.5 b4) fill 112 of 132 SMs: they stream at that share of the rate.
  const Op q4 = ops::attention_decode_cudnn("a", 4, 28, 28, 4136, 128, DType::bf16, DType::bf16);
  CHECK(price(q4, r, Impl::fused).memory_time_s == test::approx(q4.bytes() / (4509.4e9 * 112 / 132)).epsilon(1e-6));
}

TEST_CASE("cuDNN decode kernel cases: fitted on the even ones, the odd ones held out") {
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-production/kernels.json", m);
  const Roofs r = make_roofs(test::catalogue().card("h200"), &h200_calibration(), Impl::compiled);
  std::vector<double> held, fit;
  for (const MeasuredCase& c : m.cases) {
    if (c.implementation != "torch.sdpa.cudnn" || c.kernel.kernel != KernelId::attention_decode) continue;
    const KernelCase& k = c.kernel;
    const Op op = ops::attention_decode_cudnn(k.name, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim, k.dtype, k.dtype);
    const double e = std::fabs(price(op, r, Impl::fused).time_s / c.measured_s - 1);
    (c.index % 2 == 1 ? held : fit).push_back(e);
  }
  REQUIRE(held.size() == 10);
  REQUIRE(fit.size() == 10);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.035);
  CHECK(quantile(fit, 0.5) <= 0.035);
}

TEST_CASE("compiled steps count the per-step kernels Inductor and the cudagraph tree launch") {
  for (const StepError& e : step_errors()) {
    CAPTURE(e.index);
    // Still fewer than measured: cuBLAS's splitKreduce kernels, cuDNN's lean_reduction and the
    // profiler's memcpy/memset records are priced in time or not modelled (README).
    CHECK(e.launches < e.measured_kernels);
    CHECK(e.launches >= 0.7 * e.measured_kernels);
  }
}
