// W8A16 as PyTorch runs it on a GPU (issue 12; validation/results/h200-int8-compiled): torchao's and
// gpt-fast's int8 weight-only linear, F.linear(x, w_int8.to(bf16)) * scale, uncompiled and under
// PyTorch 2.11's Inductor with its default config: the weight's bf16 copy, cuBLASLt's bf16 GEMM, the
// scale (torch_quantized_linear, quant_lowering.cpp). Nothing of it is fitted: the copy is a stream
// kernel, the GEMM is the bf16 GEMM reading what L2 keeps of the copy, the scale a pointwise kernel.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>
#include <fstream>
#include <string>
#include <nlohmann/json.hpp>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/quant.hpp"
#include "quant_stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

Workload w8a16(Impl impl) {
  Workload w;
  w.impl = impl;
  w.weight_dtype = DType::int8;
  w.act_dtype = DType::bf16;
  return w;
}

// Each call's kernels (torch.profiler durations) against their prices: `impl`'s W8A16 calls, the
// Qwen2.5-7B shapes' alone with `held_out_only` (int8_cast_elements_per_s is fitted on the Llama-3-8B ones).
std::vector<double> w8a16_errors(const std::string& file, Impl impl, bool held_out_only = false) {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs roofs = make_roofs(card, &cal, impl);
  std::ifstream in(test::root() + "/validation/results/h200-int8-compiled/" + file);
  REQUIRE(in.good());
  std::vector<double> errs;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json c = nlohmann::json::parse(line);
    if (c["kind"] != "case" || c["implementation"].get<std::string>().find("_w8a16") == std::string::npos) continue;
    if (held_out_only && c["name"].get<std::string>().find("_q2_") == std::string::npos) continue;
    REQUIRE(c["ok"].get<bool>());
    const std::vector<Op> k = torch_quantized_linear("gemm", c["m"], c["n"], c["k"], w8a16(impl), false, impl);
    REQUIRE(k.size() == 3);
    REQUIRE(c["kernels"].size() == 3 + (c["kernels"][2]["name"].get<std::string>().find("splitKreduce") != std::string::npos));
    double predicted = 0, measured = 0;
    for (const Op& op : k) predicted += price(op, roofs, Impl::fused).time_s;
    for (const auto& kernel : c["kernels"]) measured += kernel["dur_us"].get<double>() * 1e-6;
    CAPTURE(c["name"].get<std::string>());
    const double e = predicted / measured - 1;
    CHECK(std::isfinite(e));
    errs.push_back(e);
  }
  REQUIRE(errs.size() == (held_out_only ? 10u : 30u));
  return errs;
}

std::vector<double> abs_of(std::vector<double> v) {
  for (double& x : v) x = std::fabs(x);
  return v;
}

}  // namespace

TEST_CASE("compiled W8A16: the bf16 copy, the bf16 GEMM and the scale, against 30 measured calls (held out)") {
  const std::vector<double> e = w8a16_errors("int8wo_compiled.jsonl", Impl::compiled);
  for (double x : e) CHECK(std::fabs(x) <= 0.12);  // -3.8 to +11.0 %
  const quant_test::Stats s = quant_test::stats(abs_of(e));
  CAPTURE(s.median);
  CAPTURE(s.p90);
  double worst = 0;
  for (double x : e) worst = std::max(worst, std::fabs(x));
  MESSAGE("w8a16_compiled: n=" << e.size() << " median " << s.median * 100 << " % p90 " << s.p90 * 100 << " % worst "
                               << worst * 100 << " %");
  CHECK(s.median <= 0.05);  // 4.4 % (issue 12's target: 8 %)
  CHECK(s.p90 <= 0.09);     // 8.4 % (target 20 %)
}

