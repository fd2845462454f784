// The first measurements on an H100 (validation/results/h100-first, h100-second: an H100 80GB HBM3 lease,
// 2026-12-05), priced with the H200's calibration carried to the die's sibling (sibling_calibration,
// calibration_transfer.hpp) as `perfmodel ... --card h100-sxm` prices them. No key is fitted on an H100, so every
// case is held out. The transfer's read rule (a read stream keeps its share of the datasheet rate) was chosen
// after h100-first's GEMV and cuDNN decode ratios were read; h100-second's sets were measured before it and
// never used to choose it. Issue 10's targets per kernel class.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/production_decode.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

const char* const kSets[] = {"h100-first/prod", "h100-first/ho16", "h100-second/ho25", "h100-second/third/heldout31"};
const char* const kDecodeSets[] = {"h100-first/prod",         "h100-first/ho16",          "h100-second/ho25",
                                   "h100-second/widegroup",   "h100-second/widecheck",    "h100-second/third/flash30",
                                   "h100-second/third/headdims", "h100-second/third/x256", "h100-second/third/heldout31"};

struct H100 {
  Card card;
  Calibration carried;
  Measurements m;
  std::vector<ProfileSetStats> priced, datasheet;
  H100() : card(test::catalogue().card("h100-sxm")) {
    const std::optional<Calibration> c = sibling_calibration(test::catalogue(), card);
    REQUIRE(c);
    carried = *c;
    for (const char* set : kSets) load_measurements(test::root() + "/validation/results/" + set + "/kernels.json", m);
    priced = summarize_profiles(evaluate_profiles(m, card, &carried));
    datasheet = summarize_profiles(evaluate_profiles(m, card, nullptr));
  }
};

const H100& h100() {
  static const H100 f;
  return f;
}

ProfileSetStats row(const std::vector<ProfileSetStats>& rows, Impl p, const std::string& kernel,
                    const std::string& impl = "") {
  for (const ProfileSetStats& s : rows)
    if (s.profile == p && s.kernel == kernel && s.implementation == impl) return s;
  FAIL("no H100 row " << to_string(p) << " " << kernel << " " << impl);
  return {};
}

void check_within(const ProfileSetStats& s, double median, double p90) {
  CAPTURE(to_string(s.profile));
  CAPTURE(s.kernel);
  CAPTURE(s.implementation);
  CAPTURE(s.all_median_abs);
  CAPTURE(s.all_p90_abs);
  CHECK(s.fitted_cases + s.held_out_cases >= 10);
  CHECK(s.all_median_abs <= median);
  CHECK(s.all_p90_abs <= p90);
}

}  // namespace

TEST_CASE("H100: the measured sets are the H100's") {
  CHECK(h100().m.cases.size() >= 500);
  CHECK(h100().m.device == "NVIDIA H100 80GB HBM3");
}

TEST_CASE("H100, carried calibration: GEMMs <= 5 % / 15 %, row ops and cuDNN prefill <= 8 % / 20 % (issue 10)") {
  for (Impl p : {Impl::fused, Impl::eager, Impl::compiled}) {
    check_within(row(h100().priced, p, "all gemm"), 0.05, 0.15);
    check_within(row(h100().priced, p, "all elementwise"), 0.08, 0.20);
  }
  check_within(row(h100().priced, Impl::fused, "all attention"), 0.08, 0.20);  // cuDNN's fused SDPA prefill
  check_within(row(h100().priced, Impl::eager, "attention_prefill_flash2", "torch.sdpa.flash"), 0.08, 0.20);
}

TEST_CASE("H100: the carried calibration predicts better than the datasheet defaults") {
  for (Impl p : {Impl::fused, Impl::eager, Impl::compiled})
    for (const char* set : {"all gemm", "all elementwise", "all attention"}) {
      const ProfileSetStats c = row(h100().priced, p, set), d = row(h100().datasheet, p, set);
      CAPTURE(to_string(p));
      CAPTURE(set);
      CHECK(c.all_median_abs < d.all_median_abs);
    }
}

