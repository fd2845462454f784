// 1x128-group dynamic FP8 activation quantization as PyTorch runs it (issue 12, branch group16):
// validation/results/h200-quant2's act_quant group cases (K = 4096 / 14336, M = 1..4096) and
// validation/results/h200-group16's (K = 3584 / 5120 / 18944, measured after the forms were read
// from the kernel names, nothing of them fitted), priced as the eager profile's ATen kernels and
// the compiled profile's Inductor kernels (lib/src/quant/act_quant_group_forms.cpp). The one fitted
// figure (the indexed copy's instructions an element) was fitted on K = 4096 (h200-group16's
// kernel_split.json, validation/scripts/quant/fit_act_quant_group.py); every other width is held out.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "perfmodel/act_quant_forms.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/price.hpp"
#include "quant_stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

using quant_test::Stats;
using quant_test::stats;

// Held out, before -> after (this suite): compiled 79.1 % / 83.2 % (h200-quant2's 10 compiled cases
// priced as vLLM's one kernel on the card's roofs, tests/test_quant_accuracy.cpp's act_quant_group;
// 50.0 % / 57.0 % on these 20 with the compiled profile's roofs: "compiled_before") -> 21.7 % / 42.1 %
// (branch group16: 20 cases, 18-48 % under at <= 128 rows, 6.3 % / 13.6 % from 1024 rows up) ->
// 7.7 % / 11.5 % (branch group17: the autotuned blocks' lone warps, lib/src/cost/inductor_lone_warp.cpp;
// <= 128 rows 35.4 % / 42.1 % -> 9.5 % / 11.5 %, 1024 rows up 3.5 % / 6.2 %); eager 91.1 % / 94.2 % (the fused profile's
// one kernel: "eager_before") -> 9.0 % / 19.4 % (25 cases: nothing fitted, every width held out) ->
// 3.4 % / 8.8 % (branch actqeager: the tiny ATen kernels' store drain, the chain's L2 hits, the group
// amax's waves streaming their bytes; still nothing fitted). Guarded at today's level.
constexpr double GROUP_COMPILED_MEDIAN = 0.08, GROUP_COMPILED_P90 = 0.12, GROUP_EAGER_MEDIAN = 0.04, GROUP_EAGER_P90 = 0.09;
constexpr double GROUP_COMPILED_LARGE_MEDIAN = 0.04, GROUP_COMPILED_LARGE_P90 = 0.07;
constexpr double GROUP_COMPILED_SMALL_MEDIAN = 0.10, GROUP_COMPILED_SMALL_P90 = 0.12;

