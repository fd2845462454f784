// Activation quantization as each profile runs it (issue 12): h200-quant's act_quant cases (bf16
// M x K to fp8, K = 4096 / 8192 / 14336, M = 1..4096; per-tensor dynamic, per-token dynamic,
// per-tensor static) priced as the compiled profile's Inductor kernels (torch.compile cases) and
// the eager profile's ATen kernels (torch.eager cases), act_quant_forms.cpp. The dynamic-shape
// sweep's share (act_quant_cost.cpp) was fitted on K = 4096 and 14336; K = 8192 is held out. The
// static-shape shares were fitted on h200-actq15's K = 3584 and 18944; its K = 5120 is held out.
// Branch actq17's scalar partials share was fitted on h200-quant's K = 4096 and 14336 (K = 8192 held
// out) and its static walk shares on K = 3584 and 18944 (validation/scripts/act_quant/fit_act_quant17.py,
// which reads the kernels this test prints under ACTQ_OPS=1 ACTQ_DEBUG=1).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <tuple>
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

// Absolute errors by set: "<impl>_<scaling>_<mode>" for K = 8192 (held out), "..._fit" else;
// "new_<impl>..." for validation/results/h200-actq15 (K = 3584, 5120, 18944, measured after
// actq14's model was fixed; its compiled cases compiled per shape, dynamic=False: the static
// forms, whose two shares were fitted on its K = 3584 and 18944 cases, "new_compiled_fit"; K = 5120
// held out, "new_compiled_held"). h200-quant's compiled cases ran under dynamic=True: masked
// accesses, split counts from the shape of the graph's first call.
std::map<std::string, std::vector<double>> errors() {
  const Card card = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  // Single-call harness times: the floors as fitted on such times (profile_accuracy.cpp as_fitted).
  Roofs eager = make_roofs(card, &cal, Impl::eager), compiled = make_roofs(card, &cal, Impl::compiled);
  eager.harness_idle_s = 0;
  compiled.harness_idle_s = 0;
  std::map<std::string, std::vector<double>> out;
  for (const char* file : {"/validation/results/h200-quant/quant-1.json", "/validation/results/h200-actq15/act_quant_static.json"}) {
  const bool fresh = std::string(file).find("actq15") != std::string::npos;
  std::ifstream f(test::root() + file);
  REQUIRE(f.good());
  const nlohmann::json doc = nlohmann::json::parse(f);
  // torch.compile(dynamic=True) compiles one graph per mode for one row (a size of 1 is
  // specialized) and one for more, each at its first call in the file's order (quant_gemm.py runs
  // the cases in order): that call's elements fix the split count of the per-tensor reduction.
  std::map<std::string, std::pair<int64_t, int64_t>> compiled_for;
  for (const auto& c : doc.at("cases")) {
    if (c.at("kernel") != "act_quant" || !c.value("ok", false) || !c.value("correct", false)) continue;
    const std::string impl = c.at("implementation") == "torch.compile" ? "compiled" : "eager";
    const std::string scaling = c.at("scaling"), mode = c.at("act_quant");
    ActQuantCall call;
    call.m = c.at("m");
    call.k = c.at("k");
    call.scaling = scaling == "row" ? Scaling::row : Scaling::tensor;
    call.dynamic = mode == "dynamic";
    const std::string key = scaling + "_" + mode, graph = key + (call.m == 1 ? "_one_row" : "");
    if (impl == "compiled" && !compiled_for.count(graph)) compiled_for[graph] = {call.m, call.k};
    if (impl == "compiled" && !fresh) {  // h200-quant: dynamic=True, hints from the graph's first call
      call.dynamic_shapes = true;
      std::tie(call.compiled_m, call.compiled_k) = compiled_for.at(graph);
    }
    const Roofs& r = impl == "compiled" ? compiled : eager;
    KernelCase kc;
    kc.rotated_bytes = c.value("rotated_bytes", 0.0);
    const double hit = harness_l2_hit(kc, r.l2_cyclic_capacity);
    double t = 0;
    int launches = 0;
    for (Op& op : act_quant_kernels("q", call, impl == "compiled" ? Impl::compiled : Impl::eager)) {
      // The eager chains mark a kernel that reads what the call just wrote (l2_hit 1, price() keeps
      // what the L2 holds; branch actqeager): the larger of that and the harness's rotation.
      // ACTQEAGER_OFF=1 (diagnostic): no chain hits, no store drain (the amax's wave stream stays).
      op.l2_hit = std::getenv("ACTQEAGER_OFF") ? hit : std::max(op.l2_hit, hit);
      if (std::getenv("ACTQEAGER_OFF")) op.store_drain = false;
      const OpCost oc = price(op, r, Impl::fused);
      t += oc.time_s;
      if (std::getenv("ACTQ_OPS"))
        MESSAGE(c.at("name").get<std::string>() << " op " << op.name << " rows " << op.rows << " cols " << op.cols
                                                << " strided " << op.strided << " hit " << op.l2_hit << " fixed "
                                                << oc.overhead_time_s * 1e6 << " compute " << oc.compute_time_s * 1e6
                                                << " memory " << oc.memory_time_s * 1e6);
      launches += op.launches;
    }
    // The forms launch what the profiler saw (the Memset of a split whole-tensor amax included).
    CHECK_MESSAGE(launches == c.at("kernels_per_launch").get<int>(), c.at("name").get<std::string>());
    const double measured = c.at("measured_s");
    REQUIRE(measured > 0);
    const std::string prefix = fresh ? "new_" : "", suffix = fresh || call.k == 8192 ? "" : "_fit";
    out[prefix + impl + "_" + key + suffix].push_back(std::fabs(t / measured - 1));
    out[prefix + impl + suffix].push_back(std::fabs(t / measured - 1));
    // h200-actq15's static compiles: K = 3584 and 18944 fitted the two static-shape shares
    // (act_quant_cost.cpp), K = 5120 held out.
    if (fresh) out[prefix + impl + (call.k == 5120 ? "_held" : "_fit")].push_back(std::fabs(t / measured - 1));
    if (std::getenv("ACTQ_DEBUG"))
      MESSAGE(c.at("name").get<std::string>() << " pred " << t * 1e6 << " meas " << measured * 1e6 << " err "
                                              << 100 * (t / measured - 1) << " %");
  }
  }
  return out;
}

