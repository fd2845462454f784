// Issue 10, the profiles' own kernels: PyTorch eager's norms, softmax and rotary
// (aten_kernel_cost.cpp) and the compiled profile's attention and Inductor kernels, held out
// from their fits (odd case index of validation/results/h200-production; every case of
// validation/results/h200-eager-heldout, measured after the mechanisms were chosen). The figures
// are those docs/accuracy.md reports; a change that moves them past these bounds fails here.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "perfmodel/accuracy.hpp"
#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Sets {
  Card card;
  Calibration cal;
  std::vector<ProfileSetStats> production, heldout, production_datasheet;
  Sets() {
    card = test::catalogue().card("h200");
    cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
    Measurements a, b;
    load_measurements(test::root() + "/validation/results/h200-production/kernels.json", a);
    load_measurements(test::root() + "/validation/results/h200-eager-heldout/kernels.json", b);
    production = summarize_profiles(evaluate_profiles(a, card, &cal));
    production_datasheet = summarize_profiles(evaluate_profiles(a, card, nullptr));
    heldout = summarize_profiles(evaluate_profiles(b, card, &cal));
  }
};

const Sets& sets() {
  static const Sets s;
  return s;
}

ProfileSetStats row(const std::vector<ProfileSetStats>& rows, Impl p, const std::string& kernel,
                    const std::string& impl = "") {
  for (const ProfileSetStats& s : rows)
    if (s.profile == p && s.kernel == kernel && s.implementation == impl) return s;
  FAIL("no row " << to_string(p) << " " << kernel << " " << impl);
  return {};
}

}  // namespace

TEST_CASE("eager: PyTorch's norms, softmax and rotary, held out (issue 10 target 8 % / 20 %)") {
  const ProfileSetStats all = row(sets().production, Impl::eager, "all elementwise");
  CAPTURE(all.held_out_median_abs);
  CAPTURE(all.held_out_p90_abs);
  CHECK(all.held_out_cases == 25);
  CHECK(all.held_out_median_abs <= 0.08);
  CHECK(all.held_out_p90_abs <= 0.22);  // 20.7 % at this commit: the target's p90 is missed narrowly
  for (const char* k : {"rmsnorm", "layernorm", "softmax_fused", "rotary"}) {
    const ProfileSetStats s = row(sets().production, Impl::eager, k, "torch.eager");
    CAPTURE(k);
    CAPTURE(s.held_out_median_abs);
    CHECK(s.held_out_median_abs <= 0.08);
  }
}

TEST_CASE("eager: a second set at new shapes, none of it fitted on") {
  const ProfileSetStats all = row(sets().heldout, Impl::eager, "all elementwise");
  CAPTURE(all.all_median_abs);
  CAPTURE(all.all_p90_abs);
  CHECK(all.fitted_cases + all.held_out_cases == 31);
  CHECK(all.all_median_abs <= 0.11);
  CHECK(all.all_p90_abs <= 0.25);
  for (const char* k : {"rmsnorm", "layernorm", "softmax_fused", "rotary"}) {
    const ProfileSetStats s = row(sets().heldout, Impl::eager, k, "torch.eager");
    CAPTURE(k);
    CAPTURE(s.all_median_abs);
    CHECK(s.all_median_abs <= 0.10);
  }
}

TEST_CASE("eager: a row's chain grows with its columns, rows beyond the resident CTAs run in waves") {
  const Roofs r = make_roofs(sets().card, &sets().cal, Impl::eager);
  auto t = [&](int64_t rows, int64_t cols) { return price(ops::rmsnorm("n", rows, cols, DType::bf16, false), r, Impl::fused).device_time_s; };
  CHECK(t(16, 8192) > 1.5 * t(16, 4096));  // one wave: the chain, not the bytes
  CHECK(t(1000, 4096) == test::approx(t(16, 4096)));  // still one wave of 8 CTAs per SM
  CHECK(t(2 * 1056 + 1, 4096) > 2.5 * (t(16, 4096) - r.aten.norm_floor_s));
  // The card's own roofs (the validation backend's kernel) are not PyTorch's.
  const Roofs card = make_roofs(sets().card, &sets().cal);
  CHECK(price(ops::rmsnorm("n", 16, 8192, DType::bf16, false), card, Impl::fused).device_time_s < t(16, 8192) / 2);
}

TEST_CASE("compiled: attention through cuDNN's kernels and Inductor's kernels, held out") {
  // generate() prefills uncompiled into the static cache, where SDPA runs cuDNN's sm90 kernel.
  const ProfileSetStats p = row(sets().production, Impl::compiled, "attention_prefill_fused", "torch.sdpa.cudnn");
  CAPTURE(p.held_out_median_abs);
  CAPTURE(p.held_out_p90_abs);
  CHECK(p.held_out_cases == 15);
  CHECK(p.held_out_median_abs <= 0.06);  // 5.4 %
  CHECK(p.held_out_p90_abs <= 0.13);     // 12.8 %
  // The memory-efficient kernel stands for no profile.
  for (const ProfileSetStats& s : sets().production) CHECK(s.implementation != "torch.sdpa.efficient");
  // `op --impl compiled|eager` prices decode attention as the profile's step does: cuDNN's kernel,
  // after repeat_kv's two copies under compiled (GQA), with the GQA group in the tile under eager.
  const Op decode = ops::attention_decode("a", 16, 32, 8, 4096, 128, DType::bf16, DType::bf16);
  const std::vector<Op> compiled = compiled_form(decode);
  REQUIRE(compiled.size() == 2);
  CHECK(compiled[1].kernel == KernelId::attention_decode_cudnn);
  CHECK(compiled[1].attention.kv_heads == 32);
  const std::vector<Op> eager = eager_form(decode, true);
  REQUIRE(eager.size() == 1);
  CHECK(eager[0].kernel == KernelId::attention_decode_cudnn);
  CHECK(eager[0].attention.kv_heads == 8);
  const ProfileSetStats c = row(sets().production, Impl::compiled, "all attention");
  const ProfileSetStats d = row(sets().production_datasheet, Impl::compiled, "all attention");
  CHECK(c.held_out_median_abs <= d.held_out_median_abs);
  CHECK(c.held_out_p90_abs <= d.held_out_p90_abs);
  const ProfileSetStats e = row(sets().production, Impl::compiled, "all elementwise");
  CAPTURE(e.held_out_median_abs);
  CHECK(e.held_out_median_abs <= 0.06);
  CHECK(e.held_out_p90_abs <= 0.20);
  // Inductor's rotary is one kernel per tensor.
  CHECK(compiled_form(ops::rotary("r", 16, 32, 8, 128, DType::bf16)).size() == 2);
}