// Absolute errors by set: "compiled_fit" (K = 4096), "compiled" (every other width: held out),
// "eager" (every case: the eager forms fit nothing), "eager_k4096",
// "<impl>_quant2" / "<impl>_new" (the held-out part of each file), "<impl>_large" (held out, 1024
// rows and more), "static" (h200-group16's
// dynamic=False compiles, priced as dynamic=True's kernels: one fused kernel there, not modelled).
std::map<std::string, std::vector<double>> errors() {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  // Single-call harness times: the floors as fitted on such times (test_act_quant_accuracy.cpp).
  Roofs eager = make_roofs(card, &cal, Impl::eager), compiled = make_roofs(card, &cal, Impl::compiled);
  eager.harness_idle_s = 0;
  compiled.harness_idle_s = 0;
  std::map<std::string, std::vector<double>> out;
  for (const char* file : {"/validation/results/h200-quant2/quant2.json", "/validation/results/h200-group16/group16.json"}) {
    const bool fresh = std::string(file).find("group16") != std::string::npos;
    std::ifstream f(test::root() + file);
    REQUIRE(f.good());
    const nlohmann::json doc = nlohmann::json::parse(f);
    for (const auto& c : doc.at("cases")) {
      if (c.at("kernel") != "act_quant" || c.at("scaling") != "group") continue;
      if (!c.value("ok", false) || !c.value("correct", false)) continue;
      const bool compile = c.at("implementation") == "torch.compile";
      const bool fixed_shape = c.value("compile", "") == "static";
      ActQuantCall call;
      call.m = c.at("m");
      call.k = c.at("k");
      call.scaling = Scaling::block;
      call.dynamic = true;
      call.torch_ops = true;  // the measured functions quantize in torch ops
      call.dynamic_shapes = compile && !fixed_shape;
      const Roofs& r = compile ? compiled : eager;
      KernelCase kc;
      kc.rotated_bytes = c.value("rotated_bytes", 0.0);
      const double hit = harness_l2_hit(kc, r.l2_cyclic_capacity);
      double t = 0;
      int launches = 0;
      for (Op& op : act_quant_kernels("q", call, compile ? Impl::compiled : Impl::eager)) {
        // The eager chains mark a kernel that reads what the call just wrote (l2_hit 1, price() keeps
        // what the L2 holds; branch actqeager): the larger of that and the harness's rotation.
        // ACTQEAGER_OFF=1 (diagnostic): no chain hits, no store drain (the amax's wave stream stays).
        op.l2_hit = std::getenv("ACTQEAGER_OFF") ? hit : std::max(op.l2_hit, hit);
        if (std::getenv("ACTQEAGER_OFF")) op.store_drain = false;
        const double op_s = price(op, r, Impl::fused).time_s;
        t += op_s;
        launches += op.launches;
        if (std::getenv("GROUP_DEBUG_OPS")) MESSAGE(op.name << " " << op_s * 1e6 << " us");
      }
      const double measured = c.at("measured_s");
      REQUIRE(measured > 0);
      const double err = std::fabs(t / measured - 1);
      // Before this branch: the serving engine's one kernel (the fused form) stood in, on the same roofs.
      double before = 0;
      for (Op& op : act_quant_kernels("q", call, Impl::fused)) {
        op.l2_hit = hit;
        before += price(op, r, Impl::fused).time_s;
      }
      const std::string impl = compile ? "compiled" : "eager";
      if (fixed_shape) {
        out["static"].push_back(err);
      } else {
        // The forms launch what the profiler saw.
        CHECK_MESSAGE(launches == c.at("kernels_per_launch").get<int>(), c.at("name").get<std::string>());
        // The eager forms fit nothing: every width is held out there ("eager_k4096" names the
        // compiled fit width's part).
        if (call.k == 4096) out[impl + (compile ? "_fit" : "_k4096")].push_back(err);
        if (call.k != 4096 || !compile) {
          out[impl].push_back(err);
          out[impl + (fresh ? "_new" : "_quant2")].push_back(err);
          if (call.m >= 1024) out[impl + "_large"].push_back(err);  // the grid fills the card many times
          if (call.m <= 128) out[impl + "_small"].push_back(err);   // one CTA an SM or fewer: the lone warps
          out[impl + "_before"].push_back(std::fabs(before / measured - 1));
        }
      }
      if (std::getenv("GROUP_DEBUG"))
        MESSAGE(c.at("name").get<std::string>() << std::string(fixed_shape ? " (static)" : "") << " pred " << t * 1e6 << " meas "
                                                << measured * 1e6 << " err " << 100 * (t / measured - 1) << " %");
    }
  }
  return out;
}

const std::map<std::string, std::vector<double>>& errs() {
  static const auto e = errors();
  return e;
}

Stats report(const std::string& set) {
  const Stats s = stats(errs().at(set));
  MESSAGE(set << ": n=" << s.n << " median " << 100 * s.median << " % p90 " << 100 * s.p90 << " %");
  return s;
}

}  // namespace

TEST_CASE("1x128-group FP8 activation quantization: report") {
  for (const char* set : {"compiled_fit", "compiled_quant2", "compiled_new", "eager_k4096", "eager_quant2", "eager_new"})
    report(set);
  // h200-group16's per-shape compiles run one fused persistent kernel (the reshape proven a view):
  // priced as dynamic=True's three, reported only.
  CHECK(report("static").n == 15);
}

