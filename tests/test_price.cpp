// price.hpp: the nominal roofline max(F/P, M/W), the prediction at effective roofs with the
// launch floor and the eager host gap, the seed's distances, step sums, and calibration files.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "perfmodel/attention_schedule.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/decode_attention.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/step.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {
const Card& a100() {
  static const Card c = test::catalogue().card("a100");
  return c;
}

// An uncalibrated small kernel's thread chain beyond a copy's: its thread's instructions beyond
// `launches` copies' (map kernels: one 8-element bf16 vector; copy 20 + 8 x 3.63 = 49.04), each
// waiting the default dependent-issue latency (4.1 cycles) at the A100's 1.41 GHz.
double a100_chain(double thread_instructions, int launches = 1) {
  return (thread_instructions - launches * (20 + 8 * 3.63)) * 4.1 / 1.41e9;
}
}  // namespace

TEST_CASE("uncalibrated roofs are the datasheet times the documented default efficiencies") {
  const Roofs r = make_roofs(a100(), nullptr);
  CHECK_FALSE(r.calibrated);
  CHECK(r.read_bandwidth == test::approx(a100().bandwidth * 0.88));
  CHECK(r.write_bandwidth == test::approx(a100().bandwidth * 0.88));
  CHECK(r.l2_bandwidth == test::approx(1.5 * r.read_bandwidth));
  CHECK(r.peak[static_cast<int>(Precision::bf16)] == test::approx(312e12 * 0.80));
  CHECK(r.peak[static_cast<int>(Precision::fp32)] == test::approx(19.5e12 * 0.70));
  CHECK(r.peak[static_cast<int>(Precision::fp8)] == 0);  // A100 has no FP8
  CHECK(r.attention_peak == test::approx(312e12 * 0.40));
  CHECK(r.kernel_floor_s == test::approx(1e-6));  // hardware/a100-80gb-sxm.yaml launch_overhead
  CHECK(r.pass_latency_s == test::approx(0.8e-6));
  CHECK(r.gemm_fixed_s == test::approx(2e-6));
  CHECK(r.gemm_fixed_per_k_s == test::approx(0.5e-6));
  CHECK(r.gemm_stream_efficiency == test::approx(0.9));
  CHECK(r.host_launch_s == test::approx(6e-6));
}

TEST_CASE("a large bf16 add on A100: memory-bound, times and distances by hand") {
  const Roofs r = make_roofs(a100(), nullptr);
  const Op add = ops::add("add", 64, int64_t{1} << 20, DType::bf16);  // 67,108,864 elements
  const double bytes = 6.0 * 67108864, flops = 67108864.0, bw = a100().bandwidth;
  const OpCost c = price(add, r, Impl::fused);
  // Nominal roofline: max(67.1e6 / 19.5e12, 402.7e6 / 2039.04e9) = 197.5 us.
  CHECK(c.roofline_time_s == test::approx(bytes / bw));
  // Prediction: memory at 88 % of the bandwidth = 224.4 us (reads and writes alike when
  // uncalibrated); compute is the longer of the FLOPs at 70 % of 19.5 TFLOP/s (4.9 us) and the
  // instructions at 85 % of the issue slots: (67.1e6 / 8 x 22 + 67.1e6 x 6.5) / 32 warp
  // instructions over 108 SMs x 4 x 1.41 GHz = 37.5 us; plus the launch floor (1 us), one
  // sweep's latency (0.8 us) and the thread chain beyond a copy's (22 + 8 x 6.5 = 74
  // instructions a thread against 49.04: 0.073 us).
  CHECK(c.memory_time_s == test::approx(bytes / (0.88 * bw)));
  const double issue = (67108864.0 / 8 * 22 + 67108864.0 * 6.5) / 32 / (108 * 4 * 1.41e9 * 0.85);
  CHECK(c.compute_time_s == test::approx(std::max(flops / (0.7 * 19.5e12), issue)));
  CHECK(c.compute_time_s == test::approx(37.47e-6).epsilon(0.002));
  const double chain = a100_chain(22 + 8 * 6.5);
  CHECK(chain == test::approx(0.0726e-6).epsilon(0.001));
  CHECK(c.time_s == test::approx(c.memory_time_s + 1e-6 + 0.8e-6 + chain));
  CHECK(c.bound == Bound::memory);
  CHECK(c.overhead_time_s == test::approx(1.8e-6 + chain));
  CHECK(c.time_s >= c.roofline_time_s);
  // Distances (seed 004 Day 15): to the roof = attainable / achieved = time / (bytes / bw); to
  // the ridge = (19.5e12 / bw) / (1/6); the roof gap of the fp32 peak = 1 / 0.7.
  CHECK(c.distance_to_roof == test::approx(c.time_s / (bytes / bw)));
  CHECK(c.distance_to_ridge == test::approx((19.5e12 / bw) * 6));
  CHECK(c.roof_gap == test::approx(1 / 0.7));
  CHECK(c.achieved_flops == test::approx(flops / c.time_s));
}