TEST_CASE("fused: the serving engine's kernels, held out") {
  const ProfileSetStats e = row(sets().production, Impl::fused, "all elementwise");
  CHECK(e.held_out_median_abs <= 0.06);
  const ProfileSetStats g = row(sets().production, Impl::fused, "gemm", "torch.linear");
  CAPTURE(g.held_out_median_abs);
  CAPTURE(g.held_out_p90_abs);
  CHECK(g.held_out_median_abs <= 0.06);
  CHECK(g.held_out_p90_abs <= 0.21);
}

TEST_CASE("eager: Hugging Face decode and prefill steps (hf.json), GPU kernel time held out <= 10 % median") {
  // What compare_hf.py prints: each odd-index step of hf.json against evaluate() with --impl eager.
  YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-production/hf.json");
  std::vector<double> kernel, wall;
  int index = -1;
  for (const auto& s : root["steps"]) {
    ++index;
    if (index % 2 == 0 || !s["ok"].as<bool>()) continue;  // even steps fit host_per_kernel and the cat rate
    Workload w;
    w.phase = s["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
    w.batch = s["batch"].as<int64_t>();
    w.ctx = s["ctx"].as<int64_t>();
    w.impl = Impl::eager;
    const Evaluation e = evaluate(test::catalogue().model(s["model"].as<std::string>()), w, sets().card, &sets().cal);
    kernel.push_back(std::fabs(e.cost.device_time_s / s["kernel_s"].as<double>() - 1));
    wall.push_back(std::fabs(e.cost.time_s / s["wall_s"].as<double>() - 1));
  }
  REQUIRE(kernel.size() == 10);
  CAPTURE(quantile(kernel, 0.5));
  CAPTURE(quantile(kernel, 0.9));
  CAPTURE(quantile(wall, 0.5));
  CHECK(quantile(kernel, 0.5) <= 0.10);
  CHECK(quantile(kernel, 0.9) <= 0.12);
  CHECK(quantile(wall, 0.5) <= 0.10);
  CHECK(quantile(wall, 0.9) <= 0.20);
}

TEST_CASE("eager: Hugging Face steps over the issue's grid (h200-hf-grid, nothing fitted): kernel time <= 10 % median") {
  // hf_grid.py: Llama-3-8B (never measured before), Qwen2.5-7B and Llama-2-7B, batch 1-128,
  // context 256-8192, the DynamicCache contiguous as generate() leaves it. Steps past a model's
  // positions (Llama-2-7B at 8192) are refused by perfmodel and skipped.
  YAML::Node root = YAML::LoadFile(test::root() + "/validation/results/h200-hf-grid/hf.json");
  std::vector<double> kernel, wall, attention;
  int refused = 0;
  for (const auto& s : root["steps"]) {
    REQUIRE(s["ok"].as<bool>());
    Workload w;
    w.phase = s["phase"].as<std::string>() == "decode" ? Phase::decode : Phase::prefill;
    w.batch = s["batch"].as<int64_t>();
    w.ctx = s["ctx"].as<int64_t>();
    w.impl = Impl::eager;
    w.eager_cache_cropped = false;
    const Model m = test::catalogue().model(s["model"].as<std::string>());
    if (w.ctx > m.max_positions) {
      ++refused;
      continue;
    }
    const Evaluation e = evaluate(m, w, sets().card, &sets().cal);
    kernel.push_back(std::fabs(e.cost.device_time_s / s["kernel_s"].as<double>() - 1));
    wall.push_back(std::fabs(e.cost.time_s / s["wall_s"].as<double>() - 1));
    double att = 0;
    for (size_t i = 0; i < e.step.ops.size(); ++i)
      if (e.step.ops[i].kind == OpKind::attention) att += e.cost.ops[i].device_time_s * static_cast<double>(e.step.ops[i].count);
    const double measured_att = s["kernel_by_category_s"]["attention"].as<double>();
    if (measured_att > 1e-3) attention.push_back(std::fabs(att / measured_att - 1));
  }
  CHECK(refused == 2);
  REQUIRE(kernel.size() == 21);
  CAPTURE(quantile(kernel, 0.5));
  CAPTURE(quantile(kernel, 0.9));
  CAPTURE(quantile(wall, 0.5));
  CAPTURE(quantile(wall, 0.9));
  CAPTURE(quantile(attention, 0.5));
  CAPTURE(quantile(attention, 0.9));
  CHECK(quantile(kernel, 0.5) <= 0.10);
  CHECK(quantile(kernel, 0.9) <= 0.20);
  CHECK(quantile(wall, 0.5) <= 0.20);
  // The attention kernels (cuDNN's, as transformers' SDPA call runs them) where they take over 1 ms.
  REQUIRE(attention.size() >= 10);
  CHECK(quantile(attention, 0.5) <= 0.15);
}
