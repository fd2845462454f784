// A profile's keys refitted on measured production calls (lib/src/calibration/profile_key_fit.cpp;
// `perfmodel calibrate --profile P --only attention|decode|gemm --from-kernels FILE`): the fit on a file's even
// cases, its odd ones held out.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "cli_support.hpp"

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_key_fit.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

Measurements production() {
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-production/kernels.json", m);
  return m;
}

// The committed calibration without the profile's four attention keys: the card's (datasheet-derived) start.
Calibration without_attention(Impl profile) {
  Calibration c = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  for (auto& p : c.profiles)
    if (p.name == to_string(profile)) {
      p.attention_peak.reset();
      p.attention_softmax_share.reset();
      p.attention_cta_fixed_s.reset();
      p.attention_call_floor_s.reset();
    }
  return c;
}

void report(const std::string& what, const ProfileFit& f) {
  std::string keys;
  for (const FittedKey& k : f.keys) {
    const double scale = k.unit == KeyUnit::seconds ? 1e6 : (k.unit == KeyUnit::share || k.unit == KeyUnit::ratio) ? 1 : 1e-12;
    keys += " " + k.path + " " + std::to_string(k.before * scale) + " -> " + std::to_string(k.after * scale) +
            (k.determined ? ";" : " (undetermined);");
  }
  MESSAGE(what << " " << to_string(f.part) << ": held-out median / p90 " << f.held_before.median << " / " << f.held_before.p90
               << " -> " << f.held_after.median << " / " << f.held_after.p90 << " (datasheet " << f.held_datasheet.median
               << " / " << f.held_datasheet.p90 << ", " << f.held_after.cases << " cases); fit " << f.fit_before.median
               << " -> " << f.fit_after.median << " (" << f.fit_after.cases << ");" << keys);
}

}  // namespace

TEST_CASE("refitted from the card's values on h200-production's even cuDNN prefill calls, the odd ones meet the issue") {
  const Card card = test::catalogue().card("h200");
  for (Impl profile : {Impl::fused, Impl::eager}) {
    CAPTURE(to_string(profile));
    Calibration cal = without_attention(profile);
    const ProfileFit f = fit_profile_part(production(), card, cal, profile, ProfilePart::attention);
    CAPTURE(f.held_before.median);
    CAPTURE(f.held_after.median);
    CAPTURE(f.held_after.p90);
    report(to_string(profile), f);
    CHECK(f.fit_after.cases >= 10);
    CHECK(f.held_after.cases >= 10);
    CHECK(f.fit_after.median < f.fit_before.median);
    CHECK(f.held_after.median <= 0.08);  // issue 10: 8 % / 20 %
    CHECK(f.held_after.p90 <= 0.20);
    // Never worse than the datasheet defaults (issue 10, item 2).
    CHECK(f.held_after.median < f.held_datasheet.median);
    // The keys are physical: a rate under the bf16 peak, a share in [0, 1), times >= 0.
    CHECK(f.key("attention_peak").after < card.peak[static_cast<int>(Precision::bf16)]);
    CHECK(f.key("attention_softmax_share").after >= 0);
    CHECK(f.key("attention_softmax_share").after < 1);
    CHECK(f.key("attention_call_floor").after >= 0);
  }
}

TEST_CASE("a file without enough cuDNN prefill calls is refused") {
  Measurements m;
  load_measurements(test::root() + "/validation/results/h200-widegroup/kernels.json", m);  // decode only
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  CHECK_THROWS_AS(fit_profile_part(m, test::catalogue().card("h200"), cal, Impl::fused, ProfilePart::attention), InputError);
}