TEST_CASE("a big square GEMM is compute-bound; a tiny kernel is overhead-bound") {
  const Roofs r = make_roofs(a100(), nullptr);
  const OpCost g = price(ops::gemm("g", 8192, 8192, 8192, DType::bf16, DType::bf16, Precision::bf16), r, Impl::fused);
  // 2 x 8192³ / 312e12 = 3.524 ms nominal.
  CHECK(g.roofline_time_s == test::approx(2.0 * 8192 * 8192 * 8192 / 312e12));
  CHECK(g.bound == Bound::compute);
  CHECK(g.distance_to_ridge == test::approx(1.0));  // right of the ridge
  CHECK(g.time_s >= g.roofline_time_s / 0.8 * 0.999);  // at most 80 % of the peak
  // 16 elements: the fixed costs dominate: the 1 us floor, one 0.8 us sweep and the thread
  // chain, plus 96 bytes.
  const OpCost tiny = price(ops::add("a", 1, 16, DType::bf16), r, Impl::fused);
  CHECK(tiny.time_s == test::approx(1.8e-6 + a100_chain(22 + 8 * 6.5) + 96 / (0.88 * a100().bandwidth)));
  CHECK(tiny.bound == Bound::overhead);
  // Eager: the host issues each launch, 6 us; an 8-launch unfused GELU pays 8 of them.
  CHECK(price(ops::add("a", 1, 16, DType::bf16), r, Impl::eager).time_s == test::approx(6e-6));
  CHECK(price(ops::gelu("g", 1, 16, DType::bf16, false), r, Impl::eager).time_s == test::approx(48e-6));
  // Fused execution of the 8 kernels: 8 floors of 1 us; the first sweep waits on DRAM (0.8 us),
  // the seven others on L2 (0.4 us: the intermediates stay there); the eight threads' chains
  // (8 x (20.3 + 8 x 7.0) instructions against 8 copies'); 2 x 32 bytes cross DRAM, 16 x 32
  // stream at the L2 rate.
  const double gelu_chain = a100_chain(8 * (20.3 + 8 * 7.0), 8);
  CHECK(price(ops::gelu("g", 1, 16, DType::bf16, false), r, Impl::fused).time_s ==
        test::approx(8e-6 + 0.8e-6 + 7 * 0.4e-6 + gelu_chain + 2 * 32 / (0.88 * a100().bandwidth) +
                     16 * 32 / (1.5 * 0.88 * a100().bandwidth)));
}

TEST_CASE("an op in a precision the card lacks is an InputError naming the card") {
  const Card t4 = test::catalogue().card("t4");
  const Roofs r = make_roofs(t4, nullptr);
  const Op g = ops::gemm("g", 64, 64, 64, DType::bf16, DType::bf16, Precision::bf16);
  CHECK_THROWS_AS(price(g, r, Impl::fused), InputError);
}

TEST_CASE("price_step sums count x time per op, and never beats the nominal roofline") {
  const Model m = test::catalogue().model("llama2-7b");
  Workload w;
  w.batch = 16;
  w.ctx = 1024;
  const Step s = build_step(m, w);
  const Roofs r = make_roofs(a100(), nullptr);
  const StepCost c = price_step(s, r, Impl::fused);
  REQUIRE(c.ops.size() == s.ops.size());
  double t = 0, roof = 0;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    CAPTURE(s.ops[i].name);
    t += static_cast<double>(s.ops[i].count) * c.ops[i].time_s;
    roof += static_cast<double>(s.ops[i].count) * c.ops[i].roofline_time_s;
    CHECK(c.ops[i].time_s >= c.ops[i].roofline_time_s * (1 - 1e-12));
  }
  CHECK(c.time_s == test::approx(t));
  CHECK(c.roofline_time_s == test::approx(roof));
  CHECK(c.compute_time_s + c.memory_time_s + c.overhead_time_s == test::approx(c.time_s));
  CHECK(c.bound == Bound::memory);  // decode at batch 16 is far left of the ridge
  // The decode step's roofline is bounded below by its bytes over the nominal bandwidth.
  CHECK(c.roofline_time_s >= s.bytes() / a100().bandwidth * 0.99);
}

