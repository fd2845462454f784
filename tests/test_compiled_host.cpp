// Branch hostreplay (issue 10): the host time before a torch.compile (reduce-overhead, cudagraph
// trees) decode call's CUDA graph replay, priced as graph_call_host + graph_call_host_per_input x
// the graph's static inputs (lib/src/step/compiled_graph_inputs.cpp, lib/src/cost/price_step.cpp).
// - The inputs the lowering counts are those dynamo and the cudagraph tree held, in every process of
//   validation/results/h200-chost14's second call (chost14-run2.jsonl, `tree`).
// - The law's shape (n0 = graph_call_host / graph_call_host_per_input, fitted by
//   validation/scripts/production/hostreplay_shape.py on the fit halves' first shapes) holds out on
//   that call's odd points once the process's speed is taken out (its own host time after the replay,
//   which has no per-input work); the flat form does not.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const Calibration& h200() {
  static const Calibration c = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return c;
}

std::vector<YAML::Node> run2() {
  std::ifstream in(test::root() + "/validation/results/h200-chost14/chost14-run2.jsonl");
  std::vector<YAML::Node> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(YAML::Load(line));
  return out;
}

Evaluation compiled_decode(const std::string& model, int64_t layers, int64_t batch, int64_t ctx) {
  Model m = test::catalogue().model(model);
  m.layers = layers;
  Workload w;
  w.phase = Phase::decode;
  w.batch = batch;
  w.ctx = ctx;
  w.impl = Impl::compiled;
  return evaluate(m, w, test::catalogue().card("h200"), &h200());
}

int64_t graph_inputs(const Evaluation& e) {
  int64_t n = 0;
  for (const Op& op : e.step.ops) n += op.graph_inputs * op.count;
  return n;
}

double median_of(std::vector<double> v) { return quantile(v, 0.5); }

}  // namespace

TEST_CASE("compiled graph inputs: the lowering counts the static inputs the cudagraph tree held (h200-chost14 run2)") {
  int checked = 0;
  for (const YAML::Node& r : run2()) {
    if (!r["tree"] || r["tree"].size() == 0) continue;
    CAPTURE(r["model"].as<std::string>());
    CAPTURE(r["layers"].as<int>());
    const Evaluation e = compiled_decode(r["model"].as<std::string>(), r["layers"].as<int64_t>(), r["batch"].as<int64_t>(),
                                         r["kv_len"].as<int64_t>());
    // 4 + 12 a layer (Llama family), 4 + 15 (Qwen2.5's q / k / v biases): every process, both shapes.
    for (const YAML::Node& node : r["tree"]) CHECK(graph_inputs(e) == node["static_inputs"].as<int64_t>());
    ++checked;
  }
  CHECK(checked >= 12);
}

TEST_CASE("compiled host before the replay: a fixed part and a part per graph input") {
  const ProfileCalibration* p = find_profile(h200().profiles, "compiled");
  REQUIRE(p != nullptr);
  const double a = p->graph_call_host_s, b = p->graph_call_host_per_input_s;
  CHECK(a > 0);
  CHECK(b > 0);
  const Evaluation l8 = compiled_decode("tinyllama", 8, 1, 560), l32 = compiled_decode("tinyllama", 32, 1, 560);
  CHECK(graph_inputs(l8) == 100);
  CHECK(graph_inputs(l32) == 388);
  CHECK(l8.cost.host_time_s == test::approx(a + b * 100).epsilon(1e-9));
  CHECK(l32.cost.host_time_s - l8.cost.host_time_s == test::approx(b * 288).epsilon(1e-9));
  // The step's wall carries it (generate() waits for the call every step).
  CHECK(l32.cost.time_s - l8.cost.time_s > b * 288);
}