TEST_CASE("calibrate --profile P --from-kernels: the profile's four keys edited in place of a copy, the others kept") {
  const auto dir = cli_test::tmp_dir();
  const std::string out = (dir / "attention.yaml").string();
  const auto r = cli_test::cli("calibrate --profile compiled --card h200 --only attention --from-kernels " + test::root() +
                               "/validation/results/h200-heldout16/kernels.json --output " + out + " --format json");
  const test::Json j = cli_test::json_of(r);
  CHECK(r.rc == 0);
  REQUIRE(j.at("attention.held_out_after.median_abs") != nullptr);
  CHECK(j.at("attention.held_out_after.median_abs")->num <= 0.08);
  CHECK(j.at("attention.held_out_after.median_abs")->num < j.at("attention.held_out_datasheet.median_abs")->num);
  // Only the compiled block's four attention lines differ from the committed file.
  std::ifstream a(test::root() + "/hardware/h200.calibration.yaml"), b(out);
  int differ = 0;
  bool in_compiled = false;
  for (std::string x, y; std::getline(a, x) && std::getline(b, y);) {
    if (x.rfind("  ", 0) == 0 && x.size() > 2 && x[2] != ' ') in_compiled = x == "  compiled:";
    if (x != y) {
      ++differ;
      CHECK(in_compiled);
      CHECK(test::contains(y, "    attention_"));
    }
  }
  CHECK(differ <= 4);
  // The written file prices with the refit.
  const Calibration back = load_calibration(out);
  const ProfileCalibration* p = find_profile(back.profiles, "compiled");
  REQUIRE(p != nullptr);
  REQUIRE(p->attention_peak.has_value());
  CHECK(*p->attention_peak == doctest::Approx(j.at("attention.attention_peak")->num).epsilon(1e-3));
}

TEST_CASE("calibrate --profile eager --only decode,gemm: two files, the keys inside the profile's blocks edited in place") {
  const auto dir = cli_test::tmp_dir();
  const std::string out = (dir / "decode-gemm.yaml").string();
  const std::string R = test::root() + "/validation/results/";
  const auto r = cli_test::cli("calibrate --profile eager --card h200 --only decode,gemm --from-kernels " + R +
                               "h200-production/kernels.json --from-kernels " + R + "h200-cudnn-decode/kernels.json --output " +
                               out + " --format json");
  CHECK(r.rc == 0);
  const test::Json j = cli_test::json_of(r);
  for (const char* k : {"decode.kernel_floor_s", "decode.kernel_floor_before_s", "decode.stream_bandwidth",
                        "decode.held_out_after.median_abs", "gemm.fixed_s", "gemm.cta_walk_per_1024_k_s",
                        "gemm.stream_efficiency", "gemm.held_out_after.p90_abs"})
    CHECK_MESSAGE(j.at(k) != nullptr, k);
  REQUIRE(j.at("decode.held_out_after.median_abs") != nullptr);
  CHECK(j.at("decode.held_out_after.median_abs")->num <= 0.08);
  CHECK(j.at("gemm.held_out_after.median_abs")->num <= 0.05);
  // Only lines of the eager block's cudnn_decode: and gemm: blocks differ, and at most their eight keys.
  std::ifstream a(test::root() + "/hardware/h200.calibration.yaml"), b(out);
  int differ = 0;
  std::string profile, block;
  for (std::string x, y; std::getline(a, x) && std::getline(b, y);) {
    if (x.rfind("  ", 0) == 0 && x.size() > 2 && x[2] != ' ' && x[2] != '#') profile = x;
    if (x.rfind("    ", 0) == 0 && x.size() > 4 && x[4] != ' ' && x[4] != '#') block = x.substr(4, x.find(':') - 4);
    if (x != y) {
      ++differ;
      CHECK(profile == "  eager:");
      CHECK((block == "cudnn_decode" || block == "gemm"));
      CHECK(y.rfind("      ", 0) == 0);
    }
  }
  CHECK(differ <= 8);
  const Calibration back = load_calibration(out);
  const ProfileCalibration* p = find_profile(back.profiles, "eager");
  REQUIRE(p != nullptr);
  CHECK(p->cudnn_decode.kernel_floor_s == doctest::Approx(j.at("decode.kernel_floor_s")->num).epsilon(1e-3));
  CHECK(*p->gemm.fixed_s == doctest::Approx(j.at("gemm.fixed_s")->num).epsilon(1e-3));
}

