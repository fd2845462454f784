// `perfmodel calibrate --profile eager` (issue 10, item 2): the eager profile's host rates refitted on this
// machine's probe (lib/src/calibration/eager_host_fit.cpp, tools/perfmodel/cmd_calibrate_profile.cpp), checked on the
// probes and steps of validation/results/h200-hostlease.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_support.hpp"
#include "hf_wall_errors.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/eager_host_fit.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/host_probe_set.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;
using cli_test::cli;

namespace {

const std::string kLease = "/validation/results/h200-hostlease/";

Calibration committed() { return load_calibration(test::root() + "/hardware/h200.calibration.yaml"); }

const ProfileCalibration& eager(const Calibration& c) {
  const ProfileCalibration* p = find_profile(c.profiles, "eager");
  REQUIRE(p != nullptr);
  return *p;
}

// The host a calibration prices for one probe depth.
double priced_host(const Calibration& cal, int64_t layers) {
  Model m = test::catalogue().model("llama2-7b");
  m.layers = layers;
  Workload w;
  w.phase = Phase::decode;
  w.batch = 1;
  w.ctx = 257;
  w.impl = Impl::eager;
  w.eager_cache_cropped = false;
  return evaluate(m, w, test::catalogue().card("h200"), &cal).cost.host_time_s;
}

HostProbe probe(std::initializer_list<HostProbeDepth> depths) {
  HostProbe p;
  p.model = "llama2-7b";
  p.batch = 1;
  p.ctx = 256;
  p.depths = depths;
  return p;
}

}  // namespace

// The committed calibration with the eager host priced per kernel (host_per_aten removed): the form before branch
// hostclean, which the refit still serves.
Calibration per_kernel() {
  Calibration c = committed();
  for (auto& p : c.profiles)
    if (p.name == "eager") {
      p.host_per_aten_s.reset();
      p.host_per_aten_view_s.reset();
    }
  return c;
}

TEST_CASE("one depth: the eager host rate refitted so the probe's step prices the host measured") {
  const Model m = test::catalogue().model("llama2-7b");
  const Card card = test::catalogue().card("h200");
  // h200-hostlease's second lease: 6.32 ms over 8 layers.
  SUBCASE("per ATen call (the committed form): host_per_aten and its view rate at their ratio, host_per_kernel kept") {
    Calibration cal = committed();
    const EagerHostFit f = fit_eager_host(m, probe({{8, 6.320e-3, 5.9e-3, 381}}), card, cal);
    CHECK(f.per_aten);
    CHECK(f.per_aten_before_s == doctest::Approx(*eager(committed()).host_per_aten_s));
    CHECK(f.host_after_s.at(0) == doctest::Approx(6.320e-3).epsilon(1e-9));
    CHECK(priced_host(cal, 8) == doctest::Approx(6.320e-3).epsilon(1e-9));
    // The probe reads 13.7 us a call where the same lease's walls fitted 11.66 (fit_host_clean.py): one depth puts
    // the forward's own host on the calls, and a probe's host varies ~10 % within a lease (docs/calibration.md).
    CHECK(*eager(cal).host_per_aten_s == doctest::Approx(13.71e-6).epsilon(0.002));
    CHECK(*eager(cal).host_per_aten_view_s == doctest::Approx(*eager(cal).host_per_aten_s));
    CHECK(*eager(cal).host_per_kernel_s == doctest::Approx(*eager(committed()).host_per_kernel_s));
    CHECK(eager(cal).host_per_step_s.value_or(0) == 0);
  }
  SUBCASE("per kernel: 342 priced launches -> 17.56 us, host_per_step kept") {
    Calibration cal = per_kernel();
    const EagerHostFit f = fit_eager_host(m, probe({{8, 6.320e-3, 5.9e-3, 381}}), card, cal);
    CHECK_FALSE(f.per_aten);
    CHECK(priced_host(cal, 8) == doctest::Approx(6.320e-3).epsilon(1e-9));
    CHECK(*eager(cal).host_per_kernel_s == doctest::Approx(17.56e-6).epsilon(0.002));
    CHECK(eager(cal).host_per_step_s.value_or(0) == 0);
  }
}

