// NCCL collectives (collective.hpp) and the card's interconnect section: hand-computed ring
// all-reduce times, NCCL's tuning table and protocol switch points as NCCL 2.28.9 printed and
// logged them on the lent 2xH200, the fit on the committed measurements, and bad input.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "perfmodel/calibration.hpp"
#include "perfmodel/catalogue.hpp"
#include "perfmodel/collective.hpp"
#include "perfmodel/errors.hpp"
#include "test_support.hpp"

using namespace perfmodel;
namespace fs = std::filesystem;

namespace {

const Card& h200() {
  static const Card c = test::catalogue().card("h200");
  return c;
}

const CollectiveCandidate& candidate(const CollectiveEstimate& e, CollectiveAlgorithm a, CollectiveProtocol p) {
  for (const auto& c : e.candidates)
    if (c.algorithm == a && c.protocol == p) return c;
  FAIL("no candidate " << to_string(a) << "/" << to_string(p));
  return e.candidates.front();
}

constexpr double MiB = 1024.0 * 1024.0;
const std::string kMeasured = test::root() + "/validation/results/h200x2-nccl/collectives.csv";

// Writes card-base.yaml with `from` replaced by `to` under the test's tmp folder; returns the path.
std::string card_variant(const std::string& name, const std::string& from, const std::string& to) {
  std::ifstream in(test::data("card-base.yaml"));
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  const fs::path p = fs::path(PERFMODEL_TEST_TMP) / name;
  std::ofstream(p) << text;
  return p.string();
}

std::string config_error(const std::string& file) {
  try {
    (void)load_card_file(file);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("expected ConfigError from " << file);
  return "";
}

struct Run {
  int rc = -1;
  std::string out;
  std::string err;
};
// The CLI as a user runs it (stdout and stderr captured separately).
Run cli(const std::string& args) {
  static int n = 0;
  const fs::path base = fs::path(PERFMODEL_TEST_TMP) / ("collective_" + std::to_string(n++));
  const std::string cmd = "PERFMODEL_DATA_DIR='" + test::root() + "' '" + PERFMODEL_TEST_CLI + "' " + args + " >'" +
                          base.string() + ".out' 2>'" + base.string() + ".err' </dev/null";
  const int status = std::system(cmd.c_str());
  Run r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (auto [ext, dst] : {std::pair{".out", &r.out}, std::pair{".err", &r.err}}) {
    std::ifstream in(base.string() + ext);
    std::stringstream s;
    s << in.rdbuf();
    *dst = s.str();
  }
  return r;
}

}  // namespace

TEST_CASE("the H200 card's interconnect section") {
  const Interconnect& ic = h200().interconnect;
  REQUIRE(ic.nvlink);
  CHECK(ic.nvlink->generation == 4);
  CHECK(ic.nvlink->links == 18);
  CHECK(ic.nvlink->bandwidth_per_direction == test::approx(450e9));
  CHECK(ic.nvlink->bandwidth_bidirectional == test::approx(900e9));
  CHECK(ic.nvlink->latency_s == test::approx(0.6e-6));
  CHECK(ic.nvswitch);
  CHECK(ic.gpus_per_node == 8);
  CHECK(ic.nvlink_domain() == 8);
  CHECK(ic.pcie.generation == 5);
  CHECK(ic.pcie.lanes == 16);
  REQUIRE(ic.nic);
  CHECK(ic.nic->kind == NicKind::infiniband);
  CHECK(ic.nic->bandwidth_per_direction == test::approx(50e9));
  // A PCIe card without NVLink and a bridged pair.
  CHECK_FALSE(test::catalogue().card("l40s").interconnect.nvlink);
  CHECK(test::catalogue().card("rtx-3090").interconnect.nvlink_domain() == 2);
  // Two bridged RTX 3090s talk over NVLink, four over PCIe.
  CHECK(estimate_collective(test::catalogue().card("rtx-3090"), CollectiveOp::all_reduce, 2, 1 << 20).path == "nvlink");
  CHECK(estimate_collective(test::catalogue().card("rtx-3090"), CollectiveOp::all_reduce, 4, 1 << 20).path == "pcie");
}

TEST_CASE("bad interconnect sections name file, line and field") {
  const std::string nvlink =
      "  nvlink:\n    generation: 4\n    links: 18\n    bandwidth_per_direction: 450 GB/s\n"
      "    bandwidth_bidirectional: 900 GB/s\n    latency: 0.6 us\n";
  const std::string anchor = "  pcie:\n";
  SUBCASE("unknown key inside nvlink") {
    const std::string f = card_variant("ic-unknown.yaml", anchor, nvlink + "    lanes: 4\n" + anchor);
    const std::string what = config_error(f);
    CHECK(test::contains(what, f));
    CHECK(test::contains(what, "lanes"));
    CHECK(test::contains(what, ":"));
  }
  SUBCASE("bidirectional is not twice one direction") {
    std::string bad = nvlink;
    bad.replace(bad.find("900 GB/s"), 8, "600 GB/s");
    const std::string what = config_error(card_variant("ic-both-ways.yaml", anchor, bad + anchor));
    CHECK(test::contains(what, "bandwidth_bidirectional"));
    CHECK(test::contains(what, "twice"));
  }
  SUBCASE("a latency in bytes") {
    std::string bad = nvlink;
    bad.replace(bad.find("0.6 us"), 6, "0.6 GB");
    CHECK(test::contains(config_error(card_variant("ic-dim.yaml", anchor, bad + anchor)), "latency"));
  }
  SUBCASE("the old scalar form") {
    CHECK(test::contains(config_error(card_variant("ic-scalar.yaml", anchor, "  nvlink: 600 GB/s\n" + anchor)), "nvlink"));
  }
  SUBCASE("gpus_per_node missing") {
    CHECK(test::contains(config_error(card_variant("ic-gpn.yaml", "  gpus_per_node: 8\n", "")), "gpus_per_node"));
  }
  SUBCASE("an NVSwitch without NVLink") {
    CHECK(test::contains(config_error(card_variant("ic-nvs.yaml", anchor, "  nvswitch: true\n" + anchor)), "nvswitch"));
  }
  SUBCASE("an unknown NIC kind") {
    const std::string nic = "  nic:\n    kind: omnipath\n    bandwidth_per_direction: 50 GB/s\n    latency: 2 us\n    per_node: 8\n";
    const std::string what = config_error(card_variant("ic-nic.yaml", anchor, nic + anchor));
    CHECK(test::contains(what, "omnipath"));
    CHECK(test::contains(what, "infiniband"));
  }
}

TEST_CASE("bus bandwidth factors as nccl-tests defines them") {
  CHECK(bus_factor(CollectiveOp::all_reduce, 2) == test::approx(1.0));
  CHECK(bus_factor(CollectiveOp::all_reduce, 8) == test::approx(1.75));
  CHECK(bus_factor(CollectiveOp::all_gather, 8) == test::approx(0.875));
  CHECK(bus_factor(CollectiveOp::reduce_scatter, 4) == test::approx(0.75));
  CHECK(bus_factor(CollectiveOp::all_to_all, 2) == test::approx(0.5));
  CHECK(bus_factor(CollectiveOp::send_recv, 8) == test::approx(1.0));
}

TEST_CASE("NCCL's tuning table on 2 x H200 as NCCL 2.28.9 printed it there") {
  // validation/results/h200x2-nccl/nccl_debug.log, "Latency/AlgBw" table (us / GB/s).
  const auto ar = estimate_collective(h200(), CollectiveOp::all_reduce, 2, 1 * MiB);
  struct Row { CollectiveAlgorithm a; CollectiveProtocol p; double lat_us, bw_gbs; };
  for (const Row& r : {Row{CollectiveAlgorithm::ring, CollectiveProtocol::ll, 7.8, 141.0},
                       Row{CollectiveAlgorithm::ring, CollectiveProtocol::ll128, 17.8, 331.2},
                       Row{CollectiveAlgorithm::ring, CollectiveProtocol::simple, 15.2, 360.0},
                       Row{CollectiveAlgorithm::tree, CollectiveProtocol::ll, 8.0, 61.1},
                       Row{CollectiveAlgorithm::tree, CollectiveProtocol::ll128, 16.5, 180.6},
                       Row{CollectiveAlgorithm::tree, CollectiveProtocol::simple, 16.4, 232.2}}) {
    const auto& c = candidate(ar, r.a, r.p);
    INFO(to_string(r.a) << "/" << to_string(r.p));
    CHECK(c.nccl_latency_s * 1e6 == test::approx(r.lat_us).epsilon(0.001));
    CHECK(c.nccl_algbw / 1e9 == test::approx(r.bw_gbs).epsilon(0.001));
  }
  const auto ag = estimate_collective(h200(), CollectiveOp::all_gather, 2, 1 * MiB);
  CHECK(ag.candidates.size() == 3);  // ring only
  CHECK(candidate(ag, CollectiveAlgorithm::ring, CollectiveProtocol::ll).nccl_algbw / 1e9 == test::approx(282.0).epsilon(0.001));
  CHECK(candidate(ag, CollectiveAlgorithm::ring, CollectiveProtocol::ll128).nccl_latency_s * 1e6 == test::approx(15.9).epsilon(0.001));
  CHECK(candidate(ag, CollectiveAlgorithm::ring, CollectiveProtocol::simple).nccl_algbw / 1e9 == test::approx(720.0).epsilon(0.001));
}

TEST_CASE("a ring all-reduce of 16 MiB on 2 x H200, by hand") {
  // NCCL's model: Simple = 8.4 us base + 2 steps x 3.4 us per hop; 360 GB/s algbw (2 GPUs: factor 1).
  const double bytes = 16 * MiB;
  const auto e = estimate_collective(h200(), CollectiveOp::all_reduce, 2, bytes);
  CHECK(e.algorithm == CollectiveAlgorithm::ring);
  CHECK(e.protocol == CollectiveProtocol::simple);
  CHECK_FALSE(e.calibrated);
  CHECK(e.path == "nvlink");
  CHECK(e.latency_s == test::approx(15.2e-6));
  CHECK(e.time_s == test::approx(15.2e-6 + bytes / 360e9));
  CHECK(e.busbw == test::approx(bytes / e.time_s));
  // With a calibration: fitted latency + NCCL's per-hop latencies, fitted bus bandwidth.
  CollectiveCalibration cal;
  cal.ring[static_cast<size_t>(CollectiveProtocol::simple)] = {20e-6, 300e9};
  cal.gpus = 2;
  const auto c = estimate_collective(h200(), CollectiveOp::all_reduce, 2, bytes, &cal);
  CHECK(c.calibrated);
  CHECK(c.time_s == test::approx(20e-6 + 2 * 3.4e-6 + bytes / 300e9));
  // Eight GPUs, 1 GiB (ring Simple again): 14 steps; bus factor 1.75 makes the algorithm
  // bandwidth 300 / 1.75.
  const double big = 1024 * MiB;
  const auto c8 = estimate_collective(h200(), CollectiveOp::all_reduce, 8, big, &cal);
  REQUIRE(c8.algorithm == CollectiveAlgorithm::ring);
  REQUIRE(c8.protocol == CollectiveProtocol::simple);
  CHECK(c8.time_s == test::approx(20e-6 + 14 * 3.4e-6 + big * 1.75 / 300e9));
  // The shares add up.
  CHECK(c8.latency_s + c8.bandwidth_time_s == test::approx(c8.time_s));
}

TEST_CASE("protocol switch points where NCCL switched on the lent machine") {
  // NCCL's LL vs Simple crossover for a 2-GPU ring all-reduce: 7.4 us / (1/141 - 1/360) GB/s.
  const double cross = 7.4e-6 / (1 / 141e9 - 1 / 360e9);
  CHECK(estimate_collective(h200(), CollectiveOp::all_reduce, 2, cross * 0.99).protocol == CollectiveProtocol::ll);
  CHECK(estimate_collective(h200(), CollectiveOp::all_reduce, 2, cross * 1.01).protocol == CollectiveProtocol::simple);
  // What nccl_debug.log recorded: "AllReduce: 1048576 Bytes -> Algo RING proto LL",
  // "4194304 Bytes -> ... SIMPLE"; all-gather of 1 MiB (512 KiB per rank) LL, 4 MiB SIMPLE.
  CHECK(estimate_collective(h200(), CollectiveOp::all_reduce, 2, 1 * MiB).protocol == CollectiveProtocol::ll);
  CHECK(estimate_collective(h200(), CollectiveOp::all_reduce, 2, 4 * MiB).protocol == CollectiveProtocol::simple);
  CHECK(estimate_collective(h200(), CollectiveOp::all_gather, 2, 1 * MiB).protocol == CollectiveProtocol::ll);
  CHECK(estimate_collective(h200(), CollectiveOp::all_gather, 2, 4 * MiB).protocol == CollectiveProtocol::simple);
  CHECK(estimate_collective(h200(), CollectiveOp::reduce_scatter, 2, 4 * MiB).protocol == CollectiveProtocol::simple);
  for (double b : {1024.0, 1 * MiB, 1024 * MiB})
    CHECK(estimate_collective(h200(), CollectiveOp::all_reduce, 2, b).algorithm == CollectiveAlgorithm::ring);
  // Point-to-point: LL up to NCCL_P2P_LL_THRESHOLD (16 KiB per peer), Simple above.
  CHECK(estimate_collective(h200(), CollectiveOp::send_recv, 2, 16384).protocol == CollectiveProtocol::ll);
  CHECK(estimate_collective(h200(), CollectiveOp::send_recv, 2, 16385).protocol == CollectiveProtocol::simple);
}

TEST_CASE("more GPUs than a node: the network joins in") {
  const auto e = estimate_collective(h200(), CollectiveOp::all_reduce, 16, 256 * MiB);
  CHECK(e.nodes == 2);
  CHECK(e.path == "nvlink+network");
  // Bounded by the NICs: 8 x 50 GB/s per node over 8 GPUs = 50 GB/s bus bandwidth at most.
  CHECK(e.busbw <= 50e9);
  CHECK(e.busbw > 25e9);
  CHECK(e.time_s > estimate_collective(h200(), CollectiveOp::all_reduce, 8, 256 * MiB).time_s);
}

TEST_CASE("bad collective input is refused") {
  CHECK_THROWS_AS(estimate_collective(h200(), CollectiveOp::all_reduce, 1, 1024), InputError);
  CHECK_THROWS_AS(estimate_collective(h200(), CollectiveOp::all_reduce, 2, 0), InputError);
  CHECK_THROWS_AS(estimate_collective(h200(), CollectiveOp::all_reduce, 2, std::nan("")), InputError);
  CHECK_THROWS_AS(estimate_collective(h200(), CollectiveOp::all_reduce, 2, std::numeric_limits<double>::infinity()), InputError);
  CHECK_THROWS_AS(estimate_collective(h200(), CollectiveOp::all_reduce, 2, 1e300), InputError);
  CHECK_THROWS_AS(estimate_collective(test::catalogue().card("mi300x"), CollectiveOp::all_reduce, 2, 1024), InputError);
  CHECK_THROWS_AS(estimate_collective(test::catalogue().card("l40s"), CollectiveOp::all_reduce, 16, 1024), InputError);
  CHECK_FALSE(parse_collective_op("allreduce"));
  CHECK(parse_collective_op("all_to_all") == CollectiveOp::all_to_all);
}

TEST_CASE("the fit on the 2 x H200 measurements: held-out sizes within 10 % (median)") {
  const auto samples = load_collective_samples(kMeasured);
  CHECK(samples.size() == 5 * 21);  // five collectives, 1 KiB .. 1 GiB
  const CollectiveFit fit = fit_collectives(h200(), samples);
  CHECK(fit.held_out_median_abs_error <= 0.10);
  CHECK(fit.held_out_median_abs_error < fit.uncalibrated_median_abs_error);
  for (auto p : {CollectiveProtocol::ll, CollectiveProtocol::simple}) {
    const auto& c = fit.calibration.ring[static_cast<size_t>(p)];
    CHECK(c.latency_s > 1e-6);
    CHECK(c.latency_s < 50e-6);
    CHECK(c.bus_bandwidth > 50e9);
    CHECK(c.bus_bandwidth < 450e9);  // below NVLink4's 450 GB/s each way
  }
  // The calibration file holds these fitted values (rounded to 4 digits when written).
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  for (int p = 0; p < kCollectiveProtocolCount; ++p) {
    CHECK(cal.collectives.ring[p].latency_s == test::approx(fit.calibration.ring[p].latency_s).epsilon(1e-3));
    CHECK(cal.collectives.ring[p].bus_bandwidth == test::approx(fit.calibration.ring[p].bus_bandwidth).epsilon(1e-3));
  }
  CHECK(cal.collectives.p2p.latency_s == test::approx(fit.calibration.p2p.latency_s).epsilon(1e-3));
  CHECK(cal.collectives.p2p.bus_bandwidth == test::approx(fit.calibration.p2p.bus_bandwidth).epsilon(1e-3));
  // The held-out sizes' signed errors give the band every collective's time carries.
  REQUIRE(fit.calibration.held_out_errors);
  CHECK(fit.calibration.held_out_errors->cases == 50);  // five collectives x ten odd sizes
  CHECK(fit.calibration.held_out_errors->p10 < 0);
  CHECK(fit.calibration.held_out_errors->p90 > 0);
  REQUIRE(cal.collectives.held_out_errors);
  CHECK(cal.collectives.held_out_errors->p10 == test::approx(fit.calibration.held_out_errors->p10).epsilon(1e-3));
  CHECK(cal.collectives.held_out_errors->p90 == test::approx(fit.calibration.held_out_errors->p90).epsilon(1e-3));
  CHECK(cal.collectives.held_out_errors->cases == fit.calibration.held_out_errors->cases);
  // And it round-trips through to_yaml.
  CHECK(test::contains(to_yaml(cal.collectives), "ring_simple:"));
  CHECK(test::contains(to_yaml(cal.collectives), "held_out_errors: {p10: "));
}

TEST_CASE("bad measurement files name file and line") {
  const fs::path p = fs::path(PERFMODEL_TEST_TMP) / "bad-collectives.csv";
  std::ofstream(p) << "op,gpus,bytes,time_s,mode\nall_reduce,2,1024,1e-5,graph\nallreduce,2,2048,1e-5,graph\n";
  try {
    (void)load_collective_samples(p.string());
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(test::contains(e.what(), p.string() + ":3"));
    CHECK(test::contains(e.what(), "allreduce"));
  }
  std::ofstream(p) << "op,bytes\n";
  CHECK_THROWS_AS(load_collective_samples(p.string()), InputError);
}

TEST_CASE("perfmodel collective on the command line") {
  const Run j = cli("collective --card h200 --gpus 2 --op all_reduce --bytes 16MiB --format json");
  INFO(j.out << j.err);
  REQUIRE(j.rc == 0);
  const test::Json doc = test::parse_json(j.out);
  REQUIRE(doc.at("time_s"));
  REQUIRE(doc.at("meta.schema_version"));
  const auto cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  CHECK(doc.at("time_s")->num ==
        test::approx(estimate_collective(h200(), CollectiveOp::all_reduce, 2, 16 * MiB, &cal.collectives).time_s));
  CHECK(doc.at("protocol")->str == "Simple");
  CHECK(doc.at("calibrated")->b);
  const Run t = cli("collective --card h200 --gpus 2 --op all_gather --bytes 1GiB");
  CHECK(t.rc == 0);
  CHECK(test::contains(t.out, "bus bandwidth"));
  CHECK(test::contains(t.out, "latency share"));
  const Run c = cli("collective --card h200 --op send_recv --bytes 4096 --format csv");
  CHECK(c.rc == 0);
  CHECK(test::contains(c.out, "time_s"));
  const Run h = cli("collective --help");
  CHECK(h.rc == 0);
  CHECK(test::contains(h.out, "--bytes 16MiB"));
  for (const char* bad : {"collective --card h200 --op allreduce --bytes 1MiB", "collective --card h200 --bytes '1 parsec'",
                          "collective --card h200 --gpus 1 --bytes 1MiB", "collective --card h200",
                          "collective --card h200 --bytes 1MiB --colour red", "collective --card mi300x --bytes 1MiB",
                          "collective --card h200 --bytes 0", "collective --card h200 --bytes 1e300"}) {
    const Run r = cli(bad);
    INFO(bad << "\n" << r.err);
    CHECK(r.rc == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}