TEST_CASE("a calibration file replaces the default roofs") {
  const Calibration cal = load_calibration(test::data("calibration/a100-test.calibration.yaml"));
  CHECK(cal.card_key == "a100-80gb-sxm");
  CHECK(cal.device_name == "NVIDIA A100-SXM4-80GB");
  CHECK(cal.dram_bandwidth == test::approx(1800e9));
  CHECK(cal.l2_bandwidth == test::approx(5000e9));
  CHECK(cal.gemm_peak[static_cast<int>(Precision::bf16)] == test::approx(280e12));
  CHECK(cal.attention_peak == test::approx(196e12));
  CHECK(cal.kernel_floor_s == test::approx(3e-6));
  CHECK(cal.host_launch_s == test::approx(5e-6));
  CHECK(cal.ramp_t0_s == test::approx(1.5e-6));
  CHECK(cal.ramp_bandwidth == test::approx(1750e9));
  const Roofs r = make_roofs(a100(), &cal);
  CHECK(r.calibrated);
  CHECK(r.read_bandwidth == test::approx(2000e9));
  CHECK(r.write_bandwidth == test::approx(1600e9));
  CHECK(r.peak[static_cast<int>(Precision::bf16)] == test::approx(280e12));
  CHECK(r.peak[static_cast<int>(Precision::tf32)] == test::approx(156e12 * 0.8));  // not measured
  CHECK(r.attention_peak == test::approx(196e12));
  CHECK(r.kernel_floor_s == test::approx(3e-6));
  CHECK(r.pass_latency_s == test::approx(0.8e-6));
  CHECK(r.host_launch_s == test::approx(9e-6));  // the framework's dispatch, measured, over the CUDA launch
  CHECK(r.eager_view_s == test::approx(2e-6));
  // A memory-bound op: reads (2 x 134 MB) at 2000 GB/s, the write (134 MB) at 1600 GB/s, plus
  // the floor (3 us), one sweep (0.8 us) and the add's calibrated thread chain (0.2 us).
  const Op add = ops::add("add", 64, int64_t{1} << 20, DType::bf16);
  const double e = 2.0 * 67108864;
  CHECK(price(add, r, Impl::fused).time_s == test::approx(2 * e / 2000e9 + e / 1600e9 + 4.0e-6));
  // A GEMV streams its weights at 90 % of the read rate and pays the GEMM fixed cost
  // 2 us + 0.25 us x K/1024 (no split-K: N = 32000 fills the SMs): y[1,32000] = x W^T, K = 4096.
  const Op gemv = ops::gemm("lm_head", 1, 32000, 4096, DType::bf16, DType::bf16, Precision::bf16);
  const OpCost gc = price(gemv, r, Impl::fused);
  REQUIRE(gc.tiling);
  CHECK(gc.tiling->split_k == 1);
  const double gemv_read = (4096.0 + 32000.0 * 4096.0) * 2, gemv_write = 32000.0 * 2;
  CHECK(gc.time_s == test::approx(3e-6 + 2e-6 + 0.25e-6 * 4 + (gemv_read / 2000e9 + gemv_write / 1600e9) / 0.9));
}

