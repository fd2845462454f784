// The measured anchors of the shared reference (../shared/reference/gpus-and-models.md, Part C) that perfmodel can
// price, none fitted on (validation/results/published-anchors; validation/scripts/published/compare_anchors.py prints
// every one): gpt-fast's and torchao's decode on the A100, GEMM TFLOP/s on the A100, H100, H200 and B200 (single
// shapes and MAMF's best-shape search), copy bandwidth, NCCL's all-reduce bus bandwidth. Priced through the CLI as a
// user would, by the rule the script's docstring states (written before any anchor was priced). The bounds below were
// set after the first reading: they keep what holds from regressing; they are not a held-out claim. The anchors the
// model misses are reported in the folder's README and asserted only where the miss has a stated cause.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using cli_test::cli;

namespace {

struct Anchor {
  std::string id, kind, card, model, args;
  double measured = 0;
};

std::vector<Anchor> anchors() {
  std::ifstream in(test::root() + "/validation/results/published-anchors/anchors.csv");
  REQUIRE(in);
  std::vector<Anchor> out;
  std::string line;
  std::getline(in, line);  // id,kind,card,model,args,measured,unit,source,note (no field holds a comma)
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream s(line);
    for (std::string x; std::getline(s, x, ',');) f.push_back(x);
    REQUIRE(f.size() >= 6);
    out.push_back({f[0], f[1], f[2], f[3], f[4], std::stod(f[5])});
  }
  return out;
}

double json_number(const std::string& args, const std::string& path) {
  const auto r = cli(args + " --format json");
  REQUIRE(r.rc == 0);
  const test::Json j = cli_test::json_of(r);
  REQUIRE(j.at(path) != nullptr);
  return j.at(path)->num;
}

double gemm_tflops(const std::string& card, int64_t m, int64_t n, int64_t k, const std::string& dtype) {
  const std::string d = dtype == "tf32" ? "--dtype fp32 --tf32" : "--dtype " + dtype;
  const std::string s = " --m " + std::to_string(m) + " --n " + std::to_string(n) + " --k " + std::to_string(k) + " ";
  const double t = json_number("gemm --card " + card + s + d, "time_s");
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / t / 1e12;
}

// compare_anchors.py's rule, kind by kind.
double predicted(const Anchor& a) {
  std::vector<std::string> args;
  std::stringstream s(a.args);
  for (std::string x; s >> x;) args.push_back(x);
  if (a.kind == "decode")
    return 1.0 / json_number("decode --model " + a.model + " --card " + a.card + " --batch 1 --ctx 105 --impl compiled " + a.args,
                             "step.time_s");
  if (a.kind == "gemm") return gemm_tflops(a.card, std::stoll(args[0]), std::stoll(args[1]), std::stoll(args[2]), args[3]);
  if (a.kind == "gemm_max") {
    double best = 0;
    for (int64_t side : {2048, 4096, 6144, 8192, 12288, 16384}) best = std::max(best, gemm_tflops(a.card, side, side, side, args[0]));
    return best;
  }
  if (a.kind == "copy") {
    const int64_t rows = std::stoll(args[0]) / (2 * 2048);
    const double t = json_number("op --card " + a.card + " --kind copy --rows " + std::to_string(rows) + " --cols 2048", "time_s");
    return 2.0 * static_cast<double>(rows) * 2048 * 2 / t;
  }
  if (a.kind == "all_reduce")
    return json_number("collective --card " + a.card + " --op all_reduce --gpus " + args[0] + " --bytes " + args[1], "busbw");
  FAIL("unknown anchor kind " << a.kind);
  return 0;
}

}  // namespace

TEST_CASE("published anchors on five cards: GEMMs, copies, all-reduce and bf16 decode within the bounds they hold") {
  std::vector<double> all;
  int checked = 0;
  for (const Anchor& a : anchors()) {
    CAPTURE(a.id);
    const double e = predicted(a) / a.measured - 1;
    MESSAGE(a.id << " " << a.kind << " " << a.card << " " << a.model << " " << a.args << ": " << e * 100 << " %");
    all.push_back(std::fabs(e));
    const bool quantized_decode = a.kind == "decode" && !a.args.empty() && a.args.find("--weight-dtype") != std::string::npos;
    if (a.card == "mi300x") {
      // ROCm's GEMMs reach 51 % of the MI300X's peak (MAMF); the card has no calibration and the datasheet-class
      // default efficiency prices it at Hopper's share: fast by half. A known miss, kept visible.
      CHECK(e > 0.3);
      continue;
    }
    if (quantized_decode) {
      // gpt-fast and torchao run Inductor with its mixed-mm / int-mm fusions switched on; the compiled profile prices
      // torch.compile's defaults as measured on the H200 (validation/results/h200-int8-compiled: int8 weights
      // copied to bf16 every call), and tinygemm's W4A16 as fitted on the H200, not the A100 it was written for.
      // Both price slow: reported, not bounded.
      CHECK(e < 0);
      continue;
    }
    ++checked;
    if (a.kind == "decode") {
      CHECK(std::fabs(e) <= 0.12);
    } else {
      CHECK(std::fabs(e) <= 0.10);
    }
  }
  CHECK(checked == 20);
  CHECK(perfmodel::quantile(all, 0.5) <= 0.05);
}