TEST_CASE("1x128-group FP8 activation quantization, held out: compiled (Inductor) and eager (ATen) kernels") {
  const Stats compiled = report("compiled"), eager = report("eager");
  CHECK(compiled.n == 20);  // K 14336 of h200-quant2 (5), K 3584 / 5120 / 18944 of h200-group16 (15)
  CHECK(eager.n == 25);  // nothing fitted: K 4096 too
  CHECK(compiled.median <= GROUP_COMPILED_MEDIAN);
  CHECK(compiled.p90 <= GROUP_COMPILED_P90);
  CHECK(eager.median <= GROUP_EAGER_MEDIAN);
  CHECK(eager.p90 <= GROUP_EAGER_P90);
  // From 1024 rows up the three kernels are the stream and the indexed copy's issue, as priced.
  const Stats large = report("compiled_large");
  CHECK(large.n == 8);
  CHECK(large.median <= GROUP_COMPILED_LARGE_MEDIAN);
  CHECK(large.p90 <= GROUP_COMPILED_LARGE_P90);
  // Up to 128 rows the autotuned blocks leave the warps alone on their schedulers (branch group17);
  // h200-quant2's one-row calls, shorter than h200-group16's profiled kernels of the same graph, are
  // the worst (+61 % at K 14336).
  const Stats small = report("compiled_small");
  CHECK(small.n == 12);
  CHECK(small.median <= GROUP_COMPILED_SMALL_MEDIAN);
  CHECK(small.p90 <= GROUP_COMPILED_SMALL_P90);
  report("eager_large");
  // The same cases priced as the fused form (what act_quant_kernels gave every profile before).
  CHECK(report("compiled_before").median > compiled.median);
  CHECK(report("eager_before").median > eager.median);
}

// The group quantization's thread chain (lib/src/cost/inductor_lone_warp.cpp, branch group17) is
// fitted on the kernel alone at the fit width only: h200-group16/kernel_split.json's K = 4096
// dynamic=True kernel at 16 and 128 rows (one CTA an SM or less, where the chain is the kernel),
// each kernel's profiled time plus the GPU idle an isolated graph replay holds after a kernel
// (the eager block's harness_idle, 0.46 us, measured on h200-gemm-chain: the floor priced here
// holds it) less its price without the chain; the median over the two. The figure in the .cpp must
// be that fit's; every other width, and every whole call, is held out of it.
TEST_CASE("1x128-group FP8 activation quantization: the group kernel's chain is K = 4096's fit") {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  Roofs r = make_roofs(card, &cal, Impl::compiled);
  r.harness_idle_s = 0;
  const double idle = make_roofs(card, &cal, Impl::eager).harness_idle_s;
  REQUIRE(idle > 0);
  std::ifstream f(test::root() + "/validation/results/h200-group16/kernel_split.json");
  REQUIRE(f.good());
  const nlohmann::json doc = nlohmann::json::parse(f);
  std::vector<double> fitted, priced_chain;
  for (const auto& row : doc.at("rows")) {
    if (row.at("impl") != "compile" || row.value("compile", "") != "dynamic" || row.at("k") != 4096) continue;
    const int64_t m = row.at("m");
    if (m != 16 && m != 128) continue;
    ActQuantCall call;
    call.m = m;
    call.k = 4096;
    call.scaling = Scaling::block;
    call.dynamic = true;
    call.torch_ops = true;
    call.dynamic_shapes = true;
    Op with = act_quant_kernels("q", call, Impl::compiled).at(0);
    KernelCase kc;
    kc.rotated_bytes = row.at("sets").get<double>() * with.bytes();
    with.l2_hit = harness_l2_hit(kc, r.l2_cyclic_capacity);
    Op without = with;
    without.inductor_block = 0;  // the chain off
    const double measured = row.at("kernels").at(0).at("median_us").get<double>() * 1e-6;
    const double bare = price(without, r, Impl::fused).time_s;
    fitted.push_back(measured + idle - bare);
    priced_chain.push_back(price(with, r, Impl::fused).time_s - bare);
  }
  REQUIRE(fitted.size() == 2);
  const double fit = 0.5 * (fitted[0] + fitted[1]);
  MESSAGE("group quant chain: fitted " << fit * 1e6 << " us (" << fitted[0] * 1e6 << ", " << fitted[1] * 1e6
                                       << "), priced " << priced_chain[0] * 1e6 << " us");
  CHECK(std::fabs(priced_chain[1] / priced_chain[0] - 1) < 1e-9);  // a chain, whatever the rows
  CHECK(std::fabs(priced_chain[0] / fit - 1) < 0.01);
}