TEST_CASE("calibrate --profile P --from-kernels without --only: every part the files hold enough calls for") {
  const auto dir = cli_test::tmp_dir();
  const std::string R = test::root() + "/validation/results/";
  const auto all = cli_test::cli("calibrate --profile compiled --card h200 --from-kernels " + R +
                                 "h200-production/kernels.json --output " + (dir / "all.yaml").string() + " --format json");
  CHECK(all.rc == 0);
  const test::Json j = cli_test::json_of(all);
  for (const char* part : {"attention", "decode", "gemm", "small"}) CHECK_MESSAGE(j.at(part) != nullptr, part);
  // A decode-only file: the other parts skipped, named in a note.
  const auto some = cli_test::cli("calibrate --profile fused --card h200 --from-kernels " + R +
                                  "h200-widegroup/kernels.json --output " + (dir / "some.yaml").string());
  CHECK(some.rc == 0);
  CHECK(test::contains(some.out, "attention: skipped"));
  CHECK(test::contains(some.out, "gemm: skipped"));
  CHECK(test::contains(some.out, "cudnn_decode.kernel_floor now"));
}

TEST_CASE("calibrate --profile compiled --only small: Inductor's keys in its inductor block, the undetermined ones listed") {
  const auto dir = cli_test::tmp_dir();
  const std::string out = (dir / "small.yaml").string();
  const auto r = cli_test::cli("calibrate --profile compiled --card h200 --only small --from-kernels " + test::root() +
                               "/validation/results/h200-eltwise4/kernels.json --output " + out + " --format json");
  CHECK(r.rc == 0);
  const test::Json j = cli_test::json_of(r);
  REQUIRE(j.at("small.layernorm_elements_per_s") != nullptr);
  REQUIRE(j.at("small.undetermined") != nullptr);
  const Calibration written = load_calibration(out);  // kept alive: p points into it
  const ProfileCalibration* p = find_profile(written.profiles, "compiled");
  REQUIRE(p != nullptr);
  CHECK(p->inductor.layernorm_rate == doctest::Approx(j.at("small.layernorm_elements_per_s")->num).epsilon(1e-3));
  CHECK(j.at("small.held_out_after.median_abs")->num < j.at("small.held_out_datasheet.median_abs")->num);
}

TEST_CASE("calibrate --profile compiled --only decode: a block the file lacks is written whole and reads back") {
  const auto dir = cli_test::tmp_dir();
  // The committed file less the compiled profile's cudnn_decode block.
  std::ifstream in(test::root() + "/hardware/h200.calibration.yaml");
  const std::string base = (dir / "no-decode.yaml").string(), out = (dir / "with-decode.yaml").string();
  {
    std::ofstream o(base);
    std::string profile;
    bool skipping = false;
    for (std::string l; std::getline(in, l);) {
      if (l.rfind("  ", 0) == 0 && l.size() > 2 && l[2] != ' ' && l[2] != '#') profile = l;
      if (l.rfind("    ", 0) == 0 && l.size() > 4 && l[4] != ' ') skipping = profile == "  compiled:" && l.rfind("    cudnn_decode:", 0) == 0;
      if (!l.empty() && l[0] != ' ') skipping = false;
      if (!skipping) o << l << "\n";
    }
  }
  const Calibration stripped = load_calibration(base);
  REQUIRE(!find_profile(stripped.profiles, "compiled")->cudnn_decode.measured());
  const auto r = cli_test::cli("calibrate --profile compiled --card h200 --only decode --calibration " + base + " --from-kernels " +
                               test::root() + "/validation/results/h200-cudnn-decode/kernels.json --output " + out + " --format json");
  CHECK(r.rc == 0);
  const test::Json j = cli_test::json_of(r);
  REQUIRE(j.at("decode.kernel_floor_s") != nullptr);
  const Calibration written = load_calibration(out);  // kept alive: p points into it
  const ProfileCalibration* p = find_profile(written.profiles, "compiled");
  REQUIRE(p != nullptr);
  CHECK(p->cudnn_decode.measured());
  CHECK(p->cudnn_decode.stream_bandwidth == doctest::Approx(j.at("decode.stream_bandwidth")->num).epsilon(1e-3));
  CHECK(j.at("decode.held_out_after.median_abs")->num < j.at("decode.held_out_datasheet.median_abs")->num);
}