TEST_CASE("H100: cuDNN's GQA-packed decode, every set, <= 8 % / 20 % (issue 10)") {
  const Roofs r = make_roofs(h100().card, &h100().carried, Impl::eager);
  std::vector<double> errors;
  for (const char* set : kDecodeSets) {
    Measurements m;
    load_measurements(test::root() + "/validation/results/" + set + "/kernels.json", m);
    for (const MeasuredCase& c : m.cases) {
      const KernelCase& k = c.kernel;
      if (c.implementation != "torch.sdpa.cudnn" || k.q_len != 1) continue;
      const Op op = ops::attention_decode_cudnn("d", k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim, DType::bf16,
                                                DType::bf16);
      const double kernels_s = c.measured_s - harness_idle_s(c.kernels_per_launch);
      errors.push_back(std::fabs(price(op, r, Impl::fused).time_s / kernels_s - 1));
    }
  }
  CAPTURE(errors.size());
  CHECK(errors.size() >= 100);
  const double median = quantile(errors, 0.5), p90 = quantile(errors, 0.9);
  MESSAGE("h100 cudnn decode: n=" << errors.size() << " median " << 100 * median << " % p90 " << 100 * p90 << " %");
  CHECK(median <= 0.08);
  CHECK(p90 <= 0.20);
}

TEST_CASE("H100: a read stream keeps the source's share of the datasheet rate; the copy takes the default") {
  const Calibration own = load_calibration(test::catalogue().calibration_path("h200"));
  const Card h200 = test::catalogue().card("h200");
  REQUIRE(h100().carried.read_bandwidth);
  CHECK(*h100().carried.read_bandwidth == test::approx(*own.read_bandwidth * h100().card.bandwidth / h200.bandwidth));
  CHECK(h100().carried.dram_bandwidth == test::approx(h100().card.bandwidth * DefaultEfficiency::memory));
  // The H100's measured copy (h100-second/bw.txt: 3011 GB/s, 4 GiB, CUDA events) within 3 % of that default.
  CHECK(std::fabs(h100().carried.dram_bandwidth / 3010.9e9 - 1) < 0.03);
}

namespace {

// Every H100 set holding FlashAttention-2 decode calls (PyTorch's flash SDPA), |predicted / measured - 1| per call;
// `kernel` 'split': the calls that run flash_fwd_splitkv_kernel, 'whole': those that run flash_fwd_kernel alone.
std::vector<double> flash2_decode_errors(const Calibration& cal, const std::string& kernel = "") {
  std::vector<std::string> sets(std::begin(kDecodeSets), std::end(kDecodeSets));
  for (const char* s : {"h100-second/tailpace", "h100-second/third/tailprobe", "h100-widencu/tailpace"}) sets.push_back(s);
  std::vector<double> out;
  for (const std::string& set : sets) {
    Measurements m;
    load_measurements(test::root() + "/validation/results/" + set + "/kernels.json", m);
    std::set<std::string> split;
    for (const MeasuredCase& c : m.cases) {
      const KernelCase& k = c.kernel;
      if (plan_production_decode(k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim, h100().card.sm_count).splits > 1)
        split.insert(k.name);
    }
    for (const ProfileCaseError& e : evaluate_profiles(m, h100().card, &cal))
      if (e.implementation == "torch.sdpa.flash" && e.error.detail == "attention_decode_flash2" &&
          (kernel.empty() || (kernel == "split") == (split.count(e.error.name) > 0)))
        out.push_back(std::fabs(e.error.error));
  }
  return out;
}

// One call's measured time in a committed set (FlashAttention-2 through PyTorch's flash SDPA).
double measured_flash2_s(const std::string& set, const std::string& name) {
  Measurements m;
  load_measurements(test::root() + "/validation/results/" + set + "/kernels.json", m);
  for (const MeasuredCase& c : m.cases)
    if (c.implementation == "torch.sdpa.flash" && c.kernel.name == name) return c.measured_s;
  FAIL("no case " << name << " in " << set);
  return 0;
}

}  // namespace