const std::map<std::string, std::vector<double>>& errs() {
  static const auto e = errors();
  return e;
}

// Held out (K = 8192), before -> after: compiled 61.8 % / 97.1 % (h200-quant's 45 compiled cases
// priced as vLLM's kernels) -> 8.1 % / 13.2 % (15 cases); eager 93.9 % / 95.1 % (perfmodel accuracy:
// the one act_quant op, fp8 as the input's dtype) -> 6.0 % / 18.3 %. Branch actq17 (whole waves, no
// second-sweep block in the split partials, their scalar walk 1.12 round trips a block, fitted on
// K = 4096 / 14336): compiled 8.1 % / 13.2 % -> 3.1 % / 13.2 %. Branch actqeager (the eager chain's
// ATen vectorized kernels and amax drain their stores, a kernel reading what the call just wrote finds
// it in L2, the amax's rounds stream their wave's bytes; nothing fitted): eager 6.0 % / 18.3 % ->
// 5.0 % / 9.2 %. Guarded at today's level.
constexpr double COMPILED_MEDIAN = 0.04, COMPILED_P90 = 0.14, EAGER_MEDIAN = 0.06, EAGER_P90 = 0.10;
// h200-actq15's static compiles (branch actq16): K = 5120 held out, and all 45 cases. Branch actq17
// (whole waves, the partials' own walk, the shares on the DRAM part of a block, refitted on K = 3584 /
// 18944): held out 10.5 % / 13.4 % -> 6.9 % / 13.8 %, all 10.1 % / 20.7 % -> 7.1 % / 15.5 %.
constexpr double NEW_HELD_MEDIAN = 0.08, NEW_HELD_P90 = 0.14, NEW_ALL_MEDIAN = 0.08, NEW_ALL_P90 = 0.16;