TEST_CASE("a calibration survives to_yaml and back") {
  const Calibration cal = load_calibration(test::data("calibration/a100-test.calibration.yaml"));
  const std::filesystem::path tmp = std::filesystem::path(PERFMODEL_TEST_TMP) / "roundtrip.calibration.yaml";
  std::filesystem::create_directories(tmp.parent_path());
  {
    std::ofstream out(tmp);
    out << to_yaml(cal);
  }
  const Calibration back = load_calibration(tmp.string());
  CHECK(back.card_key == cal.card_key);
  CHECK(back.device_name == cal.device_name);
  CHECK(back.measured_on == cal.measured_on);
  CHECK(back.dram_bandwidth == test::approx(cal.dram_bandwidth));
  CHECK(back.l2_bandwidth.value() == test::approx(cal.l2_bandwidth.value()));
  for (int i = 0; i < kPrecisionCount; ++i) CHECK(back.gemm_peak[i].value_or(0) == test::approx(cal.gemm_peak[i].value_or(0)));
  CHECK(back.attention_peak.value() == test::approx(cal.attention_peak.value()));
  CHECK(back.kernel_floor_s == test::approx(cal.kernel_floor_s));
  CHECK(back.host_launch_s.value() == test::approx(cal.host_launch_s.value()));
  CHECK(back.ramp_t0_s == test::approx(cal.ramp_t0_s));
  CHECK(back.ramp_bandwidth == test::approx(cal.ramp_bandwidth));
  CHECK(back.read_bandwidth.value() == test::approx(cal.read_bandwidth.value()));
  CHECK(back.write_bandwidth.value() == test::approx(cal.write_bandwidth.value()));
  CHECK(back.pass_latency_s.value() == test::approx(cal.pass_latency_s.value()));
  CHECK(back.gemm_fixed_s.value() == test::approx(cal.gemm_fixed_s.value()));
  CHECK(back.gemm_fixed_per_k_s.value() == test::approx(cal.gemm_fixed_per_k_s.value()));
  CHECK(back.gemm_stream_efficiency.value() == test::approx(cal.gemm_stream_efficiency.value()));
  for (int i = 0; i < kKernelIdCount; ++i) {
    CHECK(back.thread_chain_s[i].has_value() == cal.thread_chain_s[i].has_value());
    if (cal.thread_chain_s[i]) CHECK(*back.thread_chain_s[i] == test::approx(*cal.thread_chain_s[i]));
  }
  CHECK(back.thread_chain_s[static_cast<int>(KernelId::rmsnorm)].value() == test::approx(0.3e-6));
  CHECK(!back.thread_chain_s[static_cast<int>(KernelId::silu_mul)]);  // not measured
  CHECK(back.power.limit_w == test::approx(cal.power.limit_w));
  CHECK(back.power.idle_w == test::approx(cal.power.idle_w));
  CHECK(back.power.tensor_w == test::approx(cal.power.tensor_w));
  CHECK(back.power.limit_w == test::approx(400.0));
  CHECK(back.attention_softmax_share == test::approx(0.3));
  CHECK(back.attention_cta_fixed_s == test::approx(1.5e-6));
  CHECK(back.decode.overlap.value() == test::approx(3.0));
  CHECK(back.eager_dispatch_s == test::approx(9e-6));
  CHECK(back.eager_view_s == test::approx(2e-6));
  CHECK(back.kernel_switch_s == test::approx(0.4e-6));
  std::filesystem::remove(tmp);
}

TEST_CASE("an L2-resident kernel chain waits on DRAM once and on L2 for every later sweep") {
  const Card h200 = test::catalogue().card("h200");
  const Roofs r = make_roofs(h200, nullptr);
  CHECK(r.l2_pass_latency_s == test::approx(0.4e-6));
  // Unfused GELU of 8 x 4096 bf16 (64 KiB): eight kernels, far inside half of the 60 MiB L2.
  const OpCost small = price(ops::gelu("g", 8, 4096, DType::bf16, false), r, Impl::fused);
  const double chain = (8 * (20.3 + 8 * 7.0) - 8 * (20 + 8 * 3.63)) * 4.1 / h200.cuda_clock_hz;
  const double fixed = 8 * r.kernel_floor_s + r.pass_latency_s + 7 * r.l2_pass_latency_s + chain;
  CHECK(small.time_s == test::approx(fixed + std::max(small.compute_time_s, small.memory_time_s)));
  // 1 GiB of it does not fit: every sweep pays the DRAM round trip.
  const OpCost big = price(ops::gelu("g", 131072, 4096, DType::bf16, false), r, Impl::fused);
  CHECK(big.time_s == test::approx(8 * r.kernel_floor_s + 8 * r.pass_latency_s + chain +
                                      std::max(big.compute_time_s, big.memory_time_s)));
}

