// `perfmodel calibrate --profile compiled --only graph` (issue 10, item 2): the compiled profile's graph keys refitted
// on recorded torch.compile steps (lib/src/calibration/compiled_graph_fit.cpp, tools/perfmodel/
// cmd_calibrate_compiled_graph.cpp), checked on the compiled steps of fourteen H200 leases that no fit of the committed
// keys used (h200-heldout19..31's compiled/ folders, h200-compiled2, h200-host-probe).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/compiled_graph_fit.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;
using cli_test::cli;

namespace {

const std::string kCompiled2 = "/validation/results/h200-compiled2/compiled2.jsonl";

ProfileCalibration& compiled(Calibration& c) {
  for (auto& p : c.profiles)
    if (p.name == "compiled") return p;
  throw std::runtime_error("the calibration has no compiled block");
}

// Each lease's compiled steps, a file each (one H200 lease a file).
std::vector<std::string> lease_files() {
  std::vector<std::string> files = {"h200-host-probe/probe.jsonl", "h200-compiled2/compiled2.jsonl"};
  for (int set : {19, 20, 21, 22, 23, 24, 25, 26, 27, 29, 30, 31})
    files.push_back("h200-heldout" + std::to_string(set) + "/compiled/compiled" + std::to_string(set) + ".jsonl");
  return files;
}

}  // namespace

TEST_CASE("the fit's arithmetic: the median gap and host level of the even steps, the calibration's shape kept") {
  Catalogue cat(test::root());
  const Card card = cat.card("h200");
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const double n0 = compiled(cal).graph_call_host_s / compiled(cal).graph_call_host_per_input_s;
  REQUIRE(n0 == doctest::Approx(360).epsilon(0.01));
  CompiledGraphStep a;
  a.model = cat.model("llama3-8b");
  a.model.layers = 4;
  a.batch = 1;
  a.kv_len = 560;
  a.kernel_s = 1.0e-3;
  a.alone_s = 1.05e-3;  // 50 us of gaps over the kernels
  a.replay_s = 1.45e-3;
  CompiledGraphStep b = a, c = a;
  b.batch = 16;       // held out
  b.replay_s = 2e-3;  // its host 3x larger: held out, it cannot move the fit
  c.model.layers = 8;
  c.alone_s = 1.08e-3;
  c.replay_s = 1.6e-3;
  const CompiledGraphFit f = fit_compiled_graph({a, b, c}, card, cal);
  REQUIRE(f.steps.size() == 3);
  CHECK(f.steps[0].fit);
  CHECK_FALSE(f.steps[1].fit);
  CHECK(f.steps[2].fit);
  CHECK(f.steps[2].graph_inputs > f.steps[0].graph_inputs);  // eight layers' weights and cache against four
  const double ga = 50e-6 / static_cast<double>(f.steps[0].launches), gc = 80e-6 / static_cast<double>(f.steps[2].launches);
  CHECK(f.gap_after_s == doctest::Approx((ga + gc) / 2));
  auto level = [&](const CompiledGraphStep& s, const CompiledGraphStepFit& r) {
    return (s.replay_s - s.kernel_s - f.gap_after_s * static_cast<double>(r.launches)) /
           (1 + static_cast<double>(r.graph_inputs) / n0);
  };
  CHECK(f.host_after_s == doctest::Approx((level(a, f.steps[0]) + level(c, f.steps[2])) / 2));
  CHECK(f.per_input_after_s == doctest::Approx(f.host_after_s / n0));
  CHECK(compiled(cal).graph_call_host_s == doctest::Approx(f.host_after_s));
  CHECK(compiled(cal).graph_kernel_gap_s == doctest::Approx(f.gap_after_s));
  CHECK(f.alone_held_after.cases == 1);
  // A calibration without the per-input key prices a flat host: the level is the median host itself.
  Calibration flat = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  compiled(flat).graph_call_host_per_input_s = 0;
  const CompiledGraphFit g = fit_compiled_graph({a, b, c}, card, flat);
  CHECK(g.shape_inputs == 0);
  CHECK(g.per_input_after_s == 0);
  CHECK(g.host_after_s == doctest::Approx((g.steps[0].host_s + g.steps[2].host_s) / 2));
  // Replays no longer than their kernels are not a graph's replays; nor is a timed call shorter than them and the gaps.
  CompiledGraphStep d = a;
  d.alone_s = 0.99e-3;
  CHECK_THROWS_WITH_AS(fit_compiled_graph({d}, card, cal), doctest::Contains("graph_pure_s"), InputError);
  d = a;
  d.replay_s = 1.0e-3;
  CHECK_THROWS_WITH_AS(fit_compiled_graph({d}, card, cal), doctest::Contains("device_s"), InputError);
  CHECK_THROWS_AS(fit_compiled_graph({}, card, cal), InputError);
}

