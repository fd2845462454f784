// vLLM-style fused_moe's partner lag (fused_moe_cost.cpp, kPartnerLeadShare): validation/results/h200-twoblock,
// routing fixed to c picks an expert (each of 8 experts exactly c rows: tokens c, top_k 8, as test_moe7's pair
// cases), vLLM's FRONT layout. kPartnerLeadShare was fitted on this set's Nsight Compute DRAM bytes
// (fit_partner_lag.py); the CUDA-event times checked here were not fitted on, but they are the same set: the
// H100's held-out fused_moe sets are test_moe_fused2_accuracy's.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perfmodel/calibration.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Case {
  std::string model;
  int64_t picks;
  double w13_s, w2_s;
};

std::vector<Case> front_cases() {
  std::ifstream in(test::root() + "/validation/results/h200-twoblock/time.jsonl");
  REQUIRE(in.good());
  std::vector<Case> out;
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j["layout"] != "front") continue;
    out.push_back({j["model"], j["picks_per_expert"], j["w13_us"].get<double>() * 1e-6, j["w2_us"].get<double>() * 1e-6});
  }
  return out;
}

Roofs h200() {
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return make_roofs(test::catalogue().card("h200"), &cal, Impl::fused);
}

// One grouped GEMM with every expert given exactly `picks` rows.
double priced(const std::string& model, int64_t picks, bool w13, const Roofs& r) {
  const int64_t d = model == "mixtral-8x7b" ? 4096 : 6144, inter = model == "mixtral-8x7b" ? 14336 : 16384;
  const Op op = ops::grouped_gemm(model, picks, 8, 8, w13 ? 2 * inter : d, w13 ? d : inter, DType::bf16, DType::bf16,
                                  Precision::bf16);
  return price(op, r, Impl::fused).device_time_s;
}

}  // namespace

TEST_CASE("expected_over_routed_counts: the expectation expected_row_blocks takes, for any per-expert cost") {
  for (int64_t T : {1, 40, 320, 2048, 100'000}) {
    CAPTURE(T);
    const double blocks = ops::expected_over_routed_counts(8, 2, T, 0, [](int64_t c) { return std::ceil(c / 64.0); });
    CHECK(blocks == test::approx(ops::expected_row_blocks(8, 2, T, 64)).epsilon(1e-6));
  }
  // Every expert takes every token (top_k = experts): exactly f(T) each.
  CHECK(ops::expected_over_routed_counts(8, 8, 80, 0, [](int64_t c) { return c == 80 ? 1.0 : 0.0; }) == test::approx(8.0));
  CHECK(ops::expected_over_routed_counts(0, 8, 80, 0, [](int64_t) { return 1.0; }) == 0.0);
}

TEST_CASE("h200-twoblock: the last block's few rows slow the GEMM, priced by the partner lag") {
  const Roofs r = h200();
  const auto cases = front_cases();
  REQUIRE(cases.size() == 22);
  std::vector<double> errors;
  std::map<std::pair<std::string, int64_t>, double> w2;
  for (const Case& c : cases) {
    for (bool w13 : {true, false}) {
      const double p = priced(c.model, c.picks, w13, r), m = w13 ? c.w13_s : c.w2_s;
      CAPTURE(c.model);
      CAPTURE(c.picks);
      CAPTURE(w13);
      CAPTURE(p / m - 1);
      errors.push_back(std::fabs(p / m - 1));
      if (!w13) w2[{c.model, c.picks}] = p;
    }
  }
  CAPTURE(quantile(errors, 0.5));
  CAPTURE(quantile(errors, 0.9));
  // Achieved 5.4 / 18.1 % over the 44 GEMMs (5.5 / 39.8 % without the lag: w2 at 65-96 picks 30-42 % fast). Still
  // fast: w2 at 65-112 picks, -12 to -20 %: the re-reads' DRAM ran at 2.2-2.3 TB/s, under the half-line stream the
  // model carries (h200-moe7's 2.7-3.1), so the time rises less than the bytes.
  // Since GROUP_SIZE_M's straddle (adopted by h100-straddle's rule, set before its run): 6.2 / 18.1 %. At three blocks
  // an expert two of the eight straddle a group, counted exactly under this fixed routing; 6 of the 7 GEMMs it moves
  // came closer (Mixtral-8x22B's w2 at 160 picks -13.3 -> -8.7 %), Mixtral-8x7B's w2 at 136 picks went +0.8 -> +7.0 %,
  // and the median moved with the values near it.
  CHECK(quantile(errors, 0.5) <= 0.065);
  CHECK(quantile(errors, 0.9) <= 0.19);
  // The signature: at two blocks an expert, w2 (448 K steps) falls as the last block fills, 769 -> 537 us measured
  // (1.43x); priced 1.22x (flat before the lag).
  CHECK(w2.at({"mixtral-8x7b", 65}) > 1.15 * w2.at({"mixtral-8x7b", 128}));
  CHECK(w2.at({"mixtral-8x7b", 80}) > w2.at({"mixtral-8x7b", 112}));
  // Two blocks an expert lie end to end in the groups of eight: no straddle. At three, experts 2 and 5 straddle: the
  // w2 of Mixtral-8x22B, 1024 K steps, re-reads their weights.
  const Roofs rr = h200();
  const double two = priced("mixtral-8x22b", 128, false, rr), three = priced("mixtral-8x22b", 160, false, rr);
  CHECK(three > 1.4 * two);  // measured 1371 against 880 us (1.56x); 1.35x priced without the straddle
  // One block an expert has no partner: nothing re-read, so 64 picks run faster than 65.
  CHECK(w2.at({"mixtral-8x7b", 64}) < 0.7 * w2.at({"mixtral-8x7b", 65}));
}