TEST_CASE("small kernels: a calibrated thread chain per loop iteration, sweeps priced where their data is") {
  const Calibration cal = load_calibration(test::data("calibration/a100-test.calibration.yaml"));
  const Roofs r = make_roofs(a100(), &cal);
  // RMSNorm of one 4096-wide bf16 row: 256 threads of 8 elements walk it in 2 steps a sweep, so
  // its chain is 2 x 0.3 us; 8192 wide, 4 steps. Both sweeps wait on DRAM (the second fetches
  // the weight); 8 and 16 KiB rows stay within a CTA's 16 KiB window per sweep.
  const OpCost narrow = price(ops::rmsnorm("n", 1, 4096, DType::bf16, false), r, Impl::fused);
  CHECK(narrow.time_s == test::approx(3e-6 + 2 * 0.8e-6 + 2 * 0.3e-6 + std::max(narrow.compute_time_s, narrow.memory_time_s)));
  const OpCost wide = price(ops::rmsnorm("w", 1, 8192, DType::bf16, false), r, Impl::fused);
  CHECK(wide.time_s - std::max(wide.compute_time_s, wide.memory_time_s) == test::approx(3e-6 + 2 * 0.8e-6 + 4 * 0.3e-6));
  // A fused softmax's second sweep re-reads the row the first brought in: an L2 round trip
  // (default 0.4 us). Its chain is not calibrated here: the default from its instruction count.
  const OpCost sm = price(ops::softmax("s", 1, 4096, DType::bf16, true), r, Impl::fused);
  const double sm_chain = (122 + 34.1 * 16 - (20 + 8 * 3.63)) * 4.1 / 1.41e9;
  CHECK(sm.time_s - std::max(sm.compute_time_s, sm.memory_time_s) == test::approx(3e-6 + 0.8e-6 + 0.4e-6 + sm_chain));
  // Hot in L2 (a small working set re-run): the sweep waits on L2 and the bytes stream at the
  // L2 rate.
  Op hot = ops::add("h", 1, 4096, DType::bf16);
  hot.l2_hit = 1;
  const OpCost h = price(hot, r, Impl::fused);
  CHECK(h.memory_time_s == test::approx(3 * 8192 / 5000e9));
  CHECK(h.time_s == test::approx(3e-6 + 0.4e-6 + 0.2e-6 + h.memory_time_s));
}

TEST_CASE("flash prefill: per-CTA fixed cost plus tiles whose softmax share does not scale with the head dim") {
  const Card h200 = test::catalogue().card("h200");
  // With no fixed cost the critical path is the busiest SM's tiles times the tile time.
  const AttentionSchedule s = schedule_prefill_attention(2, 32, 1024, 1024, true, 0, h200.sm_count);
  CHECK(prefill_attention_critical_s(2, 32, 1024, 1024, true, 0, h200.sm_count, 0.0, 1e-6) == test::approx(s.units_critical * 1e-6));
  // 512 CTAs of 1..8 tiles on 132 SMs: a fixed cost per CTA adds about 512 / 132 of it.
  const double with_fixed = prefill_attention_critical_s(2, 32, 1024, 1024, true, 0, h200.sm_count, 1e-6, 1e-6);
  CHECK(with_fixed > s.units_critical * 1e-6 + 3e-6);
  CHECK(with_fixed < s.units_critical * 1e-6 + 6e-6);
  Calibration cal;
  cal.dram_bandwidth = 4e12;
  cal.kernel_floor_s = 1e-6;
  cal.attention_peak = 200e12;
  cal.attention_softmax_share = 0.4;
  const Roofs r = make_roofs(h200, &cal);
  const double t128 = 4.0 * 128 * 128 * 128 / (200e12 / 132);
  CHECK(attention_tile_time(r, 128) == test::approx(t128));
  CHECK(attention_tile_time(r, 64) == test::approx(t128 * (0.6 * 0.5 + 0.4)));
  // FP8 inputs: the MMA share at the fp8 tensor rate (the datasheet's, twice bf16's on the H200), the softmax share
  // unchanged.
  const double fp8_speedup = h200.peak_flops(Precision::fp8) / h200.peak_flops(Precision::bf16);
  CHECK(fp8_speedup == doctest::Approx(2.0).epsilon(0.01));
  CHECK(attention_tile_time(r, 256, Precision::fp8) == test::approx(t128 * (0.6 * 2 / fp8_speedup + 0.4)));
  CHECK(attention_tile_time(r, 128, Precision::fp16) == test::approx(t128));
  // Uncalibrated: the tile scales with the head dim, no fixed cost.
  const Roofs u = make_roofs(h200, nullptr);
  CHECK(attention_tile_time(u, 64) == test::approx(attention_tile_time(u, 128) / 2));
  CHECK(u.attention_cta_fixed_s == 0);
}

