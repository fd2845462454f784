// Branch decodeocc: how many of cuDNN's decode CTAs (..._16x128x<d>_1x4x1) an SM holds. Nsight
// Compute reads the kernel's launch on the H200 (validation/results/h200-decodeocc/ncu.csv): 183
// registers a thread and 86,336 B of shared memory at head dim 128 (2 CTAs an SM by either), 120
// registers and 45,376 B at 64 (4, by registers), 160 and 86,336 B at 256 (2, two CTAs a (sequence,
// KV head)). The count from shared memory alone (3, 6, 1) put the wave edges at 396 / 792 CTAs; the
// CTA-count sweep of the same set steps at 264 / 528 (d 128, 68 -> 85 us at 2048 keys) and 528 (d 64).
// Nothing was fitted on the sweep: all 202 cases are held out.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/occupancy.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/stats.hpp"
#include "cudnn_decode_law.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

Roofs eager_roofs() {
  static const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  return make_roofs(test::catalogue().card("h200"), &cal, Impl::eager);  // no mask: the resident rule
}

double priced(const Roofs& r, int64_t batch, int64_t heads, int64_t kv_heads, int64_t keys, int64_t head_dim) {
  return price(ops::attention_decode_cudnn("a", batch, heads, kv_heads, keys, head_dim, DType::bf16, DType::bf16), r,
               Impl::fused)
      .time_s;
}

// |priced / measured - 1| of a set's cuDNN decode calls at groups wider than the 16-row tile, against the harness
// time less the idle a graph replay holds after the call's kernels, as docs/targets.md compares.
std::vector<double> wide_group_errors(const Roofs& r, const std::string& set) {
  Measurements m;
  load_measurements(test::root() + "/validation/results/" + set + "/kernels.json", m);
  std::vector<double> out;
  for (const MeasuredCase& c : m.cases) {
    const KernelCase& k = c.kernel;
    if (c.implementation != "torch.sdpa.cudnn") continue;
    REQUIRE(k.heads / k.kv_heads > 16);
    const double kernels_s = c.measured_s - harness_idle_s(c.kernels_per_launch);
    out.push_back(std::fabs(priced(r, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim) / kernels_s - 1));
  }
  return out;
}

}  // namespace

TEST_CASE("cuDNN decode occupancy: the card's rules over the kernel's measured registers and shared memory") {
  const Card h200 = test::catalogue().card("h200");
  // ncu's launch__occupancy_limit_registers / _shared_mem for the three variants.
  CHECK(occupancy(h200, KernelResources{128, 183, 86336}, 1).limit_registers == 2);
  CHECK(occupancy(h200, KernelResources{128, 183, 86336}, 1).limit_shared_memory == 2);
  CHECK(occupancy(h200, KernelResources{128, 120, 45376}, 1).limit_registers == 4);
  CHECK(occupancy(h200, KernelResources{128, 120, 45376}, 1).limit_shared_memory == 5);
  CHECK(occupancy(h200, KernelResources{128, 160, 86336}, 1).limit_registers == 3);
  CHECK(occupancy(h200, KernelResources{128, 160, 86336}, 1).blocks_per_sm == 2);
  // Priced wave edges at d 128 (32 / 8 heads, one CTA a sequence and KV head, 2048 keys): a jump past
  // 264 CTAs (measured 68.1 -> 85.2 us), none past 396 (101.99 -> 103.26 us measured at 392 -> 400).
  const Roofs r = eager_roofs();
  CHECK(priced(r, 34, 32, 8, 2048, 128) / priced(r, 33, 32, 8, 2048, 128) > 1.2);
  CHECK(priced(r, 50, 32, 8, 2048, 128) / priced(r, 49, 32, 8, 2048, 128) < 1.05);
  // d 64 (16 / 4 heads): the edge at 528 CTAs (65.4 -> 76.7 us measured at 512 -> 536).
  CHECK(priced(r, 134, 16, 4, 2048, 64) / priced(r, 132, 16, 4, 2048, 64) > 1.1);
}

TEST_CASE("cuDNN decode over the CTA-count sweep (h200-decodeocc, held out of every fit)") {
  const Roofs r = eager_roofs();
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-decodeocc/kernels.json", m);
  std::vector<double> all, edge;
  for (const MeasuredCase& c : m.cases) {
    const KernelCase& k = c.kernel;
    REQUIRE(c.implementation == "torch.sdpa.cudnn");
    const double e = priced(r, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim) / c.measured_s - 1;
    REQUIRE(std::isfinite(e));
    all.push_back(std::fabs(e));
    // One full wave of 264 and a partial second, d 128: where the count from shared memory priced one wave
    // (-12 to -21 % at 272-360 CTAs, 2048 keys).
    const int64_t ctas = k.batch * k.kv_heads;
    if (k.head_dim == 128 && k.kv_len == 2048 && ctas > 264 && ctas <= 360) edge.push_back(std::fabs(e));
  }
  REQUIRE(all.size() == 202);
  REQUIRE(edge.size() == 12);
  CAPTURE(quantile(all, 0.5));
  CAPTURE(quantile(all, 0.9));
  CAPTURE(quantile(edge, 0.5));
  // Achieved: 2.4 / 8.2 % (median / p90) over the 202 cases, 3.1 / 12.8 % with the old count; at the
  // edge 2.5 % median. What is left: a tail past the second or third full wave runs mostly hidden
  // (536-576 CTAs at d 128 +7 to +14 %, 800 +15 %; d 64 1064 +13 %), the waves no longer in step.
  CHECK(quantile(all, 0.5) <= 0.03);
  CHECK(quantile(all, 0.9) <= 0.09);
  CHECK(quantile(edge, 0.5) <= 0.04);
}