TEST_CASE("two depths recover both rates: the call rate from the slope, host_per_step from the rest") {
  // Host times made by the model itself at 12 us a call and 1.5 ms a step: the fit gives them back, in either form.
  for (bool aten : {true, false}) {
    CAPTURE(aten);
    Calibration truth = aten ? committed() : per_kernel();
    for (auto& p : truth.profiles)
      if (p.name == "eager") {
        (aten ? p.host_per_aten_s : p.host_per_kernel_s) = 12e-6;
        if (aten) p.host_per_aten_view_s = 12e-6;
        p.host_per_step_s = 1.5e-3;
      }
    const double h4 = priced_host(truth, 4), h16 = priced_host(truth, 16);
    Calibration cal = aten ? committed() : per_kernel();
    const EagerHostFit f = fit_eager_host(test::catalogue().model("llama2-7b"), probe({{4, h4, 0, 0}, {16, h16, 0, 0}}),
                                          test::catalogue().card("h200"), cal);
    CHECK((aten ? f.per_aten_after_s : f.per_kernel_after_s) == doctest::Approx(12e-6).epsilon(1e-6));
    CHECK(f.per_step_after_s == doctest::Approx(1.5e-3).epsilon(1e-6));
    CHECK(priced_host(cal, 16) == doctest::Approx(h16).epsilon(1e-9));
    // The step's own host lengthens a host-bound wall by itself, once.
    Calibration no_step = cal;
    for (auto& p : no_step.profiles)
      if (p.name == "eager") p.host_per_step_s = 0.0;
    CHECK(priced_host(cal, 16) - priced_host(no_step, 16) == doctest::Approx(1.5e-3).epsilon(1e-9));
  }
}

TEST_CASE("probes no positive rate explains are refused") {
  const Model m = test::catalogue().model("llama2-7b");
  const Card card = test::catalogue().card("h200");
  Calibration cal = committed();
  CHECK_THROWS_AS(fit_eager_host(m, probe({{8, -1e-3, 0, 0}}), card, cal), InputError);
  CHECK_THROWS_AS(fit_eager_host(m, probe({{8, 1e-3, 0, 0}, {8, 2e-3, 0, 0}}), card, cal), InputError);   // same depth
  CHECK_THROWS_AS(fit_eager_host(m, probe({{4, 5e-3, 0, 0}, {16, 4e-3, 0, 0}}), card, cal), InputError);  // deeper faster
  CHECK_THROWS_AS(fit_eager_host(m, probe({{4, 1e-3, 0, 0}, {16, 20e-3, 0, 0}}), card, cal), InputError); // step < 0
  CHECK_THROWS_AS(fit_eager_host(m, probe({{64, 5e-3, 0, 0}}), card, cal), InputError);                  // past 32 layers
  CHECK(*eager(cal).host_per_kernel_s == doctest::Approx(*eager(committed()).host_per_kernel_s));       // untouched
  CHECK(*eager(cal).host_per_aten_s == doctest::Approx(*eager(committed()).host_per_aten_s));
}