TEST_CASE("compiled host's shape over the inputs, held out on h200-chost14 run2's odd points (speed taken out)") {
  // pre / post (the host before the replay over the same call's host after it) = k (1 + n / n0), n0
  // the calibration's; k: median over the even points (by inputs) of the first shapes; the odd held out.
  const ProfileCalibration* p = find_profile(h200().profiles, "compiled");
  REQUIRE(p != nullptr);
  const double n0 = p->graph_call_host_s / p->graph_call_host_per_input_s;
  struct Point {
    double n, ratio;
  };
  std::vector<Point> pts;
  for (const YAML::Node& r : run2()) {
    if (!r["base_pre_all"]) continue;
    std::vector<double> pre;
    for (const YAML::Node& x : r["base_pre_all"]) pre.push_back(x.as<double>());
    const Evaluation e = compiled_decode(r["model"].as<std::string>(), r["layers"].as<int64_t>(), r["batch"].as<int64_t>(),
                                         r["kv_len"].as<int64_t>());
    pts.push_back({static_cast<double>(graph_inputs(e)), median_of(pre) / r["base"]["post_replay"].as<double>()});
  }
  REQUIRE(pts.size() == 12);
  std::stable_sort(pts.begin(), pts.end(), [](const Point& x, const Point& y) { return x.n < y.n; });
  std::vector<double> k_fit, flat_fit;
  for (size_t i = 0; i < pts.size(); i += 2) {
    k_fit.push_back(pts[i].ratio / (1 + pts[i].n / n0));
    flat_fit.push_back(pts[i].ratio);
  }
  const double k = median_of(k_fit), flat = median_of(flat_fit);
  std::vector<double> law, level;
  for (size_t i = 1; i < pts.size(); i += 2) {
    law.push_back(std::fabs(k * (1 + pts[i].n / n0) / pts[i].ratio - 1));
    level.push_back(std::fabs(flat / pts[i].ratio - 1));
  }
  CAPTURE(n0);
  CAPTURE(median_of(law));
  CAPTURE(median_of(level));
  CHECK(median_of(law) <= 0.07);             // 6.0 % at n0 = 360 (hostreplay_shape.py's least squares: 6.2 %)
  CHECK(median_of(law) < median_of(level));  // flat: 11.2 %
  CHECK(*std::max_element(law.begin(), law.end()) <= 0.18);  // 17.2 %
}

namespace {

std::vector<YAML::Node> hostorder(const std::string& set = "h200-hostorder") {
  std::ifstream in(test::root() + "/validation/results/" + set + "/hostorder.jsonl");
  std::vector<YAML::Node> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) {
      YAML::Node r = YAML::Load(line);
      if (r["A"]) out.push_back(r);  // the processes' first steps, timed as hf_compiled._time times
    }
  return out;
}

}  // namespace

TEST_CASE("compiled host: the same call's host moves with its process, every stage together (h200-hostorder)") {
  // Branch hostorder: four fresh processes on one lease (validation/results/h200-hostorder), each
  // timing its first step before any profiler ran, with the GPU idle at each call. Step 0 (Llama-3-8B
  // L4 b1 ctx512, 52 inputs) ran twice: 208 and 456 us before the replay. No count differs between
  // the two, and each stage (dynamo's frame, AOT, the tree manager, the node, the replay's own call,
  // the host after it) is slower by the same factor: the process's speed, not a stage.
  std::vector<YAML::Node> zero;
  for (const YAML::Node& r : hostorder())
    if (r["step"].as<int>() == 0) zero.push_back(r["A"]);
  REQUIRE(zero.size() == 2);
  const YAML::Node slow = zero[0]["pre_replay"].as<double>() > zero[1]["pre_replay"].as<double>() ? zero[0] : zero[1];
  const YAML::Node fast = slow == zero[0] ? zero[1] : zero[0];
  const double total = slow["pre_replay"].as<double>() / fast["pre_replay"].as<double>();
  CAPTURE(total);
  CHECK(total > 1.8);  // 2.19: as wide as h200-compiled's 162-437 us at 52 inputs
  for (const char* stage : {"t0->inductor", "inductor->mgr", "mgr->node", "node->replay", "replay_call", "post_replay"}) {
    CAPTURE(stage);
    const double r = slow[stage].as<double>() / fast[stage].as<double>();
    CHECK(std::fabs(r / total - 1) <= 0.15);  // 1.92-2.37
  }
  // The CUDA events around the call hold the host before the replay and then the replay: with the
  // host taken out the two processes' replays agree (922 / 924 us), so h200-compiled's derived host
  // (events - kernel sum - gap x launches) is the host's own time, not a measuring artefact.
  const double replay_slow = slow["device"].as<double>() - slow["pre_replay"].as<double>();
  const double replay_fast = fast["device"].as<double>() - fast["pre_replay"].as<double>();
  CHECK(std::fabs(replay_slow / replay_fast - 1) <= 0.02);
}