TEST_CASE("H100: FlashAttention-2's decode, every set, <= 8 % / 20 % (issue 10); a part-full split wave fills its DRAM") {
  // attention_decode_flash2.cpp, wave_stream_factor: a split wave takes the longer of DRAM's time for its CTAs' bytes
  // and one CTA's own walk at its slot's pace, which the transfer keeps (the die's). Before, a part-full wave streamed
  // at its part's share of the card's stream on the H100 too: 192 calls 8.9 / 22.2 %, the 80 split ones 9.1 / 31.8 %
  // (mean +10.6 %, all slow). The H200's prices are the same by construction (its full wave just reaches the stream).
  const std::vector<double> errors = flash2_decode_errors(h100().carried);
  CHECK(errors.size() >= 190);
  const double median = quantile(errors, 0.5), p90 = quantile(errors, 0.9);
  MESSAGE("h100 flash2 decode: n=" << errors.size() << " median " << 100 * median << " % p90 " << 100 * p90 << " %");
  CHECK(median <= 0.08);
  CHECK(p90 <= 0.20);
  // The old rule back (a CTA slot's pace scaled with the card's stream): over the target again.
  Calibration shared = h100().carried;
  for (ProfileCalibration& p : shared.profiles)
    p.decode.cta_stream_bandwidth = p.decode.stream_bandwidth / (2.0 * h100().card.sm_count);
  const std::vector<double> split_now = flash2_decode_errors(h100().carried, "split");
  const std::vector<double> before = flash2_decode_errors(shared, "split");
  MESSAGE("split calls: n=" << split_now.size() << " median " << 100 * quantile(split_now, 0.5) << " %, the old rule "
                             << 100 * quantile(before, 0.5) << " %");
  CHECK(split_now.size() >= 75);
  CHECK(quantile(split_now, 0.5) <= 0.05);
  CHECK(quantile(before, 0.5) > 0.08);
  // b1 x 32 / 8 heads x 131072 keys: 8 CTAs x 28 splits = 224 of 264 slots. The H100 took 1.30x the H200's time
  // (datasheets 1.43x): the part wave's CTAs fill the H100's slower DRAM, not the H200's (the H200's price of it is
  // 9 % slow, a miss of its own; the H100's was 18 % slow before the rule).
  const std::string name = "sdpa_flash_decode_bf16_b1_ctx131072_h32_kv8_d128";
  const double h100_s = measured_flash2_s("h100-first/prod", name);
  const Card h200 = test::catalogue().card("h200");
  const Calibration own = load_calibration(test::catalogue().calibration_path("h200"));
  const Op op = ops::attention_decode_flash2("fa2", 1, 32, 8, 131072, 128, DType::bf16, DType::bf16);
  const double on_h100 = price(op, make_roofs(h100().card, &h100().carried, Impl::eager), Impl::fused).time_s;
  const double on_h200 = price(op, make_roofs(h200, &own, Impl::eager), Impl::fused).time_s;
  CAPTURE(h100_s / measured_flash2_s("h200-production", name));
  CAPTURE(on_h100 / on_h200);
  CHECK(std::fabs(on_h100 / h100_s - 1) < 0.05);
  CHECK(on_h100 / on_h200 < 0.95 * h200.bandwidth / h100().card.bandwidth);  // not the datasheets' ratio
}