TEST_CASE("cuDNN decode: a lone walk pays a whole tile's wait for its partial last tile (branch wholetiles)") {
  // Gemma-2-9B's heads (d 256) at batch 230 over 300 keys: 1840 (sequence, KV head) pairs, one pair an SM, 13 full
  // waves and 124 pairs, each a lone walk of 3 whole tiles (2.3 before: h200-heldout23 #22 measured 218.5 us, priced
  // 154.9), joined with the card's stream (two CTAs a pair share the SM: branch decodeknee).
  const Roofs r = eager_roofs();
  const Op op = ops::attention_decode_cudnn("g", 230, 16, 8, 300, 256, DType::bf16, DType::bf16);
  auto priced = [](const Op& o) {
    const double per_pair = o.bytes() / 1840, walk = cudnn_law::walk(per_pair, 3, true);
    return 13 * cudnn_law::joined(132 * per_pair / cudnn_law::kStream, walk) +
           cudnn_law::joined(124 * per_pair / cudnn_law::kStream, walk);
  };
  CHECK(132 * op.bytes() / 1840 / cudnn_law::kStream < cudnn_law::walk(op.bytes() / 1840, 3, true));
  CHECK(price(op, r, Impl::fused).memory_time_s == test::approx(priced(op)).epsilon(1e-6));
  // 384 keys are the same three tiles: the walk grows by the bytes only.
  const Op full = ops::attention_decode_cudnn("g", 230, 16, 8, 384, 256, DType::bf16, DType::bf16);
  CHECK(price(full, r, Impl::fused).memory_time_s == test::approx(priced(full)).epsilon(1e-6));
  CHECK(cudnn_law::walk(full.bytes() / 1840, 3, true) - cudnn_law::walk(op.bytes() / 1840, 3, true) ==
        test::approx((full.bytes() - op.bytes()) / 1840 / cudnn_law::kCtaStream));
}

TEST_CASE("cuDNN decode over whole and partial key tiles (h200-wholetiles, wholetiles' check, nothing fitted)") {
  const Roofs r = eager_roofs();
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-wholetiles/kernels.json", m);
  std::vector<double> all;
  for (const MeasuredCase& c : m.cases) {
    const KernelCase& k = c.kernel;
    all.push_back(std::fabs(priced(r, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim) / c.measured_s - 1));
  }
  REQUIRE(all.size() == 45);
  CAPTURE(quantile(all, 0.5));
  CAPTURE(quantile(all, 0.9));
  // Achieved 10.7 / 18.3 % (14.0 / 23.1 % with fractional tiles). Short walks at full slots stay fast (-9 to -22 %).
  CHECK(quantile(all, 0.5) <= 0.12);
  CHECK(quantile(all, 0.9) <= 0.20);
}