TEST_CASE("calibrate --profile: a graph profile has no host probe; --only takes host, attention, decode and gemm") {
  const std::string k = test::root() + "/validation/results/h200-production/kernels.json";
  cli_test::expect_input_error(cli_test::cli("calibrate --profile fused --card h200 --on-gpu --only host"), {"eager profile only"});
  cli_test::expect_input_error(cli_test::cli("calibrate --profile eager --card h200 --on-gpu --only roofs"), {"--only", "roofs"});
  cli_test::expect_input_error(cli_test::cli("calibrate --profile eager --card h200 --on-gpu --from-kernels " + k),
                               {"--on-gpu", "--from-kernels"});
  cli_test::expect_input_error(cli_test::cli("calibrate --profile fast --card h200 --from-kernels " + k), {"--profile", "fast"});
  // A part needs its recorded file; a file without the part's calls is refused with one line.
  cli_test::expect_input_error(cli_test::cli("calibrate --profile eager --card h200 --only gemm --from-probe x.json"),
                               {"--only gemm", "--from-kernels"});
  cli_test::expect_input_error(cli_test::cli("calibrate --profile fused --card h200 --only gemm --from-kernels " + test::root() +
                                             "/validation/results/h200-widegroup/kernels.json --output /dev/null"),
                               {"gemm", "at least 4"});
  cli_test::expect_input_error(cli_test::cli("calibrate --profile fused --card h200 --only small --from-kernels " + k +
                                             " --output /dev/null"),
                               {"--profile compiled"});
}

namespace {

Measurements files(std::initializer_list<const char*> sets) {
  Measurements m;
  for (const char* s : sets) {
    Measurements one;
    const std::string set = s;  // a set's kernels.json, or a named file of it ("h200-splitodd/kernels3.json")
    const bool file = set.size() > 5 && set.compare(set.size() - 5, 5, ".json") == 0;
    load_measurements(test::root() + "/validation/results/" + set + (file ? "" : "/kernels.json"), one);
    m.cases.insert(m.cases.end(), one.cases.begin(), one.cases.end());
  }
  return m;
}

// Sets measured after every committed fit (h200-heldout17..23: new models' shapes), none in any fit here.
Measurements later_sets() {
  return files({"h200-heldout17", "h200-heldout18", "h200-heldout19", "h200-heldout20", "h200-heldout21", "h200-heldout22",
                "h200-heldout23"});
}

struct Outcome {
  ErrorSummary refit, committed, datasheet;
};

// The part's calls of sets no fit saw (default h200-heldout17..23), priced on the refit, the committed file and the
// datasheet.
Outcome on_later_sets(const Calibration& refit, Impl profile, ProfilePart part, const Measurements& m = later_sets(),
                      const std::string& sets = "h200-heldout17..23") {
  const Card card = test::catalogue().card("h200");
  const Calibration committed = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  Outcome o{profile_part_errors(m, card, &refit, profile, part), profile_part_errors(m, card, &committed, profile, part),
            profile_part_errors(m, card, nullptr, profile, part)};
  MESSAGE(to_string(profile) << " " << to_string(part) << " on " << sets << " (" << o.refit.cases << " calls): refit "
                             << o.refit.median << " / " << o.refit.p90 << ", committed " << o.committed.median << " / "
                             << o.committed.p90 << ", datasheet " << o.datasheet.median << " / " << o.datasheet.p90);
  return o;
}

}  // namespace