TEST_CASE("1x128-group FP8 activation quantization forms: each profile's kernels") {
  ActQuantCall c;
  c.m = 16;
  c.k = 4096;
  c.scaling = Scaling::block;
  // The profiles' default: one quantization kernel (transformers' Triton act_quant, vLLM's kernel).
  for (Impl impl : {Impl::fused, Impl::eager, Impl::compiled}) CHECK(act_quant_kernels("q", c, impl).size() == 1);
  c.torch_ops = true;
  c.dynamic_shapes = true;
  // fused: the serving engine's one kernel.
  CHECK(act_quant_kernels("q", c, Impl::fused).size() == 1);
  // eager: 9 ATen kernels, the last the column-major scale copy; one row skips it.
  CHECK(act_quant_kernels("q", c, Impl::eager).size() == 9);
  // compiled: the group reduction that quantizes, the reshape's indexed copy, the transposed scales.
  const std::vector<Op> compiled = act_quant_kernels("q", c, Impl::compiled);
  REQUIRE(compiled.size() == 3);
  CHECK(compiled[1].instructions > 0);  // issue-bound: two 64-bit divisions an element
  c.m = 1;
  CHECK(act_quant_kernels("q", c, Impl::eager).size() == 8);
  CHECK(act_quant_kernels("q", c, Impl::compiled).size() == 2);
}

// Branch actqeager: the eager chain's ATen vectorized kernels and its reduce_kernel drain their stores
// (Op::store_drain, an L2 round trip beyond the floor and the load's round trip). Checked per kernel
// on what the profiler saw, not on whole calls: h200-group16/kernel_split.json's eager one-row calls
// (every width; L2-resident), each drained kernel's profiled median plus the idle a graph replay
// holds after a kernel (the eager block's harness_idle, 0.46 us, measured on h200-gemm-chain, which
// the priced floor holds) against its price: 7-12 % under with the drain (9.42-9.48 us against
// 10.12-10.76), 33-37 % under without it (about 0.5 us a kernel); nothing here is fitted.
TEST_CASE("1x128-group FP8 activation quantization, eager: the tiny ATen kernels drain their stores") {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  Roofs r = make_roofs(card, &cal, Impl::eager);
  const double idle = r.harness_idle_s;
  REQUIRE(idle > 0);
  r.harness_idle_s = 0;
  std::ifstream f(test::root() + "/validation/results/h200-group16/kernel_split.json");
  REQUIRE(f.good());
  const nlohmann::json doc = nlohmann::json::parse(f);
  int rows_seen = 0;
  for (const auto& row : doc.at("rows")) {
    if (row.at("impl") != "eager" || row.at("m") != 1) continue;
    ++rows_seen;
    ActQuantCall call;
    call.m = 1;
    call.k = row.at("k");
    call.scaling = Scaling::block;
    call.dynamic = true;
    call.torch_ops = true;
    // The profiled kernels in launch order: x.float(), abs, amax, clamp (the scales' and the values',
    // one median over both launches), * 1/448, g / s, .to(fp8).
    const auto& k = row.at("kernels");
    REQUIRE(k.size() == 7);
    auto us = [&](size_t i) { return k.at(i).at("median_us").get<double>() * 1e-6; };
    const double measured = us(1) + us(2) + 2 * us(3) + us(4) + us(6) + 6 * idle;
    double priced = 0, bare = 0;
    int drained = 0;
    for (Op op : act_quant_kernels("q", call, Impl::eager)) {
      if (!op.store_drain) continue;
      ++drained;
      op.l2_hit = 1;  // one row: 200 sets of 8-28 KiB, L2-resident
      priced += price(op, r, Impl::fused).time_s;
      op.store_drain = false;
      bare += price(op, r, Impl::fused).time_s;
    }
    CAPTURE(call.k);
    MESSAGE("k " << call.k << ": drained kernels priced " << priced * 1e6 << " us (" << bare * 1e6
                 << " without the drain), profiled + idle " << measured * 1e6 << " us");
    CHECK(drained == 6);  // abs, amax, the scales' clamp and multiply, clamp, .to(fp8)
    CHECK(std::fabs(priced / measured - 1) < 0.15);
    CHECK(bare / measured - 1 < -0.25);
  }
  CHECK(rows_seen == 5);
}