Stats report(const std::string& set) {
  const Stats s = stats(errs().at(set));
  MESSAGE(set << ": n=" << s.n << " median " << 100 * s.median << " % p90 " << 100 * s.p90 << " %");
  return s;
}

}  // namespace

TEST_CASE("activation quantization per profile: report") {
  for (const char* impl : {"compiled", "eager"})
    for (const char* key : {"tensor_dynamic", "row_dynamic", "tensor_static"}) {
      report(std::string(impl) + "_" + key + "_fit");
      report(std::string(impl) + "_" + key);
    }
  report("compiled_fit");
  report("eager_fit");
  report("new_compiled_fit");
  report("new_compiled_held");
  for (const char* impl : {"new_compiled", "new_eager"}) {
    report(impl);
    for (const char* key : {"tensor_dynamic", "row_dynamic", "tensor_static"}) report(std::string(impl) + "_" + key);
  }
}

TEST_CASE("activation quantization, K = 8192 held out: compiled (Inductor) and eager (ATen) kernels") {
  const Stats compiled = report("compiled"), eager = report("eager");
  CHECK(compiled.n == 15);
  CHECK(eager.n == 15);
  CHECK(compiled.median <= COMPILED_MEDIAN);
  CHECK(compiled.p90 <= COMPILED_P90);
  CHECK(eager.median <= EAGER_MEDIAN);
  CHECK(eager.p90 <= EAGER_P90);
  // Per class (5 cases each: M = 1, 16, 128, 1024, 4096), at today's level: median, p90.
  const std::map<std::string, std::pair<double, double>> bounds{
      {"compiled_tensor_dynamic", {0.05, 0.12}}, {"compiled_row_dynamic", {0.10, 0.14}},
      {"compiled_tensor_static", {0.04, 0.04}},  {"eager_tensor_dynamic", {0.04, 0.09}},
      {"eager_row_dynamic", {0.06, 0.09}},       {"eager_tensor_static", {0.09, 0.09}}};
  for (const auto& [set, bound] : bounds) {
    const Stats s = stats(errs().at(set));
    CAPTURE(set);
    CHECK(s.n == 5);
    CHECK(s.median <= bound.first);
    CHECK(s.p90 <= bound.second);
  }
}

// validation/results/h200-actq15: K = 3584, 5120, 18944. Eager's ATen chains hold (nothing fitted
// on them): 7.5 % / 22.9 % (45 cases; the one-row and 16-row calls 15-29 % under, as in
// h200-quant) -> 4.2 % / 17.5 % (branch actqeager: the store drain, the chain's L2 hits, the amax's
// wave streams; left: the static chain at 16 x 3584-5120 -22..-24 %, one row of 18944 -17..-22 %). The compiled cases, compiled per shape (dynamic=False), priced as the static forms
// (branch actq16): before, as dynamic=True's kernels, 31.7 % / 50.0 % with three kernel-count
// misses; now every case's kernel count matches (checked above) and K = 5120, held out from the
// two static shares' fit, is guarded at today's level, the fit half and the whole set beside it.
TEST_CASE("activation quantization, h200-actq15's new widths: eager and static-shape compiles") {
  const Stats eager = report("new_eager"), compiled = report("new_compiled");
  const Stats held = report("new_compiled_held"), fit = report("new_compiled_fit");
  CHECK(eager.n == 45);
  CHECK(compiled.n == 45);
  CHECK(held.n == 15);
  CHECK(fit.n == 30);
  CHECK(eager.median <= 0.05);
  CHECK(eager.p90 <= 0.18);
  CHECK(held.median <= NEW_HELD_MEDIAN);
  CHECK(held.p90 <= NEW_HELD_P90);
  CHECK(compiled.median <= NEW_ALL_MEDIAN);
  CHECK(compiled.p90 <= NEW_ALL_P90);
}