TEST_CASE("compiled host's shape over the inputs holds on h200-hostorder's lease (held out of every fit)") {
  // pre / post = k (1 + n / n0), k and n0 as the run2 case above fits them (run2's even points, the
  // calibration's n0). h200-hostorder's four processes: 5.74-6.67 against 6.46 / 6.64; the host
  // itself spans 208-516 us at those inputs (2.5x), which no count follows.
  const ProfileCalibration* p = find_profile(h200().profiles, "compiled");
  REQUIRE(p != nullptr);
  const double n0 = p->graph_call_host_s / p->graph_call_host_per_input_s;
  std::vector<std::pair<double, double>> run2_pts;  // (inputs, ratio)
  for (const YAML::Node& r : run2()) {
    if (!r["base_pre_all"]) continue;
    std::vector<double> pre;
    for (const YAML::Node& x : r["base_pre_all"]) pre.push_back(x.as<double>());
    const Evaluation e = compiled_decode(r["model"].as<std::string>(), r["layers"].as<int64_t>(), r["batch"].as<int64_t>(),
                                         r["kv_len"].as<int64_t>());
    run2_pts.emplace_back(static_cast<double>(graph_inputs(e)), median_of(pre) / r["base"]["post_replay"].as<double>());
  }
  REQUIRE(run2_pts.size() == 12);
  std::stable_sort(run2_pts.begin(), run2_pts.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<double> k_fit, flat_fit;
  for (size_t i = 0; i < run2_pts.size(); i += 2) {
    k_fit.push_back(run2_pts[i].second / (1 + run2_pts[i].first / n0));
    flat_fit.push_back(run2_pts[i].second);
  }
  const double k = median_of(k_fit), flat = median_of(flat_fit);
  std::vector<double> law, level, hosts;
  for (const YAML::Node& r : hostorder()) {
    const Evaluation e = compiled_decode(r["model"].as<std::string>(), r["layers"].as<int64_t>(), r["batch"].as<int64_t>(),
                                         r["kv_len"].as<int64_t>());
    const double n = static_cast<double>(graph_inputs(e));
    CHECK((n == 52 || n == 64));
    const double ratio = r["A"]["pre_replay"].as<double>() / r["A"]["post_replay"].as<double>();
    law.push_back(std::fabs(k * (1 + n / n0) / ratio - 1));
    level.push_back(std::fabs(flat / ratio - 1));
    hosts.push_back(r["A"]["pre_replay"].as<double>());
  }
  REQUIRE(law.size() == 4);
  CAPTURE(median_of(law));
  CAPTURE(median_of(level));
  CHECK(median_of(law) <= 0.07);  // 2.7 % (max 12.5 %)
  CHECK(median_of(law) < median_of(level));  // flat: 13.1 %
  CHECK(*std::max_element(hosts.begin(), hosts.end()) / *std::min_element(hosts.begin(), hosts.end()) > 2);  // 2.48
}

TEST_CASE("compiled host: one speed scales all of a call's host, in one process and across processes (h200-compiled, h200-hostorder)") {
  // The host before the replay over the host outside the call's CUDA events (wall - device: the host
  // after the replay, the event, the sync's wake-up). h200-compiled's seven steps (one process;
  // before the replay taken as events - kernel sum, which keeps the in-graph gaps, 20-50 us) and
  // h200-hostorder's four fresh processes (measured directly): 10.0-13.2, while the host itself spans
  // 162-658 us. Every part of the call slowed together: a speed, which no workload count prices.
  std::vector<double> ratios, hosts;
  const YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-compiled/hf.json");
  for (const auto& s : root["steps"]) {
    const double dev = s["device_s"].as<double>(), host = dev - s["kernel_s"].as<double>();
    ratios.push_back(host / (s["wall_s"].as<double>() - dev));
    hosts.push_back(host);
  }
  REQUIRE(ratios.size() == 7);
  for (const YAML::Node& r : hostorder()) {
    const double pre = r["A"]["pre_replay"].as<double>();
    ratios.push_back(pre / (r["A"]["wall"].as<double>() - r["A"]["device"].as<double>()));
    hosts.push_back(pre);
  }
  REQUIRE(ratios.size() == 11);
  const double mid = median_of(ratios);
  CAPTURE(mid);
  for (double x : ratios) {
    CAPTURE(x);
    CHECK(std::fabs(x / mid - 1) <= 0.2);  // 10.0-13.2 around 12.3 (18 % at most)
  }
  CHECK(*std::max_element(hosts.begin(), hosts.end()) / *std::min_element(hosts.begin(), hosts.end()) > 3);  // 3.5
}

// validation/results/h200-hostorder2: h200-compiled's seven steps re-run in one process in the order of
// record with torch.profiler between steps as then (fwd_prof, 3 sessions a step) and without it
// (fwd_noprof), reversed (rev_noprof), and Llama-2-7B L4 b1 (step 3) as a fresh process's first step
// (fresh3_prof). The hypothesis was that the profiler sessions before each step grow its host (it
// would take h200-compiled's 162 -> 658 us to ~1.07x a session). Read speed-free (host before the
// replay over the host outside the events, hostorder's reading), the sessions change nothing: the
// least-squares log-slope of fwd_prof / fwd_noprof over the sessions before each step is x0.982 a
// session; and the same step 3 took 213-531 us of host over four processes at one speed-free ratio.
TEST_CASE("compiled host: no profiler-session or order effect, one process speed (h200-hostorder2)") {
  std::map<std::string, std::map<int, YAML::Node>> by;  // tag -> step -> its record
  for (const YAML::Node& r : hostorder("h200-hostorder2")) by[r["tag"].as<std::string>()][r["step"].as<int>()] = r;
  REQUIRE(by["fwd_prof"].size() == 7);
  REQUIRE(by["fwd_noprof"].size() == 7);
  auto speed_free = [](const YAML::Node& r) {
    const YAML::Node a = r["A"];
    return a["pre_replay"].as<double>() / (a["wall"].as<double>() - a["device"].as<double>());
  };
  std::vector<double> x, y;
  for (int step = 0; step < 7; ++step) {
    x.push_back(by["fwd_prof"][step]["state_before"]["profiler_sessions"].as<double>());
    y.push_back(std::log(speed_free(by["fwd_prof"][step]) / speed_free(by["fwd_noprof"][step])));
  }
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / 7, my = std::accumulate(y.begin(), y.end(), 0.0) / 7;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i) sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
  REQUIRE(x.back() >= 15);  // the sessions did run before the later steps
  const double per_session = std::exp(sxy / sxx);
  CHECK(per_session > 0.97);
  CHECK(per_session < 1.03);  // 1.069 would have explained h200-compiled's growth
  // Step 3 (the guard's median step) in four processes: the host spans over 2x, the speed-free reading
  // stays inside the 8-16 band every record of both probes keeps.
  std::vector<double> host, ratio;
  for (const char* tag : {"fwd_prof", "fwd_noprof", "rev_noprof", "fresh3_prof"}) {
    REQUIRE(by[tag].count(3) == 1);
    host.push_back(by[tag][3]["A"]["pre_replay"].as<double>());
    ratio.push_back(speed_free(by[tag][3]));
  }
  CHECK(*std::max_element(host.begin(), host.end()) > 2.0 * *std::min_element(host.begin(), host.end()));
  for (double r : ratio) {
    CHECK(r > 8.0);
    CHECK(r < 16.0);
  }
}
