// power.hpp: the clock a sustained step settles at under the board's power cap.
#include <doctest/doctest.h>

#include <cmath>

#include "perfmodel/calibration.hpp"
#include "perfmodel/power.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"
#include "perfmodel/units.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {
// The H200's calibration run: a GEMM sustained at the 700 W cap ran 0.836 of its burst speed,
// from 124 W idle.
PowerCap h200_cap() {
  PowerCap p;
  p.limit_w = 700;
  p.idle_w = 124;
  p.tensor_w = (700.0 - 124.0) / std::pow(0.836, 3);
  return p;
}
}  // namespace

TEST_CASE("a pure tensor load settles where idle + tensor x phi^3 meets the cap: the calibration GEMM") {
  const PowerCap p = h200_cap();
  const double busy = 1e-3;  // all of the step is tensor-bound: its time goes as 1 / phi
  const StepLoad load{busy, 0};
  const double phi = capped_clock_scale(p, load, [&](double f) { return busy / f; });
  CHECK(phi == test::approx(0.836).epsilon(1e-6));
  CHECK(step_power(p, phi, load, busy / phi) == test::approx(700.0).epsilon(1e-6));
}

TEST_CASE("under the cap the clock stays; more memory-bound time in the step lowers the power") {
  const PowerCap p = h200_cap();
  // A third of the step tensor-bound: 124 + 985.6 / 3 = 453 W < 700 W.
  CHECK(capped_clock_scale(p, StepLoad{1e-3, 0}, [](double f) { return 2e-3 + 1e-3 / f; }) == 1.0);
  // Half: 124 + 985.6 / 2 = 617 W, still under.
  CHECK(capped_clock_scale(p, StepLoad{1e-3, 0}, [](double f) { return 1e-3 + 1e-3 / f; }) == 1.0);
  // Nine tenths: capped, and less deeply than a pure tensor load.
  const double phi = capped_clock_scale(p, StepLoad{9e-3, 0}, [](double f) { return 1e-3 + 9e-3 / f; });
  CHECK(phi < 1.0);
  CHECK(phi > 0.836);
  // No calibration of the cap: never capped.
  CHECK(capped_clock_scale(PowerCap{}, StepLoad{1e-3, 0}, [](double f) { return 1e-3 / f; }) == 1.0);
  // Flash attention's own power when calibrated, the GEMM's when not.
  PowerCap a = p;
  a.attention_w = 500;
  CHECK(step_power(a, 1.0, StepLoad{0, 1e-3}, 2e-3) == test::approx(p.idle_w + 250.0));
  CHECK(step_power(p, 1.0, StepLoad{0, 1e-3}, 2e-3) == test::approx(p.idle_w + p.tensor_w / 2));
}

TEST_CASE("price_step: a long prefill is capped and stretched, a batch-1 decode is not") {
  const Card h200 = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  REQUIRE(cal.power.known());
  const Roofs capped = make_roofs(h200, &cal);
  Calibration no_cap = cal;
  no_cap.power = PowerCap{};
  const Roofs free = make_roofs(h200, &no_cap);
  const Model m = test::catalogue().model("llama2-7b");
  Workload pre;
  pre.phase = Phase::prefill;
  pre.batch = 1;
  pre.ctx = 4096;
  const Step s = build_step(m, pre);
  const StepCost a = price_step(s, capped, Impl::fused), b = price_step(s, free, Impl::fused);
  CHECK(b.clock_scale == 1.0);
  CHECK(a.clock_scale < 0.95);
  CHECK(a.clock_scale > cal.sustained_clock_scale.value() * 0.999);  // attention and norms draw less than a GEMM
  CHECK(a.time_s > b.time_s);
  CHECK(a.time_s < b.time_s / a.clock_scale);  // only compute stretches
  Workload dec;
  dec.batch = 1;
  dec.ctx = 2048;
  const Step d = build_step(m, dec);
  CHECK(price_step(d, capped, Impl::fused).clock_scale == 1.0);
  CHECK(price_step(d, capped, Impl::fused).time_s == test::approx(price_step(d, free, Impl::fused).time_s));
}