TEST_CASE("H100: FlashAttention-2's non-split decode streams in waves; a last wave within the SMs walks alone") {
  // attention_decode_flash2.cpp: the non-split kernel's K / V stream over wave_stream_factor, as the split kernel's. A
  // last wave of no more CTAs than SMs takes one lone CTA's walk (flash2.lone_pace), not its share of DRAM's stream.
  // Read off the committed sets (twenty-second session): the memory-bound head dim 256 grids with such a wave were
  // priced 15-22 % fast with the stream spread evenly over the grid.
  const std::vector<double> whole = flash2_decode_errors(h100().carried, "whole");
  CHECK(whole.size() >= 100);
  MESSAGE("h100 flash2 non-split decode: n=" << whole.size() << " median " << 100 * quantile(whole, 0.5) << " % p90 "
                                             << 100 * quantile(whole, 0.9) << " %");
  CHECK(quantile(whole, 0.5) <= 0.08);
  CHECK(quantile(whole, 0.9) <= 0.20);
  const Roofs r = make_roofs(h100().card, &h100().carried, Impl::eager);
  auto priced = [&](int64_t batch) {
    return price(ops::attention_decode_flash2("fa2", batch, 32, 4, 2600, 256, DType::bf16, DType::bf16), r, Impl::fused)
        .time_s;
  };
  // b66 x 4 KV heads: one full wave of 264 CTAs; b70: 16 more, alone on their SMs, each walking its whole 2.7 MB.
  CHECK(priced(70) / priced(66) > 1.3);
  CHECK(std::fabs(priced(70) / measured_flash2_s("h100-heldout34/heldout34", "sdpa_flash_decode_bf16_b70_ctx2600_h32_kv4_d256") - 1) <
        0.05);
}
TEST_CASE("H100: FlashAttention-2's split decode on grids planned after the rule (h100-heldout33)") {
  // The 25 grids of validation/scripts/production/heldout33.py, measured on an H100 after commit d81efd4 with both
  // rules' prices committed first: the 22 split calls 2.1 / 8.4 % (the old rule's 7.8 / 24.1 %).
  Measurements m;
  load_measurements(test::root() + "/validation/results/h100-heldout33/heldout33/kernels.json", m);
  std::vector<double> split, all;
  for (const ProfileCaseError& e : evaluate_profiles(m, h100().card, &h100().carried)) {
    if (e.implementation != "torch.sdpa.flash" || e.error.detail != "attention_decode_flash2") continue;
    all.push_back(std::fabs(e.error.error));
    const bool one_kernel = e.error.name.find("_b40_ctx1200_") != std::string::npos ||
                            e.error.name.find("_b90_ctx2500_") != std::string::npos ||
                            e.error.name.find("_b44_ctx1300_") != std::string::npos;
    if (!one_kernel) split.push_back(std::fabs(e.error.error));
  }
  REQUIRE(all.size() == 25);
  REQUIRE(split.size() == 22);
  CAPTURE(quantile(split, 0.5));
  CAPTURE(quantile(split, 0.9));
  CHECK(quantile(split, 0.5) <= 0.04);
  CHECK(quantile(split, 0.9) <= 0.12);
  CHECK(quantile(all, 0.5) <= 0.08);
  CHECK(quantile(all, 0.9) <= 0.20);
}

TEST_CASE("H100: a held-out set planned after the twenty-sixth session's changes (h100-heldout36), issue 10's targets") {
  // validation/scripts/production/heldout36.py, committed (3927ee1) before its run: five models never measured and two
  // attention shapes (GQA groups 7 and 9, head dim 96), every case held out. Measured: GEMMs 4.4-4.7 / 11.4-12.8 %,
  // row ops eager 2.6 / 17.3 % and compiled 6.7 / 13.8 %, cuDNN prefill 5.5 / 11.7 %, FlashAttention-2 prefill 1.2 /
  // 7.3 % and decode 7.2 / 13.4 %, cuDNN decode 1.5 / 4.7 %.
  Measurements m;
  load_measurements(test::root() + "/validation/results/h100-heldout36/kernels.json", m);
  REQUIRE(m.device == "NVIDIA H100 80GB HBM3");
  const std::vector<ProfileSetStats> s = summarize_profiles(evaluate_profiles(m, h100().card, &h100().carried));
  for (Impl p : {Impl::fused, Impl::eager, Impl::compiled}) {
    check_within(row(s, p, "all gemm"), 0.05, 0.15);
    check_within(row(s, p, "all elementwise"), 0.08, 0.20);
  }
  check_within(row(s, Impl::fused, "all attention"), 0.08, 0.20);
  check_within(row(s, Impl::eager, "all attention"), 0.08, 0.20);
  const Roofs r = make_roofs(h100().card, &h100().carried, Impl::eager);
  std::vector<double> decode;
  for (const MeasuredCase& c : m.cases) {
    const KernelCase& k = c.kernel;
    if (c.implementation != "torch.sdpa.cudnn" || k.q_len != 1) continue;
    const Op op = ops::attention_decode_cudnn("d", k.batch, k.heads, k.kv_heads, k.kv_len, k.head_dim, DType::bf16,
                                              DType::bf16);
    decode.push_back(std::fabs(price(op, r, Impl::fused).time_s / (c.measured_s - harness_idle_s(c.kernels_per_launch)) - 1));
  }
  REQUIRE(decode.size() == 12);
  CHECK(quantile(decode, 0.5) <= 0.08);
  CHECK(quantile(decode, 0.9) <= 0.20);
}