TEST_CASE("h200-hostlease, every wall timed first: the committed rate per ATen call prices its held-out steps") {
  // The second lease's transformers steps (seven models, one process each, walls before any profiler session).
  // Branch hostclean fitted host_per_aten on its EVEN decode steps (fit_host_clean.py); here its odd decode steps and
  // every prefill, and the first call's first point of each model (one process a model: no profiler before it).
  // Against them: the per-kernel rate fitted on walls timed after profiler sessions (the profiler drag, 25-80 % slower
  // steps: 37 % slow at the median here), and that lease's own probe (`calibrate --on-gpu --profile eager`, one
  // depth, per kernel).
  const std::string set = "h200-hostlease/walls-first/hf/hf.json";
  const auto held = [](int i, const YAML::Node& st) { return st["phase"].as<std::string>() != "decode" || i % 2 == 1; };
  const Calibration lease = load_calibration(test::root() + kLease + "walls-first/lease.calibration.yaml");
  CHECK(*eager(lease).host_per_kernel_s == doctest::Approx(17.56e-6).epsilon(0.002));
  const std::vector<double> now = test::hf_wall_errors(set, committed(), held);
  const std::vector<double> dragged_rate = test::hf_wall_errors(set, per_kernel(), held);
  const std::vector<double> with_lease = test::hf_wall_errors(set, lease, held);
  REQUIRE(now.size() == 20);  // 13 odd decode steps, 7 prefills
  CAPTURE(quantile(now, 0.5));
  CAPTURE(quantile(now, 0.9));
  CAPTURE(quantile(dragged_rate, 0.5));
  CAPTURE(quantile(with_lease, 0.5));
  CHECK(quantile(now, 0.5) <= 0.08);
  CHECK(quantile(now, 0.9) <= 0.15);
  CHECK(quantile(now, 0.5) < 0.5 * quantile(dragged_rate, 0.5));  // 5.3 against 16.8 % (prefills device-bound in both)
  CHECK(quantile(now, 0.5) < quantile(with_lease, 0.5));
  // The first call: each model's first point ran before any profiler session of its process.
  std::vector<std::string> seen;
  const auto first = [&](int, const YAML::Node& st) {
    const std::string m = st["model"].as<std::string>();
    if (std::find(seen.begin(), seen.end(), m) != seen.end()) return false;
    seen.push_back(m);
    return true;
  };
  const std::vector<double> first_points = test::hf_wall_errors("h200-hostlease/hf/hf.json", committed(), first);
  REQUIRE(first_points.size() == 7);
  CAPTURE(quantile(first_points, 0.5));
  CHECK(quantile(first_points, 0.5) <= 0.08);
}

TEST_CASE("h200-heldout32, another lease: the two-depth probe's slope is the committed rate, its walls slower by process") {
  // Eleven models, one process each, every wall first, measured after the host fit; calibrate --on-gpu --profile eager
  // ran on the same lease before them (Llama-2-7B's class at 4 and 16 layers).
  const std::string dir = "/validation/results/h200-heldout32/";
  const Calibration lease = load_calibration(test::root() + dir + "lease.calibration.yaml");
  const double rate = *eager(lease).host_per_aten_s, committed_rate = *eager(committed()).host_per_aten_s;
  CHECK(rate == doctest::Approx(12.20e-6).epsilon(0.005));
  CHECK(*eager(lease).host_per_step_s == doctest::Approx(913.93e-6).epsilon(0.005));
  // The slope, per ATen call, is the rate fitted on the first lease's walls (fit_host_clean.py): 5 % apart. One depth
  // (h200-hostlease's probe, 13.71 us) had put the forward's own ~0.9 ms on the calls.
  CHECK(std::fabs(rate / committed_rate - 1) < 0.10);
  const auto decode = [](int, const YAML::Node& st) { return st["phase"].as<std::string>() == "decode"; };
  const std::string set = "h200-heldout32/hf/hf.json";
  const std::vector<double> now = test::hf_wall_errors(set, committed(), decode);
  const std::vector<double> with_lease = test::hf_wall_errors(set, lease, decode);
  REQUIRE(now.size() == 22);
  CAPTURE(quantile(now, 0.5));
  CAPTURE(quantile(now, 0.9));
  CAPTURE(quantile(with_lease, 0.5));
  // Issue 10's 20 % is missed here (25.0 / 45.0 %): this lease's host ran 10.9-23.8 us an ATen call from one process
  // to the next. Guarded where it stands, and the lease's own probe does better.
  CHECK(quantile(now, 0.5) <= 0.30);
  CHECK(quantile(now, 0.9) <= 0.50);
  CHECK(quantile(with_lease, 0.5) < quantile(now, 0.5));
}