TEST_CASE("cuDNN's decode SDPA refitted from the card's values: within the issue's target held out, never worse than the datasheet") {
  // The fit half of fit_compiled.py / decodeknee.py: the even cuDNN decode calls of these three sets.
  const Card card = test::catalogue().card("h200");
  const Measurements fit_files = files({"h200-production", "h200-cudnn-decode", "h200-heldout16"});
  for (Impl profile : {Impl::eager, Impl::compiled}) {
    CAPTURE(to_string(profile));
    Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    for (auto& p : cal.profiles)
      if (p.name == to_string(profile)) p.cudnn_decode = CudnnDecode{};
    const ProfileFit f = fit_profile_part(fit_files, card, cal, profile, ProfilePart::decode);
    report(to_string(profile), f);
    CHECK(f.held_after.cases >= 60);
    CHECK(f.held_after.median <= 0.08);  // issue 10: 8 % / 20 %
    CHECK(f.held_after.median < f.held_datasheet.median);
    CHECK(f.held_after.p90 < f.held_datasheet.p90);
    const Outcome later = on_later_sets(cal, profile, ProfilePart::decode);
    CHECK(later.refit.median <= 0.08);
    CHECK(later.refit.median < later.datasheet.median);
    CHECK(later.refit.p90 < later.datasheet.p90);
    // The keys are physical: floors of a few microseconds, a stream under the card's DRAM rate.
    CHECK(f.key("cudnn_decode.kernel_floor").after > 1e-6);
    CHECK(f.key("cudnn_decode.kernel_floor").after < 10e-6);
    CHECK(f.key("cudnn_decode.stream_bandwidth").after < card.bandwidth);
    if (profile == Impl::eager) {  // the unmasked call's resident rule: the eager profile's decode
      CHECK(f.held_after.p90 <= 0.20);
      CHECK(later.refit.p90 <= 0.20);
    }
  }
}

TEST_CASE("cuBLASLt GEMMs refitted from the card's values: within the issue's target held out, never worse than the datasheet") {
  // fit_gemm.py's fit sets: h200-production's and h200-gemm-small's even torch.linear calls.
  const Card card = test::catalogue().card("h200");
  const Measurements fit_files = files({"h200-production", "h200-gemm-small"});
  for (Impl profile : {Impl::fused, Impl::eager}) {
    CAPTURE(to_string(profile));
    Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    for (auto& p : cal.profiles)
      if (p.name == to_string(profile)) {  // the four fitted keys gone: the block is not measured, the card's keys price
        p.gemm.fixed_s.reset();
        p.gemm.split_k_reduce_s.reset();
        p.gemm.cta_walk_per_1024_k_s.reset();
        p.gemm.stream_efficiency.reset();
      }
    const ProfileFit f = fit_profile_part(fit_files, card, cal, profile, ProfilePart::gemm);
    report(to_string(profile), f);
    CHECK(f.held_after.cases >= 80);
    CHECK(f.held_after.median <= 0.05);  // issue 10: 5 % / 15 %
    CHECK(f.held_after.p90 <= 0.15);
    CHECK(f.held_after.median < f.held_datasheet.median);
    const Outcome later = on_later_sets(cal, profile, ProfilePart::gemm);
    CHECK(later.refit.median <= 0.05);
    CHECK(later.refit.p90 <= 0.15);
    CHECK(later.refit.median < later.datasheet.median);
    CHECK(f.key("gemm.stream_efficiency").after <= 1.0);
    CHECK(f.key("gemm.cta_walk_per_1024_k").after > 0.5e-6);  // one CTA's K loop: not traded away for a larger fixed time
  }
}

TEST_CASE("the small kernels refitted from the card's values: eager's ATen keys and Inductor's, within the issue's target on later sets") {
  const Card card = test::catalogue().card("h200");
  for (Impl profile : {Impl::eager, Impl::compiled}) {
    CAPTURE(to_string(profile));
    // fit_aten.py's and fit_inductor.py's fit sets (their even calls), eltwise3 for eager's wide softmax.
    const Measurements fit_files = profile == Impl::eager ? files({"h200-production", "h200-eltwise3", "h200-eltwise4"})
                                                          : files({"h200-production", "h200-eltwise4", "h200-eltwise6"});
    Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    for (auto& p : cal.profiles)
      if (p.name == to_string(profile)) {  // the fitted keys gone: the card's stream model prices
        AtenKernels& a = p.aten;
        InductorKernels& k = p.inductor;
        a.norm_floor_s = a.rmsnorm_chain_s = a.layernorm_chain_s = a.softmax_floor_s = a.softmax_warp_chain_s = -1;
        a.softmax_reg_chain_s = a.softmax_smem_chain_s = a.strided_floor_s = -1;
        a.strided_rate = 0;
        k.layernorm_rate = k.softmax_rate = k.looped_row_s = k.layernorm_block_s = k.softmax_block_s = 0;
        k.rmsnorm_group_s = k.rmsnorm_group_block_s = k.split_ipc_cta = k.split_ipc_sm = 0;
      }
    const ProfileFit f = fit_profile_part(fit_files, card, cal, profile, ProfilePart::small);
    report(to_string(profile), f);
    CHECK(f.held_after.cases >= 40);
    CHECK(f.held_after.median <= 0.08);  // issue 10: 8 % / 20 %
    CHECK(f.held_after.median < f.held_datasheet.median);
    CHECK(f.held_after.p90 < f.held_datasheet.p90);
    const Outcome later = on_later_sets(cal, profile, ProfilePart::small);
    CHECK(later.refit.cases >= 200);
    CHECK(later.refit.median <= 0.08);
    CHECK(later.refit.p90 <= 0.20);
    CHECK(later.refit.median < later.datasheet.median);
    for (const FittedKey& k : f.keys) {
      CAPTURE(k.path);
      CHECK(std::isfinite(k.after));
      if (!k.determined) CHECK(k.after == k.before);  // rms_norm's groups and the split's issue: no call here runs them
      else CHECK(k.after > 0);
    }
  }
}

