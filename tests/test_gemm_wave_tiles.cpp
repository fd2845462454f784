// cuBLASLt's nvjet grids of whole waves (branch gemmtile2; opt-in: validation/results/h200-gemmtile/wavetiles/
// h200.calibration.yaml, `nvjet_wave_tiles: 1` in the fused gemm block), judged on the mid-M sweep that branch
// gemmtile prepared (validation/results/h200-gemmtile/sweep: 266 cuBLASLt calls at M 128-1024, kernel names by
// torch.profiler). cuBLASLt sizes a tile's step-8 side so that its grid fills 1 to 5 waves (128x168 at 384 x 14336,
// 258 CTAs; 128x176 at 1024 x 14336, 656) and runs it tile by tile: the names carry no stream-K. The default prices
// a stream-K hybrid of 128x128 there. Held out: zlib.crc32(name) % 2 == 1, fixed before the data.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/gemm_tiling.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const std::string kSweep = "/validation/results/h200-gemmtile/sweep/kernels.json";
const std::string kOptIn = "/validation/results/h200-gemmtile/wavetiles/h200.calibration.yaml";

// zlib's crc32 (reflected, polynomial 0xEDB88320): the sweep's fit / held-out rule.
uint32_t crc32(const std::string& s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) {
    c ^= b;
    for (int i = 0; i < 8; ++i) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return c ^ 0xFFFFFFFFu;
}

OpCost priced(const Calibration& cal, int64_t m, int64_t n, int64_t k, Impl impl = Impl::fused) {
  const Card h200 = test::catalogue().card("h200");
  const Op op = ops::gemm("g", m, n, k, DType::bf16, DType::bf16, Precision::bf16);
  return price(op, make_roofs(h200, &cal, impl), impl);
}

struct Halves {
  std::vector<double> fit, held;  // |predicted / measured - 1| of the fused profile's GEMM cases
};

Halves sweep_errors(const Calibration& cal) {
  Measurements m;
  load_measurements(test::root() + kSweep, m);
  Halves h;
  for (const ProfileCaseError& e : evaluate_profiles(m, test::catalogue().card("h200"), &cal)) {
    if (e.profile != Impl::fused) continue;
    (crc32(e.error.name) % 2 == 1 ? h.held : h.fit).push_back(std::fabs(e.error.error));
  }
  return h;
}

}  // namespace

TEST_CASE("crc32 is zlib's (the sweep's held-out rule)") {
  CHECK(crc32("") == 0u);
  CHECK(crc32("123456789") == 0xCBF43926u);  // the CRC-32 check value
}

TEST_CASE("nvjet_stages follows every bf16 / fp16 nvjet kernel name of the gemmtile sweep") {
  const YAML::Node doc = YAML::LoadFile(test::root() + kSweep);
  const std::regex name(R"(nvjet_sm90_[a-z]+_(\d+)x(\d+)_64x(\d+)_)");
  std::set<std::pair<int, int>> shapes;
  for (const YAML::Node& c : doc["cases"])
    for (const YAML::Node& k : c["kernel_names"]) {
      const std::string s = k.as<std::string>();
      std::smatch g;
      if (!std::regex_search(s, g, name)) continue;
      const Tile t{std::stoll(g[1].str()), std::stoll(g[2].str())};
      INFO(s);
      CHECK(nvjet_stages(t) == std::stoll(g[3].str()));
      shapes.insert({static_cast<int>(t.m), static_cast<int>(t.n)});
    }
  CHECK(shapes.size() == 38);  // 38 tile shapes, 3 stages (320x128, 448x64) to 16 (64x32, 64x40)
}

TEST_CASE("the opt-in nvjet_wave_tiles: cuBLASLt's grids of whole waves, no stream-K") {
  const Calibration committed = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Calibration optin = load_calibration(test::root() + kOptIn);
  // 384 x 14336 x 8192 (fit half): cuBLASLt ran nvjet_sm90_tst_168x128_64x5_..._TNN, 3 x 86 = 258 CTAs, 120.57 us at
  // a steady 1965 MHz. The default streams a 128x128 hybrid (-4.0 %); the opt-in prices cuBLASLt's grid (-2.0 %).
  const OpCost d = priced(committed, 384, 14336, 8192);
  const OpCost o = priced(optin, 384, 14336, 8192);
  REQUIRE(d.tiling.has_value());
  REQUIRE(o.tiling.has_value());
  CHECK(d.tiling->stream_k);
  CHECK_FALSE(o.tiling->stream_k);
  CHECK(o.tiling->tile.m == 128);
  CHECK(o.tiling->tile.n == 168);
  CHECK(o.tiling->tiles == 258);
  CHECK(o.time_s == doctest::Approx(120.57e-6).epsilon(0.03));
  // 1024 x 14336 x 12288 (held out): nvjet_sm90_tst_176x128_64x5_..._TNN, 8 x 82 = 656 CTAs (5 waves less 4).
  const OpCost five = priced(optin, 1024, 14336, 12288);
  REQUIRE(five.tiling.has_value());
  CHECK(five.tiling->tile.m == 128);
  CHECK(five.tiling->tile.n == 176);
  CHECK(five.tiling->tiles == 656);
  // Read only where the block gives cuBLASLt's split rule: the eager block has none and does not move.
  CHECK(priced(optin, 384, 14336, 8192, Impl::eager).time_s ==
        doctest::Approx(priced(committed, 384, 14336, 8192, Impl::eager).time_s).epsilon(1e-12));
}

TEST_CASE("the gemmtile sweep, fused: the opt-in against the default on both halves") {
  const Halves d = sweep_errors(load_calibration(test::root() + "/hardware/h200.calibration.yaml"));
  const Halves o = sweep_errors(load_calibration(test::root() + kOptIn));
  REQUIRE(d.fit.size() == 125);
  REQUIRE(d.held.size() == 141);
  // Default: fit 5.8 / 14.5 %, held out 5.0 / 14.7 % (median / p90); opt-in: 5.4 / 14.5 %, 4.7 / 14.7 %.
  MESSAGE("default fit ", 100 * quantile(d.fit, 0.5), " / ", 100 * quantile(d.fit, 0.9), ", held out ",
          100 * quantile(d.held, 0.5), " / ", 100 * quantile(d.held, 0.9));
  MESSAGE("opt-in  fit ", 100 * quantile(o.fit, 0.5), " / ", 100 * quantile(o.fit, 0.9), ", held out ",
          100 * quantile(o.held, 0.5), " / ", 100 * quantile(o.held, 0.9));
  CHECK(quantile(d.held, 0.5) < 0.051);
  CHECK(quantile(d.held, 0.9) < 0.148);
  CHECK(quantile(o.held, 0.5) < quantile(d.held, 0.5) - 0.002);
  CHECK(quantile(o.held, 0.9) <= quantile(d.held, 0.9) + 1e-9);
  CHECK(quantile(o.fit, 0.5) < quantile(d.fit, 0.5) - 0.002);
  CHECK(quantile(o.fit, 0.9) <= quantile(d.fit, 0.9) + 1e-9);
}
