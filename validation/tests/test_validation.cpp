// GPU tests of the validation backend. Without a CUDA device every GPU test prints
// "SKIPPED: no CUDA device found" and returns.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "perfmodel/validation/testing.hpp"
#include "perfmodel/validation/validation.hpp"

using namespace perfmodel;  // KernelId, DType, to_string, kernel_from_string
using namespace perfmodel::validation;

namespace {
bool have_gpu() {
  std::string why;
  if (device_available(&why)) return true;
  MESSAGE("SKIPPED: " << why);
  return false;
}
Options quick() {
  Options o;
  o.min_samples = 3;
  o.max_seconds_per_case = 0.05;
  o.cold = false;
  return o;
}
void expect_correct(const Case& c) {
  Result r = run_case(c, quick());
  INFO(c.name << ": " << r.error);
  CHECK(r.ok);
  CHECK(r.correct);
  CHECK(r.median_s > 0);
}
}  // namespace

TEST_CASE("names round-trip (no GPU needed)") {
  for (auto k : {KernelId::gemm, KernelId::softmax_fused, KernelId::attention_prefill_fused, KernelId::attention_decode})
    CHECK(kernel_from_string(to_string(k)) == k);
  for (auto d : {DType::fp32, DType::tf32, DType::bf16, DType::fp16, DType::fp8}) CHECK(dtype_from_string(std::string(to_string(d))) == d);
  CHECK_FALSE(kernel_from_string("nope").has_value());
  // The harness's spin kernel is no KernelId: KernelId::other with spin_seconds, named "spin".
  Case spin;
  spin.kernel = KernelId::other;
  spin.spin_seconds = 1e-5;
  CHECK(is_spin(spin));
  CHECK(kernel_name(spin) == "spin");
  Case other;
  other.kernel = KernelId::gelu_mul;
  CHECK_FALSE(is_spin(other));
  CHECK(kernel_name(other) == "gelu_mul");
  CHECK(kernel_suite().size() >= 300);
  Case c;
  c.name = "x\"y";
  Result r;
  const std::string j = result_json(c, r);
  CHECK(j.find("\"measured_s\":") != std::string::npos);
  CHECK(j.find("x\\\"y") != std::string::npos);
}

TEST_CASE("device probe") {
  std::string why;
  if (!device_available(&why)) {
    MESSAGE("SKIPPED: " << why);
    CHECK(!why.empty());
    return;
  }
  DeviceInfo d = device_info();
  CHECK(d.sm_count > 0);
  CHECK(d.l2_bytes > 0);
}

TEST_CASE("harness: spin kernel of known duration is measured within 3%") {
  if (!have_gpu()) return;
  for (double sec : {50e-6, 500e-6}) {
    Case c;
    c.kernel = KernelId::other;  // the spin kernel
    c.spin_seconds = sec;
    c.name = "spin";
    Options o;
    o.check = false;
    o.max_seconds_per_case = 0.5;
    Result r = run_case(c, o);
    INFO("spin " << sec << " s measured " << r.median_s << " s: " << r.error);
    REQUIRE(r.ok);
    CHECK(std::fabs(r.median_s / sec - 1) <= 0.03);
  }
}

TEST_CASE("every kernel is correct on small random inputs") {
  if (!have_gpu()) return;
  for (DType dt : {DType::bf16, DType::fp16, DType::fp32}) {
    for (KernelId k : {KernelId::copy, KernelId::add, KernelId::gelu_fused, KernelId::gelu_unfused, KernelId::silu_mul, KernelId::rmsnorm,
                     KernelId::layernorm, KernelId::softmax_naive, KernelId::softmax_fused}) {
      Case c;
      c.kernel = k; c.dtype = dt; c.rows = 19; c.cols = 264;
      c.name = to_string(k) + "_" + std::string(to_string(dt));
      expect_correct(c);
    }
    Case e; e.kernel = KernelId::embedding; e.dtype = dt; e.rows = 21; e.cols = 128; e.vocab = 300; e.name = "embedding"; expect_correct(e);
    Case r; r.kernel = KernelId::rotary; r.dtype = dt; r.batch = 2; r.q_len = 3; r.kv_len = 7; r.heads = 4; r.kv_heads = 2; r.head_dim = 64;
    r.name = "rotary"; expect_correct(r);
    Case a; a.kernel = KernelId::kv_append; a.dtype = dt; a.batch = 2; a.q_len = 3; a.kv_len = 7; a.kv_heads = 2; a.head_dim = 64;
    a.name = "kv_append"; expect_correct(a);
  }
  for (DType dt : {DType::bf16, DType::fp16, DType::fp32, DType::tf32, DType::fp8}) {
    Case g; g.kernel = KernelId::gemm; g.dtype = dt; g.m = 32; g.n = 48; g.k = 128; g.name = "gemm_" + std::string(to_string(dt)); expect_correct(g);
  }
  for (DType dt : {DType::bf16, DType::fp16}) {
    Case d; d.kernel = KernelId::attention_decode; d.dtype = dt; d.batch = 2; d.heads = 8; d.kv_heads = 2; d.head_dim = 128; d.q_len = 1;
    d.kv_len = 300; d.name = "decode"; expect_correct(d);
    for (KernelId k : {KernelId::attention_prefill_fused, KernelId::attention_prefill_unfused}) {
      Case p; p.kernel = k; p.dtype = dt; p.batch = 1; p.heads = 4; p.kv_heads = 2; p.head_dim = 64; p.q_len = 72; p.kv_len = 104;
      p.causal = true; p.name = to_string(k); expect_correct(p);
    }
  }
}

TEST_CASE("poison detection: broken kernels are reported wrong and not timed") {
  if (!have_gpu()) return;
  Result r = testing::run_broken_copy_check(9, 136);
  CHECK_FALSE(r.ok);
  CHECK_FALSE(r.correct);
  CHECK(r.samples == 0);
  CHECK(r.error.find("not finite") != std::string::npos);
  Result w = testing::run_wrong_value_check(9, 136);
  CHECK_FALSE(w.ok);
  CHECK_FALSE(w.correct);
  CHECK(w.error.find("relative error") != std::string::npos);
}

TEST_CASE("invalid cases fail cleanly") {
  if (!have_gpu()) return;
  Case c; c.kernel = KernelId::copy; c.rows = 3; c.cols = 7; c.name = "odd";
  Result r = run_case(c, quick());
  CHECK_FALSE(r.ok);
  CHECK_FALSE(r.error.empty());
}

TEST_CASE("run_sequence times a whole step") {
  if (!have_gpu()) return;
  Case a; a.kernel = KernelId::rmsnorm; a.dtype = DType::bf16; a.rows = 4; a.cols = 2048; a.name = "norm";
  Case g; g.kernel = KernelId::gemm; g.dtype = DType::bf16; g.m = 4; g.n = 2560; g.k = 2048; g.name = "qkv";
  Case s; s.kernel = KernelId::silu_mul; s.dtype = DType::bf16; s.rows = 4; s.cols = 5632; s.name = "silu";
  Options o = quick();
  o.max_seconds_per_case = 0.2;
  Result r = run_sequence({a, g, s}, o);
  INFO(r.error);
  CHECK(r.ok);
  CHECK(r.correct);
  CHECK(r.median_s > 0);
  CHECK(r.kernels_per_launch == 3);
}
