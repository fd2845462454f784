// `perfmodel calibrate --profile fused --only graph` (issue 10, item 2): the fused profile's graph keys refitted on
// recorded CUDA-graph replays (lib/src/calibration/graph_gap_fit.cpp, tools/perfmodel/cmd_calibrate_graph.cpp),
// checked on validation/results/h200-fused-step-alone, whose script fit (fit_graph_gap.py) gave the committed keys.
#include <doctest/doctest.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "cli_support.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/graph_gap_fit.hpp"
#include "test_support.hpp"

using namespace perfmodel;
using cli_test::cli;

namespace {

const std::string kSteps = "/validation/results/h200-fused-step-alone/results.jsonl";

Calibration committed() { return load_calibration(test::root() + "/hardware/h200.calibration.yaml"); }

ProfileCalibration& fused(Calibration& c) {
  for (auto& p : c.profiles)
    if (p.name == "fused") return p;
  throw std::runtime_error("the committed calibration has no fused block");
}

}  // namespace

TEST_CASE("the C++ refit of the graph keys is the script's: 0.356 us a launch of GPU idle, 0.474 us of host a node") {
  const auto r = cli("calibrate --profile fused --card h200 --only graph --from-steps " + test::root() + kSteps +
                     " --output " + (cli_test::tmp_dir() / "g.yaml").string() + " --format json");
  REQUIRE(r.rc == 0);
  const test::Json j = cli_test::json_of(r);
  REQUIRE(j.at("graph.graph_kernel_gap_s") != nullptr);
  CHECK(j.at("graph.steps")->num == 72);
  // fit_graph_gap.py on the same steps (the committed values, hardware/h200.calibration.yaml).
  CHECK(j.at("graph.graph_kernel_gap_s")->num == doctest::Approx(0.356e-6).epsilon(0.005));
  CHECK(j.at("graph.graph_launch_per_node_s")->num == doctest::Approx(0.474e-6).epsilon(0.005));
  const auto& rows = j.at("graph.errors")->arr;
  REQUIRE(rows.size() == 4);
  // Held out: the 30 odd decode steps and 12 prefills as measured kernels + gap x launches (the script: 0.4 % and
  // 1.4 % median), and the host launch of the 36 odd steps (35.7 %: the launch varies 2x with the host).
  CHECK(rows[1].at("cases")->num == 42);
  CHECK(rows[1].at("median_abs")->num < 0.01);
  CHECK(rows[1].at("p90_abs")->num < 0.03);
  CHECK(rows[3].at("cases")->num == 36);
  CHECK(rows[3].at("median_abs")->num < 0.40);
}

TEST_CASE("the fit's arithmetic: even decode steps fit the gap, even steps the launch, the rest held out") {
  // measure()'s replays, which caught the host's launch, gave 0.891 us (the value before branch graphhost11).
  Calibration cal = committed();
  fused(cal).graph_kernel_gap_s = 0.891e-6;
  fused(cal).graph_launch_per_node_s = 1.0e-6;
  // The fit's own arithmetic on three made-up steps (the CLI case above reads the recorded ones).
  Catalogue cat(test::root());
  GraphStep a;
  a.model = cat.model("tinyllama-1.1b");
  a.batch = 1;
  a.ctx = 512;
  a.kernel_s = 1.0e-3;
  GraphStep b = a, c = a;
  b.batch = 8;
  c.phase = Phase::prefill;
  const Card card = cat.card("h200");
  a.alone_s = b.alone_s = c.alone_s = 1.1e-3;  // 100 us over the kernels
  a.host_launch_s = b.host_launch_s = c.host_launch_s = 150e-6;
  const GraphGapFit f = fit_graph_gap({a, b, c}, card, cal, "fused");
  REQUIRE(f.steps.size() == 3);
  // a: the even decode step (gap fit) and an even step (node fit); b: odd decode, held out of both; c: even step.
  CHECK(f.steps[0].gap_fit);
  CHECK_FALSE(f.steps[1].gap_fit);
  CHECK_FALSE(f.steps[2].gap_fit);
  CHECK(f.steps[2].node_fit);
  CHECK(f.gap_after_s == doctest::Approx(100e-6 / static_cast<double>(f.steps[0].launches)));
  CHECK(fused(cal).graph_kernel_gap_s == doctest::Approx(f.gap_after_s));
  CHECK(f.gap_held_after.median <= f.gap_held_before.median);
  // No decode step: nothing to fit the gap on.
  CHECK_THROWS_AS(fit_graph_gap({c}, card, cal, "fused"), InputError);
  // Replays no longer than their kernels are not a graph's replays.
  GraphStep d = a;
  d.alone_s = 0.9e-3;
  CHECK_THROWS_WITH_AS(fit_graph_gap({d}, card, cal, "fused"), doctest::Contains("spin_first_s"), InputError);
}

TEST_CASE("the refit in place: two lines change, and bad steps or flags are one line and exit 2") {
  const auto dir = cli_test::tmp_dir();
  const std::string out = (dir / "g.yaml").string();
  REQUIRE(cli("calibrate --profile fused --card h200 --from-steps " + test::root() + kSteps + " --output " + out).rc == 0);
  std::ifstream a(test::root() + "/hardware/h200.calibration.yaml"), b(out);
  int differ = 0;
  for (std::string x, y; std::getline(a, x) && std::getline(b, y);)
    if (x != y) {
      ++differ;
      CHECK((test::contains(y, "graph_kernel_gap: 0.35") || test::contains(y, "graph_launch_per_node: 0.47")));
    }
  CHECK(differ == 2);
  // h200-fused-step's replays were timed before the GPU-alone replay existed: its lines lack spin_first_s.
  const std::string old = test::root() + "/validation/results/h200-fused-step/results.jsonl";
  cli_test::expect_input_error(cli("calibrate --profile fused --card h200 --from-steps " + old + " --output " + out),
                               {"results.jsonl:2", "spin_first_s"});
  cli_test::expect_input_error(cli("calibrate --profile eager --card h200 --only graph --from-steps " + old), {"--only graph"});
  cli_test::expect_input_error(cli("calibrate --profile fused --card h200 --only graph --from-kernels x.json"), {"--from-steps"});
  const std::string bad = (dir / "bad.jsonl").string();
  std::ofstream(bad) << "{\"kind\": \"point\", \"ok\": true, \"model\": \"no-such\", \"phase\": \"decode\", \"batch\": 1, "
                        "\"ctx\": 512, \"kernel_s\": 0.001, \"spin_first_s\": 0.0011, \"host_launch_s\": 0.0001}\n";
  cli_test::expect_input_error(cli("calibrate --profile fused --card h200 --from-steps " + bad + " --output " + out),
                               {"bad.jsonl:1", "model"});
}