TEST_CASE("activation quantization forms: each profile's kernels") {
  ActQuantCall c;
  c.m = 16;
  c.k = 4096;
  // fused: vLLM's amax kernel then its quantization kernel; per token one kernel.
  CHECK(act_quant_kernels("q", c, Impl::fused).size() == 2);
  // eager: 9 ATen kernels dynamic, 4 static.
  CHECK(act_quant_kernels("q", c, Impl::eager).size() == 9);
  // Branch actqeager: the vectorized kernels (abs, the scales' clamp and multiply, clamp, .to(fp8)) and
  // the amax drain their stores; the generic and unrolled kernels (ATen's strided floor, fitted on
  // harness times) do not. Every kernel after abs but the amax reads what the call just touched.
  {
    const std::vector<Op> eager = act_quant_kernels("q", c, Impl::eager);
    int drained = 0, chained = 0;
    for (const Op& op : eager) {
      drained += op.store_drain;
      chained += op.l2_hit == 1;
      CHECK_FALSE((op.store_drain && op.strided));
    }
    CHECK(drained == 6);
    CHECK(chained == 7);
    CHECK(eager[0].l2_hit == 0);              // abs reads x: the caller's first touch
    CHECK(eager[1].kernel == KernelId::act_amax);
    CHECK(eager[1].l2_hit == 0);              // the amax's rounds: the harness's hit
  }
  // compiled per tensor: the split reduction (partials + combine, one op of two launches) and the cast.
  const std::vector<Op> compiled = act_quant_kernels("q", c, Impl::compiled);
  REQUIRE(compiled.size() == 2);
  CHECK(compiled[0].launches == 2);
  CHECK(compiled[0].rows == 8);  // Inductor's split of 65536 elements: 8 shares of 32 values x 256 threads
  c.dynamic = false;
  CHECK(act_quant_kernels("q", c, Impl::eager).size() == 4);
  CHECK(act_quant_kernels("q", c, Impl::compiled).size() == 1);
  c.dynamic = true;
  c.scaling = Scaling::row;
  CHECK(act_quant_kernels("q", c, Impl::fused).size() == 1);
  CHECK(act_quant_kernels("q", c, Impl::compiled).size() == 1);
  // Static shapes split long per-token rows below 2 x SMs rows (Inductor's inner split): 16 rows of
  // 18944, three partials a row of 6315 (h200-actq15's generated code), unaligned: scalar loads.
  c.k = 18944;
  const std::vector<Op> rows = act_quant_kernels("q", c, Impl::compiled);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].launches == 2);
  CHECK(rows[0].rows == 48);
  CHECK(rows[0].cols == 6315);
  CHECK(rows[0].strided);
  CHECK_FALSE(rows[1].strided);  // the cast: constant sizes, no mask
  c.m = 1024;  // 2 x SMs rows or more: no split, one looped row reduction
  CHECK(act_quant_kernels("q", c, Impl::compiled).size() == 1);
  // dynamic=True compiled at 16 x 4096 (h200-quant): no split at any size, masked accesses.
  c.dynamic_shapes = true;
  c.compiled_m = 16;
  c.compiled_k = 4096;
  c.m = 16;
  const std::vector<Op> dyn = act_quant_kernels("q", c, Impl::compiled);
  REQUIRE(dyn.size() == 1);
  CHECK(dyn[0].strided);
  // ... and per tensor its partial count stays the hint's 8 at 4096 x 18944.
  c.scaling = Scaling::tensor;
  c.m = 4096;
  const std::vector<Op> hinted = act_quant_kernels("q", c, Impl::compiled);
  REQUIRE(hinted.size() == 2);
  CHECK(hinted[0].rows == 8);
  c.dynamic_shapes = false;  // static: 512 partials of 151552 (inductor_code.json)
  const std::vector<Op> own = act_quant_kernels("q", c, Impl::compiled);
  REQUIRE(own.size() == 2);
  CHECK(own[0].rows == 512);
  CHECK(own[0].cols == 151552);
}