TEST_CASE("cuDNN decode between head dims 128 and 256: the x256 kernel's walk, the call's own DRAM bytes (x256 sets)") {
  // The rule (runs_as_x256) was read off h200-headdims' four calls at 160 / 192 (-35..-46 % at their own dim) and
  // committed before h200-x256 was measured: 14 calls at 144 / 160 / 192 / 224, batch 1-128, 1000-60000 keys, GQA
  // groups 1-4. At their own dims they are priced 33-52 % fast; as the 256 call, 6.1 / 11.3 %, and 12.5 / 19.6 % on
  // the H100 (h100-second/third/x256), all slow there: the 256 call's DRAM stream, where DRAM delivers the call's own
  // rows. Twenty-sixth session: the walk stays the 256 call's, the stream takes the call's bytes (no parameter).
  const Roofs r = eager_roofs();
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-x256/kernels.json", m);
  std::vector<double> held, own_dim;
  for (const MeasuredCase& c : m.cases) {
    const KernelCase& k = c.kernel;
    if (c.implementation != "torch.sdpa.cudnn" || k.head_dim <= 128 || k.head_dim >= 256) continue;
    const double t = priced(r, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim);
    const double as_256 = priced(r, k.batch, k.heads, k.kv_heads, k.kv_len, 256);
    CHECK(t <= as_256 * (1 + 1e-12));
    CHECK(t >= as_256 * static_cast<double>(k.head_dim) / 256.0);
    held.push_back(std::fabs(t / c.measured_s - 1));
    // MLA's expanded heads (values of 128) keep one CTA a unit at their own dim: what priced its steps.
    Op mla = ops::attention_decode_cudnn("mla", k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim, DType::bf16, DType::bf16);
    mla.attention.v_head_dim = 128;
    own_dim.push_back(std::fabs(price(mla, r, Impl::fused).time_s / c.measured_s - 1));
  }
  REQUIRE(held.size() == 14);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.05);  // 3.7 %
  CHECK(quantile(held, 0.9) <= 0.14);  // 13.3 % (b1 split calls at 144 / 224, -12 / -14 %: the 256 split's own miss)
  CHECK(quantile(own_dim, 0.5) >= 0.30);
  // The same 14 shapes on the H100, the H200's calibration carried to the die.
  const Card h100 = test::catalogue().card("h100-sxm");
  static const Calibration carried = *sibling_calibration(test::catalogue(), h100);
  const Roofs r100 = make_roofs(h100, &carried, Impl::eager);
  Measurements m100;
  load_measurements(test::root() + "/validation/results/h100-second/third/x256/kernels.json", m100);
  std::vector<double> h100_held;
  for (const MeasuredCase& c : m100.cases) {
    const KernelCase& k = c.kernel;
    if (c.implementation != "torch.sdpa.cudnn" || k.head_dim <= 128 || k.head_dim >= 256) continue;
    h100_held.push_back(std::fabs(priced(r100, k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim) / c.measured_s - 1));
  }
  REQUIRE(h100_held.size() == 14);
  CAPTURE(quantile(h100_held, 0.5));
  CAPTURE(quantile(h100_held, 0.9));
  CHECK(quantile(h100_held, 0.5) <= 0.07);  // 5.8 %
  CHECK(quantile(h100_held, 0.9) <= 0.15);  // 13.4 %
}

TEST_CASE("cuDNN decode at a GQA group wider than the 16-row tile: every CTA walks its unit (h200-widegroup, held out)") {
  // Branch widegroup (attention_decode_cudnn.cpp, resident_stream_s) was read off h200-heldout31's two Falcon-7B calls
  // (71 query heads on one KV head: -26 / -38 % with the unit's walk shared by its 5 CTAs) and committed before
  // h200-widegroup was measured: 20 calls at groups 24-128 (2-8 query tiles), head dims 64 / 128 / 256. With the shared
  // walk they were 23.2 / 40.1 % (median / p90), all fast; with the rule 14.1 / 27.1 %. Branch smintake then fitted the
  // SM's K / V intake (kSmIntake) on h200-wideprobe alone: 9.8 / 18.2 % here, not fitted on. The merge's CTA a query
  // row (kMergePerRow, fitted on h200-splitgrid's merges; twenty-sixth session): 7.7 / 17.5 %.
  const Roofs r = eager_roofs();
  const std::vector<double> held = wide_group_errors(r, "h200-widegroup");
  REQUIRE(held.size() == 20);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.08);  // 7.7 % (issue 10's target)
  CHECK(quantile(held, 0.9) <= 0.19);  // 17.5 %
  // A walk-bound call grows with the query tiles: 71 heads on one KV head (5 tiles) against 16 (1 tile), batch 2 over
  // 40000 keys (split: every split CTA walks its run of the unit's keys).
  CHECK(priced(r, 2, 71, 1, 40000, 64) > 1.2 * priced(r, 2, 16, 1, 40000, 64));
  // The SM's intake: 60 units of 1500 keys at head dim 64 take 17.2 us priced flat from 2 to 8 tiles a unit without
  // it; with it 8 tiles (four CTAs an SM) cost more than 2 (one an SM), as h200-wideprobe measured (24.6 / 14.7 us).
  CHECK(priced(r, 60, 128, 1, 1500, 64) > 1.3 * priced(r, 60, 32, 1, 1500, 64));
}

TEST_CASE("cuDNN decode at wide GQA groups, the check planned after branches widegroup and smintake (h200-widecheck)") {
  // 20 calls at groups 24-112 a KV head, head dims 64 / 128 / 256, split and not, measured after kSmIntake was fitted on
  // h200-wideprobe; nothing fitted on them. Main before both rules: 20.3 / 35.8 %; widegroup alone 10.4 / 17.3 %.
  const Roofs r = eager_roofs();
  const std::vector<double> held = wide_group_errors(r, "h200-widecheck");
  REQUIRE(held.size() == 20);
  CAPTURE(quantile(held, 0.5));
  CAPTURE(quantile(held, 0.9));
  CHECK(quantile(held, 0.5) <= 0.08);  // 6.4 % (issue 10's target)
  CHECK(quantile(held, 0.9) <= 0.16);  // 13.6 %
}