TEST_CASE("a key none of the calls prices with is kept, not left where the search drifted") {
  // h200-production's eager calls less its softmax ones: no call runs a softmax kernel.
  const Card card = test::catalogue().card("h200");
  Measurements m = files({"h200-production"});
  m.cases.erase(std::remove_if(m.cases.begin(), m.cases.end(),
                               [](const MeasuredCase& c) { return c.kernel.kernel == KernelId::softmax_fused; }),
                m.cases.end());
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const AtenKernels before = find_profile(cal.profiles, "eager")->aten;
  const ProfileFit f = fit_profile_part(m, card, cal, Impl::eager, ProfilePart::small);
  const AtenKernels& after = find_profile(cal.profiles, "eager")->aten;
  for (const char* k : {"aten.softmax_floor", "aten.softmax_warp_chain", "aten.softmax_reg_chain", "aten.softmax_smem_chain"}) {
    CAPTURE(k);
    CHECK_FALSE(f.key(k).determined);
    CHECK(f.key(k).after == f.key(k).before);
  }
  CHECK(after.softmax_warp_chain_s == doctest::Approx(before.softmax_warp_chain_s));
  CHECK(after.softmax_smem_chain_s == doctest::Approx(before.softmax_smem_chain_s));
  CHECK(f.key("aten.rmsnorm_chain").determined);
  CHECK(f.key("aten.norm_floor").determined);
}

TEST_CASE("FlashAttention-2's prefill and decode refitted from the card's values (eager): within the issue's target on later sets") {
  // fit_flash2.py's fit half, five of its sets: their even torch.sdpa.flash calls; the odd ones held out, and
  // h200-flash30 and h200-headdims (measured after that fit) whole.
  const Card card = test::catalogue().card("h200");
  const Measurements fit_files = files({"h200-production", "h200-heldout16", "h200-heldout17", "h200-heldout18", "h200-heldout19"});
  const Measurements later = files({"h200-flash30", "h200-headdims"});
  const Calibration committed = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  for (ProfilePart part : {ProfilePart::flash2, ProfilePart::flash2_decode}) {
    CAPTURE(to_string(part));
    Calibration cal = committed;
    for (auto& p : cal.profiles) {  // the fitted keys gone in every profile (a profile without them takes another's)
      if (part == ProfilePart::flash2) {
        p.flash2.mma_peak.reset();
        p.flash2.softmax_s.reset();
        p.flash2.mask_s.reset();
        p.flash2.smem_share.reset();
        p.flash2.cta_fixed_s.reset();
        p.flash2.call_floor_s.reset();
        p.flash2.lone_pace.reset();
        p.flash2.uneven_dim.reset();
      } else {
        p.decode = ProductionDecode{};
      }
    }
    const ProfileFit f = fit_profile_part(fit_files, card, cal, Impl::eager, part);
    report("eager", f);
    CHECK(f.held_after.cases >= 30);
    CHECK(f.held_after.median <= 0.08);  // issue 10: 8 % / 20 %
    CHECK(f.held_after.p90 <= 0.20);
    CHECK(f.held_after.median < f.held_datasheet.median);
    const Outcome o = on_later_sets(cal, Impl::eager, part, later, "h200-flash30 and h200-headdims");
    const ErrorSummary &refit = o.refit, &sheet = o.datasheet;
    CHECK(refit.cases >= 25);
    CHECK(refit.median <= 0.08);
    CHECK(refit.p90 <= 0.20);
    CHECK(refit.median < sheet.median);
    if (part == ProfilePart::flash2_decode)  // with flash2 measured its one-kernel (non-split) calls price on flash2's tiles
      for (const char* k : {"decode.nonsplit_tile", "decode.nonsplit_softmax_share", "decode.nonsplit_floor"}) {
        CAPTURE(k);
        CHECK_FALSE(f.key(k).determined);
      }
  }
  Calibration cal = committed;
  CHECK_THROWS_AS(fit_profile_part(fit_files, card, cal, Impl::fused, ProfilePart::flash2), InputError);
  // The eager profile's own decode block prices its FlashAttention-2 decode, not the fused profile's (listed first).
  for (auto& p : cal.profiles)
    if (p.name == "eager") {
      p.decode = find_profile(cal.profiles, "fused")->decode;
      p.decode.call_floor_s *= 2;
    }
  CHECK(make_roofs(card, &cal, Impl::eager).flash2_decode.call_floor_s ==
        doctest::Approx(2 * find_profile(cal.profiles, "fused")->decode.call_floor_s));
  CHECK(make_roofs(card, &cal, Impl::fused).flash2_decode.call_floor_s ==
        doctest::Approx(find_profile(cal.profiles, "fused")->decode.call_floor_s));
}