TEST_CASE("calibrate --profile eager --from-probe edits the rate's keys in place of a copy") {
  const auto dir = cli_test::tmp_dir();
  const std::string out = (dir / "lease.yaml").string();
  const auto r = cli("calibrate --profile eager --card h200 --from-probe " + test::root() + kLease +
                     "walls-first/probe_start.json --output " + out + " --format json");
  const test::Json j = cli_test::json_of(r);
  CHECK(r.rc == 0);
  REQUIRE(j.at("host.host_per_aten_s") != nullptr);
  CHECK(j.at("host.host_per_aten_s")->num == doctest::Approx(13.71e-6).epsilon(0.002));
  REQUIRE(j.at("host.rate_key") != nullptr);
  CHECK(j.at("host.rate_key")->str == "host_per_aten");
  REQUIRE(j.at("host.depths") != nullptr);
  CHECK(j.at("host.depths")->arr.size() == 1);
  // Every line but the two rates' is the committed file's.
  std::ifstream a(test::root() + "/hardware/h200.calibration.yaml"), b(out);
  int differ = 0, lines = 0;
  for (std::string x, y; std::getline(a, x) && std::getline(b, y); ++lines)
    if (x != y) {
      ++differ;
      CHECK((test::contains(y, "host_per_aten: 13.7") || test::contains(y, "host_per_aten_view: 13.7")));
    }
  CHECK(lines > 100);
  CHECK(differ == 2);
}

TEST_CASE("calibrate --profile: bad flags and bad probes are one line and exit 2") {
  const std::string probe_file = test::root() + kLease + "walls-first/probe_start.json";
  cli_test::expect_input_error(cli("calibrate --profile fused --card h200 --from-probe " + probe_file), {"--profile fused"});
  cli_test::expect_input_error(cli("calibrate --profile eager --from-probe " + probe_file), {"--card"});
  cli_test::expect_input_error(cli("calibrate --profile eager --card h200"), {"--on-gpu", "--from-probe"});
  cli_test::expect_input_error(cli("calibrate --profile eager --card h200 --from-probe /nonexistent.json"), {"/nonexistent.json"});
  const auto dir = cli_test::tmp_dir();
  const std::string bad = (dir / "bad_probe.json").string();
  std::ofstream(bad) << "{\"model\": \"llama2-7b\", \"batch\": 1, \"ctx\": 256, \"layers\": 8}\n";
  cli_test::expect_input_error(cli("calibrate --profile eager --card h200 --from-probe " + bad + " --output " +
                                   (dir / "x.yaml").string()),
                               {"bad_probe.json", "host_call_s"});
  cli_test::expect_input_error(cli("calibrate --calibration x.yaml --on-gpu"), {"--calibration", "--profile"});
  // Checked before the helper runs (no GPU needed to be refused).
  cli_test::expect_input_error(cli("calibrate --on-gpu --profile eager --card h200 --probe-model no-such-model"), {"no-such-model"});
  cli_test::expect_input_error(cli("calibrate --on-gpu --profile eager --card h200 --probe-layers 4x16"), {"--probe-layers"});
}

TEST_CASE("several processes' probes: each depth's median is fitted, and each process's ratio to it kept") {
  // The eager host's pace is the process's (validation/results/h200-heldout32/cores: 2.97-7.53 ms over 28 processes of
  // one lease, uncorrelated between two runs on the same vCPU): the median of several processes is what is priced.
  const HostProbe a = probe({{4, 3.0e-3, 0, 0}, {16, 9.0e-3, 0, 0}});
  const HostProbe b = probe({{4, 6.0e-3, 0, 0}, {16, 18.0e-3, 0, 0}});
  const HostProbe c = probe({{4, 4.0e-3, 0, 0}, {16, 12.0e-3, 0, 0}});
  const HostProbeSet s = combine_probes({a, b, c}, {"a.json", "b.json", "c.json"});
  REQUIRE(s.median.depths.size() == 2);
  CHECK(s.median.depths[0].host_call_s == doctest::Approx(4.0e-3));
  CHECK(s.median.depths[1].host_call_s == doctest::Approx(12.0e-3));
  REQUIRE(s.ratios.size() == 3);
  CHECK(s.ratios[0] == doctest::Approx(0.75));
  CHECK(s.ratios[1] == doctest::Approx(1.5));
  CHECK(s.ratios[2] == doctest::Approx(1.0));
  // Probes of different steps are not one machine's draws of the same thing.
  HostProbe other = c;
  other.depths[1].layers = 8;
  CHECK_THROWS_WITH_AS(combine_probes({a, other}, {"a.json", "other.json"}), doctest::Contains("other.json"), InputError);
  HostProbe zero = c;
  zero.depths[0].host_call_s = 0;
  CHECK_THROWS_WITH_AS(combine_probes({a, zero}, {"a.json", "zero.json"}), doctest::Contains("host_call_s"), InputError);
  CHECK_THROWS_AS(combine_probes({}, {}), InputError);
}