TEST_CASE("refitted on each lease's own even steps, the held-out steps of fourteen leases are priced closer") {
  // The committed keys were fitted on one lease (h200-compiled's steps, h200-host-probe's gap): the host before the
  // replay moves with the lease and the process (170-1275 us on these files). Each lease's even steps refit the three
  // keys, its odd steps (a second shape in the same process) are held out; pooled over the fourteen leases.
  std::vector<double> before, after;
  for (const std::string& file : lease_files()) {
    const auto r = cli("calibrate --profile compiled --card h200 --only graph --from-steps " + test::root() +
                       "/validation/results/" + file + " --output " + (cli_test::tmp_dir() / "c.yaml").string() +
                       " --format json");
    REQUIRE(r.rc == 0);
    const test::Json j = cli_test::json_of(r);
    for (const test::Json& row : j.at("graph.per_step")->arr) {
      if (row.at("fit")->str != "held out") continue;
      before.push_back(std::fabs(row.at("error_before")->num));
      after.push_back(std::fabs(row.at("error_after")->num));
    }
  }
  REQUIRE(before.size() == 37);
  // Measured: 4.9 / 14.6 % with the committed keys, 3.7 / 13.7 % with each lease's own.
  MESSAGE("held out: committed " << quantile(before, 0.5) << " / " << quantile(before, 0.9) << ", the lease's own "
                                 << quantile(after, 0.5) << " / " << quantile(after, 0.9));
  CHECK(quantile(after, 0.5) < quantile(before, 0.5));
  CHECK(quantile(after, 0.9) < quantile(before, 0.9));
  CHECK(quantile(after, 0.5) < 0.05);
}

TEST_CASE("the refit in place: three lines change, and bad steps or flags are one line and exit 2") {
  const auto dir = cli_test::tmp_dir();
  const std::string out = (dir / "c.yaml").string();
  const auto r = cli("calibrate --profile compiled --card h200 --from-steps " + test::root() + kCompiled2 + " --output " + out);
  REQUIRE(r.rc == 0);
  std::ifstream a(test::root() + "/hardware/h200.calibration.yaml"), b(out);
  int differ = 0;
  for (std::string x, y; std::getline(a, x) && std::getline(b, y);)
    if (x != y) {
      ++differ;
      CHECK((test::contains(y, "graph_kernel_gap:") || test::contains(y, "graph_call_host:") ||
             test::contains(y, "graph_call_host_per_input:")));
    }
  CHECK(differ == 3);
  // The GPU-alone replay held out (5 steps of a second shape): kernels + gap x launches within 2 %.
  const test::Json j = cli_test::json_of(cli("calibrate --profile compiled --card h200 --only graph --from-steps " +
                                             test::root() + kCompiled2 + " --output " + out + " --format json"));
  const auto& rows = j.at("graph.errors")->arr;
  REQUIRE(rows.size() == 4);
  CHECK(rows[1].at("cases")->num == 4);
  CHECK(rows[1].at("median_abs")->num < 0.02);

  const std::string bad = (dir / "bad.jsonl").string();
  const std::string good = "\"batch\": 1, \"kv_len\": 560, \"kernel_s\": 0.001, \"graph_pure_s\": 0.00105, \"device_s\": 0.0014}";
  std::ofstream(bad) << "{\"model\": \"no-such\", \"layers\": 4, " << good << "\n";
  cli_test::expect_input_error(cli("calibrate --profile compiled --card h200 --from-steps " + bad + " --output " + out),
                               {"bad.jsonl:1", "model"});
  std::ofstream(bad) << "{\"mode\": \"eager\"}\n{\"model\": \"llama3-8b\", \"layers\": 33, " << good << "\n";
  cli_test::expect_input_error(cli("calibrate --profile compiled --card h200 --from-steps " + bad + " --output " + out),
                               {"bad.jsonl:2", "layers"});
  std::ofstream(bad) << "{\"model\": \"llama3-8b\", \"layers\": 4, \"batch\": 1, \"kv_len\": 560, \"kernel_s\": 0.001, "
                        "\"device_s\": 0.0014}\n";
  cli_test::expect_input_error(cli("calibrate --profile compiled --card h200 --from-steps " + bad + " --output " + out),
                               {"bad.jsonl:1", "graph_pure_s"});
  std::ofstream(bad) << "{\"model\": \"llama3-8b\", \"layers\": 4, \"batch\": 1, \"kv_len\": 560, \"kernel_s\": \"fast\", "
                        "\"graph_pure_s\": 0.00105, \"device_s\": 0.0014}\n";
  cli_test::expect_input_error(cli("calibrate --profile compiled --card h200 --from-steps " + bad + " --output " + out),
                               {"bad.jsonl:1", "kernel_s"});
  // An absurd time is refused before any arithmetic (1e300 s would overflow into an 'inf us' key).
  std::ofstream(bad) << "{\"model\": \"llama3-8b\", \"layers\": 4, \"batch\": 1, \"kv_len\": 560, \"kernel_s\": 0.001, "
                        "\"graph_pure_s\": 1e300, \"device_s\": 0.0014}\n";
  cli_test::expect_input_error(cli("calibrate --profile compiled --card h200 --from-steps " + bad + " --output " + out),
                               {"bad.jsonl:1", "graph_pure_s", "3600"});
  // hf_compiled.py's hf.json is one document, not a record a line.
  cli_test::expect_input_error(cli("calibrate --profile compiled --card h200 --from-steps " + test::root() +
                                   "/validation/results/h200-compiled/hf.json --output " + out),
                               {"hf.json:1"});
  cli_test::expect_input_error(cli("calibrate --profile eager --card h200 --only graph --from-steps " + bad), {"--only graph"});
}