TEST_CASE("flash-decoding: a wave overlaps its KV stream and its CTAs' chains as (s^n + c^n)^(1/n)") {
  const Card h200 = test::catalogue().card("h200");
  // b 128, 4 KV heads of 128, 4096 keys: groups of 8 on tensor cores, 512 CTAs of 64 key tiles,
  // 3 per SM: one full wave of 396 and a partial one of 116.
  const DecodeSplit d = plan_decode_split(128, 32, 4, 4096, 128, h200);
  REQUIRE(d.ctas == 512);
  REQUIRE(d.resident_per_sm == 3);
  const double kv = 2.0 * 128 * 4 * 4096 * 128 * 2, bw = 4.66e12;
  DecodeCosts k;
  k.cpi = 4.1, k.cpi_per_cta = 1.8, k.cta_fixed_s = 1e-6;
  const double instr = d.warp_instructions_fixed + 64 * d.warp_instructions_per_tile;
  auto chain = [&](double on_sm) { return 1e-6 + instr * (4.1 + 1.8 * (on_sm - 1)) / h200.cuda_clock_hz; };
  const double s1 = 396 * (kv / 512) / bw, s2 = 116 * (kv / 512) / bw;
  k.overlap = 0;  // max
  CHECK(decode_split_time(d, kv, bw, h200, k) == test::approx(std::max(s1, chain(3)) + std::max(s2, chain(1))));
  k.overlap = 4;
  const double smooth = std::pow(std::pow(s1, 4) + std::pow(chain(3), 4), 0.25) + std::pow(std::pow(s2, 4) + std::pow(chain(1), 4), 0.25);
  CHECK(decode_split_time(d, kv, bw, h200, k) == test::approx(smooth));
  CHECK(smooth > std::max(s1, chain(3)) + std::max(s2, chain(1)));
}