TEST_CASE("a rest before each step counts in the cap's average: the clock rises with it, back to back it does not") {
  // Branch gemmdef: fused_replay_probe.py's spin-first replays (3 ms of one-thread spin before each)
  // of the 7-8B ctx512 prefills ran at the profiler's full-clock kernel sum, the same graphs back to
  // back ~10 % longer (validation/results/h200-fused-step-alone).
  const Card h200 = test::catalogue().card("h200");
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Roofs roofs = make_roofs(h200, &cal);
  Workload pre;
  pre.phase = Phase::prefill;
  pre.ctx = 512;
  const Step s = build_step(test::catalogue().model("llama3-8b"), pre);
  const StepCost loop = price_step(s, roofs, Impl::fused), none = price_step(s, roofs, Impl::fused, 0.0);
  const StepCost short_rest = price_step(s, roofs, Impl::fused, 0.3e-3), spin = price_step(s, roofs, Impl::fused, 3e-3);
  CHECK(none.time_s == loop.time_s);  // the default is a serving loop's, back to back
  CHECK(loop.clock_scale < 0.95);
  CHECK(short_rest.clock_scale > loop.clock_scale);  // the clock rises with the rest...
  CHECK(spin.clock_scale > short_rest.clock_scale);
  CHECK(spin.time_s < loop.time_s);                  // ...and the step shortens
  // The rest is averaged at idle power: with R seconds of it the step's own power may pass the cap
  // by (cap - idle) x R / T, and no more.
  const StepCost huge = price_step(s, roofs, Impl::fused, 1.0);
  CHECK(huge.clock_scale == 1.0);
  // Pure arithmetic of power.hpp: 1 ms of tensor work at full clock, 1 ms of rest, the average is
  // idle + w x phi^2 x 1 ms / (1 ms / phi + 1 ms).
  PowerCap p;
  p.limit_w = 700;
  p.idle_w = 124;
  p.tensor_w = 1400;
  const StepLoad load{1e-3, 0};
  const double phi = capped_clock_scale(p, load, [](double f) { return 1e-3 / f + 1e-3; });
  CHECK(step_power(p, phi, load, 1e-3 / phi + 1e-3) == test::approx(700.0).epsilon(1e-6));
  CHECK(phi > capped_clock_scale(p, load, [](double f) { return 1e-3 / f; }));
}

TEST_CASE("power quantities parse in watts") {
  std::string why;
  CHECK(parse_quantity("700 W", Dimension::watts, &why).value_or(0) == test::approx(700.0));
  CHECK(parse_quantity("0.7 kW", Dimension::watts, &why).value_or(0) == test::approx(700.0));
  CHECK(parse_quantity("500 mW", Dimension::watts, &why).value_or(0) == test::approx(0.5));
  CHECK_FALSE(parse_quantity("700 GB/s", Dimension::watts, &why));
  CHECK(test::contains(why, "power"));
}

TEST_CASE("kernel switch: each op of a fused step pays it once, an isolated op and an eager step do not") {
  const Card h200 = test::catalogue().card("h200");
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  // Six kernels mixed against each alone (calibrate --only switch): 0.04 us on the H200.
  REQUIRE(cal.kernel_switch_s > 0);
  REQUIRE(cal.kernel_switch_s < 0.2e-6);
  Calibration none = cal;
  none.kernel_switch_s = 0;
  const Roofs with = make_roofs(h200, &cal), without = make_roofs(h200, &none);
  const Model m = test::catalogue().model("tinyllama-1.1b");
  Workload w;
  w.batch = 1;
  w.ctx = 256;
  const Step s = build_step(m, w);
  int64_t instances = 0;
  for (const Op& op : s.ops) instances += op.count;
  const double extra = price_step(s, with, Impl::fused).time_s - price_step(s, without, Impl::fused).time_s;
  CHECK(extra == test::approx(static_cast<double>(instances) * cal.kernel_switch_s.value()).epsilon(1e-6));
  // One op alone (the kernel suite's measurement: the same kernel back to back): no switch.
  CHECK(price(s.ops[1], with, Impl::fused).time_s == test::approx(price(s.ops[1], without, Impl::fused).time_s));
  w.impl = Impl::eager;
  const Step e = build_step(m, w);
  CHECK(price_step(e, with, Impl::eager).time_s == test::approx(price_step(e, without, Impl::eager).time_s));
}