TEST_CASE("FlashAttention-2's uneven_dim refitted on h200-oddsplit's decode pairs (the flash2_decode part)") {
  // fit_flash2_uneven.py reads the factor straight off h200-oddsplit's nine timed pairs (1.069-1.135, median 1.091). The
  // C++ part fits it with the decode block's keys, over the model, on the even calls of h200-production and
  // h200-oddsplit; its start is 1 (no effect), the key removed from the committed file.
  const Card card = test::catalogue().card("h200");
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  for (auto& p : cal.profiles) p.flash2.uneven_dim.reset();
  const ProfileFit f = fit_profile_part(files({"h200-production", "h200-oddsplit"}), card, cal, Impl::eager,
                                        ProfilePart::flash2_decode);
  report("eager", f);
  REQUIRE(f.key("flash2.uneven_dim").determined);
  CHECK(f.key("flash2.uneven_dim").after >= 1.05);
  CHECK(f.key("flash2.uneven_dim").after <= 1.15);
  // Without the pairs no call runs a short head dim: the key is undetermined and kept.
  Calibration bare = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const ProfileFit g = fit_profile_part(files({"h200-production"}), card, bare, Impl::eager, ProfilePart::flash2_decode);
  CHECK_FALSE(g.key("flash2.uneven_dim").determined);
  // h200-oddsplit's held-out (odd) calls at the short head dims, priced with the refit and with the factor at 1 (the
  // padded kernel's pace alone).
  Measurements odd;
  for (const MeasuredCase& c : files({"h200-oddsplit"}).cases)
    for (int64_t d : {48, 80, 112, 160, 224})  // short of the compiled 64, 96, 128, 192, 256
      if (c.index % 2 == 1 && c.implementation == "torch.sdpa.flash" && c.kernel.head_dim == d) odd.cases.push_back(c);
  REQUIRE(odd.cases.size() >= 4);
  Calibration none = cal;
  for (auto& p : none.profiles) p.flash2.uneven_dim = 1.0;
  const ErrorSummary with = profile_part_errors(odd, card, &cal, Impl::eager, ProfilePart::flash2_decode);
  const ErrorSummary without = profile_part_errors(odd, card, &none, Impl::eager, ProfilePart::flash2_decode);
  MESSAGE("h200-oddsplit's held-out short-dim calls (" << with.cases << "): refit uneven_dim " << with.median << " / "
                                                      << with.p90 << ", at 1 " << without.median << " / " << without.p90);
  CHECK(with.median < without.median);
  CHECK(with.median <= 0.08);
}