// Branch castcopy: the compiled copy alone (triton_poi_fused__to_copy_0), priced as the test above
// prices it, against its profiled duration in each of the 30 compiled calls. A 1:2 read:write stream:
// 3.8-4.2 TB/s of traffic measured (4.17 at 28672 x 4096, 84.5 us). Reads and writes added at their own
// rates (4658 / 3432 GB/s) priced it +9.3 to +16.7 % in every call (median +13.5 %: branch compblock,
// guard (c)); one bus with the minority direction paying the turnaround (stream_rate.hpp) prices it at
// 2:1's rate (opt-in: the calibration's stream_one_bus). Nothing fitted on these calls: the law's two
// rates are the calibration's copy and add.
TEST_CASE("compiled W8A16: the int8 -> bf16 weight copy streams at the mixed rate (30 calls, held out)") {
  const Card card = test::catalogue().card("h200");
  // The opt-in: main's calibration and stream_one_bus (validation/results/h200-castcopy).
  const Calibration cal = load_calibration(test::root() + "/validation/results/h200-castcopy/castcopy.calibration.yaml");
  const Roofs roofs = make_roofs(card, &cal, Impl::compiled);
  REQUIRE(roofs.stream_one_bus);
  std::ifstream in(test::root() + "/validation/results/h200-int8-compiled/int8wo_compiled.jsonl");
  REQUIRE(in.good());
  std::vector<double> errs;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json c = nlohmann::json::parse(line);
    if (c["kind"] != "case" || c["implementation"] != "compiled_w8a16") continue;
    const std::vector<Op> k = torch_quantized_linear("gemm", c["m"], c["n"], c["k"], w8a16(Impl::compiled), false,
                                                     Impl::compiled);
    double measured = 0;
    for (const auto& kernel : c["kernels"])
      if (kernel["name"].get<std::string>().find("to_copy") != std::string::npos) measured = kernel["dur_us"].get<double>() * 1e-6;
    REQUIRE(measured > 0);
    CHECK(k[0].bytes_written == doctest::Approx(2 * k[0].bytes_read));  // int8 in, bf16 out
    const double e = price(k[0], roofs, Impl::fused).time_s / measured - 1;
    CAPTURE(c["name"].get<std::string>());
    // The default compiled profile's floor holds the harness's idle after a kernel (no harness_idle
    // key), which the profiled duration does not: +0.4 to +10.0 % (was +10.9 to +20.4 %); with
    // h200-compblock's calibration (harness_idle 0.46 us) -0.5 to +6.2 % (was +9.3 to +16.7 %).
    CHECK(std::fabs(e) <= 0.105);
    // Past 100 MB of traffic the fixed costs are under 3 % and the stream's rate shows: +0.4 to +4.9 %
    // (the reads-plus-writes sum: +11 to +15 %).
    if (k[0].bytes() > 100e6) CHECK(std::fabs(e) <= 0.05);
    errs.push_back(e);
  }
  REQUIRE(errs.size() == 30u);
  const quant_test::Stats s = quant_test::stats(abs_of(errs));
  MESSAGE("w8a16_copy: n=" << errs.size() << " median " << s.median * 100 << " % p90 " << s.p90 * 100 << " % (signed "
                           << *std::min_element(errs.begin(), errs.end()) * 100 << " to "
                           << *std::max_element(errs.begin(), errs.end()) * 100 << " %)");
  CHECK(s.median <= 0.06);  // 4.8 % (was 15.3 %); 3.0 % with h200-compblock's calibration (was 13.5 %)
}

TEST_CASE("eager W8A16 (torchao on a GPU): ATen's non-vectorized conversion, the GEMM, the scale") {
  // The conversion at int8_cast_elements_per_s (fit_int8_cast.py, on the Llama-3-8B calls); at the
  // fp8 KV copy's cast rate (3.41e11) every call was +7 to +17 % (10.1 % median).
  const std::vector<double> held = w8a16_errors("int8wo_eager.jsonl", Impl::eager, true);
  for (double x : held) CHECK(std::fabs(x) <= 0.08);  // -3.2 to +6.4 %
  const quant_test::Stats s = quant_test::stats(abs_of(held));
  CAPTURE(s.median);
  CAPTURE(s.p90);
  CHECK(s.median <= 0.04);  // 3.0 % held out (issue 12's target: 8 %)
  CHECK(s.p90 <= 0.07);     // 6.2 %
  const quant_test::Stats all = quant_test::stats(abs_of(w8a16_errors("int8wo_eager.jsonl", Impl::eager)));
  CHECK(all.median <= 0.03);  // 2.2 %, the fitted shapes' calls included
}

TEST_CASE("a compiled W8A16 decode step is slower than bf16 (the copy re-reads and re-writes every weight)") {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Model m = test::catalogue().model("llama3-8b");
  auto step = [&](Impl impl, bool int8) {
    Workload w = int8 ? w8a16(impl) : Workload{};
    w.impl = impl;
    w.phase = Phase::decode;
    w.batch = 1;
    w.ctx = 1024;
    return evaluate(m, w, card, &cal);
  };
  const Evaluation bf16 = step(Impl::compiled, false), int8 = step(Impl::compiled, true);
  // Measured per linear at M = 1: 1.96-2.76x the bf16 F.linear (h200-int8-compiled).
  const double ratio = int8.cost.device_time_s / bf16.cost.device_time_s;
  CHECK(ratio > 1.5);
  CHECK(ratio < 2.8);
  int copies = 0;
  for (const Op& op : int8.step.ops) copies += op.name.find(".weight_to_bf16") != std::string::npos;
  CHECK(copies == 7);  // q, k, v, o, gate, up, down: one nn.Linear each
}