TEST_CASE("profiles: written and read back; laid over the card's roofs only for the named profile") {
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  REQUIRE(cal.profiles.size() == 3);  // fused, eager, compiled
  // A gemm block (cuBLASLt through PyTorch; fit_gemm.py's values) on one profile.
  ProductionGemm& g = cal.profiles[0].gemm;
  g.fixed_s = 1.5e-6;
  g.split_k_reduce_s = 5e-6;
  g.cta_walk_per_1024_k_s = 0.3e-6;
  g.stream_efficiency = 0.9;
  g.fp8_peak = 1460e12;
  // ... and none on the next, whatever the committed file carries: a profile written without a
  // block reads back without one (the keys are per profile, not shared).
  cal.profiles[1].gemm = ProductionGemm{};
  const auto tmp = std::filesystem::temp_directory_path() / "perfmodel_profiles_roundtrip.yaml";
  {
    std::ofstream f(tmp);
    f << to_yaml(cal);
  }
  const Calibration back = load_calibration(tmp.string());
  std::filesystem::remove(tmp);
  REQUIRE(back.profiles.size() == 3);
  CHECK(back.profiles[0].gemm.measured());
  CHECK_FALSE(back.profiles[1].gemm.measured());
  for (size_t i = 0; i < 3; ++i) {
    const ProfileCalibration &a = cal.profiles[i], &b = back.profiles[i];
    CHECK(a.name == b.name);
    CHECK(b.attention_peak.has_value() == a.attention_peak.has_value());
    CHECK(b.attention_peak.value_or(0) == test::approx(a.attention_peak.value_or(0)));
    CHECK(b.attention_call_floor_s.has_value() == a.attention_call_floor_s.has_value());
    CHECK(b.attention_call_floor_s.value_or(0) == test::approx(a.attention_call_floor_s.value_or(0)));
    CHECK(b.decode.stream_bandwidth == test::approx(a.decode.stream_bandwidth));
    CHECK(b.decode.combine_per_split_s == test::approx(a.decode.combine_per_split_s));
    CHECK(b.host_per_kernel_s.has_value() == a.host_per_kernel_s.has_value());
    CHECK(b.host_per_kernel_s.value_or(0) == test::approx(a.host_per_kernel_s.value_or(0)));
    CHECK(b.decode.split_kv == a.decode.split_kv);
    CHECK(b.gemm.measured() == a.gemm.measured());
    CHECK(b.gemm.fixed_s.value_or(0) == test::approx(a.gemm.fixed_s.value_or(0)));
    CHECK(b.gemm.split_k_reduce_s.value_or(0) == test::approx(a.gemm.split_k_reduce_s.value_or(0)));
    CHECK(b.gemm.cta_walk_per_1024_k_s.value_or(0) == test::approx(a.gemm.cta_walk_per_1024_k_s.value_or(0)));
    CHECK(b.gemm.stream_efficiency.value_or(0) == test::approx(a.gemm.stream_efficiency.value_or(0)));
    CHECK(b.gemm.fp8_peak.value_or(0) == test::approx(a.gemm.fp8_peak.value_or(0)));
    CHECK(b.aten.rmsnorm_chain_s == test::approx(a.aten.rmsnorm_chain_s));
    CHECK(b.aten.softmax_smem_chain_s == test::approx(a.aten.softmax_smem_chain_s));
    CHECK(b.aten.strided_rate == test::approx(a.aten.strided_rate));
    CHECK(b.aten.cat_rate == test::approx(a.aten.cat_rate));
    CHECK(b.aten.generic_operand_rate == test::approx(a.aten.generic_operand_rate));
    CHECK(b.aten.grouped_mm_floor_s == test::approx(a.aten.grouped_mm_floor_s));
    CHECK(b.aten.grouped_mm_cta_rate == test::approx(a.aten.grouped_mm_cta_rate));
    CHECK(b.aten.grouped_mm_stream == test::approx(a.aten.grouped_mm_stream));
    CHECK((b.aten.grouped_mm_stream > 0) == (a.name == "eager"));  // only eager runs torch._grouped_mm
    CHECK(b.aten.norm_ctas_per_sm == a.aten.norm_ctas_per_sm);
    CHECK(b.cudnn_decode.measured() == a.cudnn_decode.measured());
    CHECK(b.cudnn_decode.kernel_floor_s == test::approx(a.cudnn_decode.kernel_floor_s));
    CHECK(b.cudnn_decode.reduction_floor_s == test::approx(a.cudnn_decode.reduction_floor_s));
    CHECK(b.cudnn_decode.stream_bandwidth == test::approx(a.cudnn_decode.stream_bandwidth));
    CHECK(b.graph_call_host_s == test::approx(a.graph_call_host_s));
  }
  // Every profile prices decode with cuDNN's GQA-packed kernel (the engine's with its own split
  // choice); only compiled measured the compiled call's host time.
  for (const char* p : {"fused", "eager", "compiled"}) CHECK(find_profile(cal.profiles, p)->cudnn_decode.measured());
  CHECK(find_profile(cal.profiles, "compiled")->graph_call_host_s > 0);
  // Only eager measured PyTorch's own kernels; the engine keeps FlashAttention-2's decode keys for
  // the MLA decode's split rate.
  CHECK(find_profile(cal.profiles, "eager")->aten.rows_measured());
  CHECK(!find_profile(cal.profiles, "fused")->aten.rows_measured());
  CHECK(find_profile(cal.profiles, "fused")->decode.measured());
  CHECK(!find_profile(cal.profiles, "compiled")->decode.measured());
  const Card h200 = test::catalogue().card("h200");
  const Roofs card = make_roofs(h200, &cal), fused = make_roofs(h200, &cal, Impl::fused);
  CHECK(card.attention_peak == test::approx(cal.attention_peak.value()));  // the backend's own kernel
  CHECK(fused.attention_peak == test::approx(find_profile(cal.profiles, "fused")->attention_peak.value()));
  CHECK(fused.source("attention_peak") == cal.source_file + ": profiles.fused.attention_peak");
  CHECK(fused.read_bandwidth == test::approx(card.read_bandwidth));  // the card's roofs stay
  CHECK(!card.production_decode.measured());
  CHECK(fused.production_decode.measured());
}