TEST_CASE("rms_norm's resident-row groups and the split reduction's issue refitted with the sets that run them (compiled)") {
  // fit_rms_queue.py's set (h200-inductorsmall) and fit_split.py's (h200-splitodd's third run) beside fit_inductor.py's:
  // every Inductor key removed, all nine come back determined; the odd calls held out.
  const Card card = test::catalogue().card("h200");
  const Measurements fit_files = files({"h200-production", "h200-eltwise4", "h200-eltwise6", "h200-inductorsmall",
                                        "h200-splitodd/kernels3.json"});
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  for (auto& p : cal.profiles)
    if (p.name == "compiled") {
      InductorKernels& k = p.inductor;
      k.layernorm_rate = k.softmax_rate = k.looped_row_s = k.layernorm_block_s = k.softmax_block_s = 0;
      k.rmsnorm_group_s = k.rmsnorm_group_block_s = k.split_ipc_cta = k.split_ipc_sm = 0;
    }
  const ProfileFit f = fit_profile_part(fit_files, card, cal, Impl::compiled, ProfilePart::small);
  report("compiled", f);
  for (const char* key : {"inductor.rmsnorm_group", "inductor.rmsnorm_group_block", "inductor.split_ipc_cta",
                          "inductor.split_ipc_sm"}) {
    CAPTURE(key);
    CHECK(f.key(key).determined);
    CHECK(f.key(key).after > 0);
  }
  // Warp instructions a clock: a lone CTA issues under the SM's sustained rate, which stays under its four schedulers.
  CHECK(f.key("inductor.split_ipc_cta").after < f.key("inductor.split_ipc_sm").after);
  CHECK(f.key("inductor.split_ipc_sm").after <= 4.0);
  CHECK(f.held_after.median <= 0.08);  // issue 10: 8 % / 20 %
  CHECK(f.held_after.p90 <= 0.20);
  // The refit with the two mechanisms switched off (a key of each pair at 0): their own sets fare worse.
  const Measurements sets = files({"h200-inductorsmall", "h200-splitodd/kernels3.json"});
  const ErrorSummary with = profile_part_errors(sets, card, &cal, Impl::compiled, ProfilePart::small);
  Calibration without = cal;
  for (auto& p : without.profiles)
    if (p.name == "compiled") p.inductor.rmsnorm_group_s = p.inductor.split_ipc_cta = 0;
  const ErrorSummary off = profile_part_errors(sets, card, &without, Impl::compiled, ProfilePart::small);
  MESSAGE("h200-inductorsmall and h200-splitodd: with the groups and the split's issue " << with.median << " / " << with.p90
                                                                                         << ", without " << off.median << " / " << off.p90);
  CHECK(with.median < off.median);
  CHECK(with.p90 < off.p90);
}

TEST_CASE("FlashAttention-2's lone-CTA pace refitted with h200-lonecta's grids beside the prefill sets (eager)") {
  const Card card = test::catalogue().card("h200");
  const Measurements fit_files = files({"h200-production", "h200-heldout16", "h200-heldout17", "h200-heldout18",
                                        "h200-heldout19", "h200-lonecta"});
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  for (auto& p : cal.profiles) p.flash2 = Flash2Prefill{};  // every key gone: the card's values start the search
  const ProfileFit f = fit_profile_part(fit_files, card, cal, Impl::eager, ProfilePart::flash2);
  report("eager", f);
  CHECK(f.key("flash2.lone_pace").determined);
  // A CTA alone on its SM runs faster than at its paired pace (h200-lonecta: 1.51x and 1.56x), never at more than the
  // two CTAs together.
  CHECK(f.key("flash2.lone_pace").after > 1.2);
  CHECK(f.key("flash2.lone_pace").after < 2.0);
  CHECK(f.held_after.median <= 0.08);  // issue 10: 8 % / 20 %
  CHECK(f.held_after.p90 <= 0.20);
  const Outcome later = on_later_sets(cal, Impl::eager, ProfilePart::flash2, files({"h200-flash30", "h200-headdims"}),
                                      "h200-flash30 and h200-headdims");
  CHECK(later.refit.median <= 0.08);
  CHECK(later.refit.p90 <= 0.20);
}