TEST_CASE("calibrate --profile eager with two processes' records fits their median (h200-heldout32's two probes)") {
  const std::string dir = test::root() + "/validation/results/h200-heldout32/";
  const auto tmp = cli_test::tmp_dir();
  const auto fit = [&](const std::string& probes, const std::string& name) {
    return cli("calibrate --profile eager --card h200 " + probes + " --output " + (tmp / name).string() + " --format json");
  };
  const auto start = fit("--from-probe " + dir + "probe_start.json", "start.yaml");
  const auto end = fit("--from-probe " + dir + "probe_end.json", "end.yaml");
  const auto both = fit("--from-probe " + dir + "probe_start.json --from-probe " + dir + "probe_end.json", "both.yaml");
  REQUIRE(both.rc == 0);
  const test::Json js = cli_test::json_of(start), je = cli_test::json_of(end), jb = cli_test::json_of(both);
  REQUIRE(jb.at("host.host_per_aten_s") != nullptr);
  const double rs = js.at("host.host_per_aten_s")->num, re = je.at("host.host_per_aten_s")->num,
               rb = jb.at("host.host_per_aten_s")->num;
  CAPTURE(rs);
  CAPTURE(re);
  CAPTURE(rb);
  // 12.20 and 10.96 us alone; the median of two processes' depths lies between them.
  CHECK(rb > std::min(rs, re));
  CHECK(rb < std::max(rs, re));
  REQUIRE(jb.at("host.processes_count") != nullptr);
  CHECK(jb.at("host.processes_count")->num == 2);
  REQUIRE(jb.at("host.processes") != nullptr);
  CHECK(jb.at("host.processes")->arr.size() == 2);
  CHECK(jb.at("host.process_ratio_min")->num < 1);
  CHECK(jb.at("host.process_ratio_max")->num > 1);
  // One process alone is told that one process reads one draw (a note of the table).
  const auto told = cli("calibrate --profile eager --card h200 --from-probe " + dir + "probe_start.json --output " +
                        (tmp / "told.yaml").string());
  CHECK(test::contains(told.out, "--probe-processes"));
  // The file's comment says it is a median of processes.
  std::ifstream f(tmp / "both.yaml");
  std::stringstream text;
  text << f.rdbuf();
  CHECK(test::contains(text.str(), "the median of 2 processes"));
}

TEST_CASE("calibrate --profile eager: processes' records of different probes, and a bad process count, are refused") {
  const std::string one_depth = test::root() + kLease + "walls-first/probe_start.json";
  const std::string two_depths = test::root() + "/validation/results/h200-heldout32/probe_start.json";
  const auto dir = cli_test::tmp_dir();
  cli_test::expect_input_error(cli("calibrate --profile eager --card h200 --from-probe " + one_depth + " --from-probe " +
                                   two_depths + " --output " + (dir / "x.yaml").string()),
                               {"h200-heldout32/probe_start.json", "not the same probe"});
  cli_test::expect_input_error(cli("calibrate --on-gpu --profile eager --card h200 --probe-processes 0"), {"--probe-processes"});
}
