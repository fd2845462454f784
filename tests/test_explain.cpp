// --explain (issue 14): every explained number's `substituted` expression, evaluated here,
// gives the printed value, on dense, windowed, MoE, MLA, quantized, eager and calibrated steps,
// and on the gemm and op commands; the sources name the calibration key or the datasheet.
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cli_support.hpp"

using namespace cli_test;

namespace {

// A recursive-descent evaluator of the expressions explain.hpp writes: numbers (with e
// exponents), + - × * /, parentheses, max(a, b), floor(x).
class Expr {
 public:
  explicit Expr(std::string s) : s_(std::move(s)) {
    // "×" (UTF-8 C3 97) as '*'
    for (size_t p; (p = s_.find("\xC3\x97")) != std::string::npos;) s_.replace(p, 2, "*");
  }
  double eval() {
    const double v = sum();
    skip();
    if (i_ != s_.size()) throw std::runtime_error("trailing text at " + std::to_string(i_) + " in " + s_);
    return v;
  }
  bool used_floor = false;

 private:
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  double sum() {
    double v = product();
    for (;;) {
      if (eat('+')) v += product();
      else if (eat('-')) v -= product();
      else return v;
    }
  }
  double product() {
    double v = atom();
    for (;;) {
      if (eat('*')) v *= atom();
      else if (eat('/')) v /= atom();
      else return v;
    }
  }
  double atom() {
    skip();
    if (eat('(')) {
      const double v = sum();
      if (!eat(')')) throw std::runtime_error("missing ) in " + s_);
      return v;
    }
    if (s_.compare(i_, 4, "max(") == 0) {
      i_ += 4;
      const double a = sum();
      if (!eat(',')) throw std::runtime_error("max without , in " + s_);
      const double b = sum();
      if (!eat(')')) throw std::runtime_error("missing ) in " + s_);
      return std::max(a, b);
    }
    if (s_.compare(i_, 6, "floor(") == 0) {
      i_ += 6;
      used_floor = true;
      const double a = sum();
      if (!eat(')')) throw std::runtime_error("missing ) in " + s_);
      return std::floor(a);
    }
    size_t used = 0;
    const double v = std::stod(s_.substr(i_), &used);
    i_ += used;
    return v;
  }
  std::string s_;
  size_t i_ = 0;
};

const std::string& text(const test::Json& j, const std::string& key) {
  const test::Json* v = j.get(key);
  REQUIRE(v);
  return v->str;
}
double number(const test::Json& j, const std::string& path) {
  const test::Json* v = j.at(path);
  REQUIRE(v);
  return v->num;
}

// Every item of every section of a JSON report evaluates to its value.
int check_explained(const test::Json& report) {
  int items = 0;
  const test::Json* sections = report.get("explain");
  REQUIRE(sections);
  for (const test::Json& section : sections->arr) {
    for (const test::Json& it : section.get("items")->arr) {
      const std::string what = text(section, "section") + ": " + text(it, "name") + " = " + text(it, "substituted");
      CAPTURE(what);
      Expr e(text(it, "substituted"));
      const double got = e.eval(), want = number(it, "value");
      CHECK(std::isfinite(got));
      // 4 significant digits per number; a floor() of rounded numbers may land one off.
      CHECK(std::fabs(got - want) <= 2e-3 * std::fabs(want) + 1e-15 + (e.used_floor ? 1.0 : 0.0));
      CHECK_FALSE(text(it, "formula").empty());
      ++items;
    }
  }
  return items;
}

test::Json explained_json(const std::string& args) {
  const Run r = cli(args + " --explain --format json");
  SHOW(r);
  REQUIRE(r.rc == 0);
  return json_of(r);
}

}  // namespace

TEST_CASE("the evaluator itself") {
  CHECK(Expr("2 \xC3\x97 6.738e9 / (2048 \xC3\x97 524288)").eval() == doctest::Approx(12.55).epsilon(1e-3));
  CHECK(Expr("max(1e-3, 2 - 1) + floor(2.7)").eval() == doctest::Approx(3.0));
  CHECK_THROWS(Expr("2 +").eval());
}

TEST_CASE("decode --explain: every number's substitution gives the number, on many kinds of step") {
  for (const std::string args :
       {"decode --model llama2-7b --card a100 --ctx 2048", "decode --model llama3-8b --card h200 --batch 32 --ctx 4096",
        "prefill --model llama2-7b --card h200 --ctx 1024", "decode --model gemma2-9b --card h100 --batch 4 --ctx 8192",
        "decode --model mixtral-8x7b --card h200 --batch 16 --ctx 2048", "decode --model deepseek-v2-lite --card h200 --batch 8 --ctx 2048",
        "decode --model llama3-8b --card h200 --batch 8 --ctx 2048 --impl eager",
        "decode --model llama3-8b --card h200 --batch 8 --ctx 2048 --weight-dtype int4",
        "ops --model qwen2.5-7b --card h200 --batch 4 --ctx 1024"}) {
    CAPTURE(args);
    const test::Json j = explained_json(args);
    const int items = check_explained(j);
    // step (5) + analysis (>= 12) + about 5 per op
    CHECK(items >= 17 + 4 * static_cast<int>(j.get("ops")->arr.size()));
    // The step time explained is the step time printed.
    CHECK(number(j.get("explain")->arr.at(0).get("items")->arr.at(0), "value") == doctest::Approx(number(j, "step.time_s")));
  }
}

TEST_CASE("the issue's example: AI_max = 2N / (n kv) = 2 x 6.74e9 / (2048 x 524288) = 12.6") {
  const test::Json j = explained_json("decode --model llama2-7b --card a100 --ctx 2048");
  bool found = false;
  for (const test::Json& s : j.get("explain")->arr)
    for (const test::Json& it : s.get("items")->arr)
      if (text(it, "name") == "AI_max") {
        found = true;
        CHECK(text(it, "formula") == "2 N / (n kv)");
        CHECK(test::contains(text(it, "substituted"), "2048"));
        CHECK(test::contains(text(it, "substituted"), "524288"));
        CHECK(number(it, "value") == doctest::Approx(12.6).epsilon(0.01));
      }
  CHECK(found);
}

TEST_CASE("sources: the calibration key when calibrated, the datasheet and default efficiency when not") {
  const Run cal = cli("gemm --m 4096 --n 4096 --k 4096 --card h200 --explain");
  REQUIRE(cal.rc == 0);
  CHECK(test::contains(cal.out, "h200.calibration.yaml: gemm_peak.bf16"));
  CHECK(test::contains(cal.out, "h200.calibration.yaml: read_bandwidth"));
  const Run datasheet = cli("gemm --m 4096 --n 4096 --k 4096 --card h200 --no-calibration --explain");
  REQUIRE(datasheet.rc == 0);
  CHECK(test::contains(datasheet.out, "default GEMM efficiency"));
  CHECK(test::contains(datasheet.out, "default memory efficiency"));
  CHECK_FALSE(test::contains(datasheet.out, "calibration.yaml"));
  check_explained(explained_json("gemm --m 1 --n 8192 --k 8192 --card h200"));
}

TEST_CASE("op --explain, fused and unfused attention and an eager op with several kernels (LlamaRMSNorm)") {
  check_explained(explained_json("op --kind attention --heads 32 --kv-heads 32 --head-dim 128 --q-len 2048 --kv-len 2048 --card a100"));
  check_explained(explained_json("op --kind attention --heads 32 --kv-heads 32 --head-dim 128 --q-len 2048 --kv-len 2048 --unfused --card a100"));
  const test::Json eager = explained_json("op --kind rmsnorm --rows 4096 --cols 4096 --card h200 --impl eager");
  check_explained(eager);
  CHECK(eager.get("explain")->arr.size() >= 2);  // the op summed, then each of its kernels
}

TEST_CASE("decode attention's fixed time names the floors its price used: the profile's, not the card's launch floor") {
  // The fused and eager profiles price decode attention with cuDNN's measured decode floors
  // (profiles.<impl>.cudnn_decode); the card's kernel_floor is not part of that price.
  const Run fused = cli("decode --model llama3-8b --card h200 --ctx 4096 --batch 32 --explain");
  REQUIRE(fused.rc == 0);
  CHECK(test::contains(fused.out, "fixed = decode kernel floor "));
  CHECK(test::contains(fused.out, "h200.calibration.yaml: profiles.fused.cudnn_decode)"));
  // batch 2 x 8 KV heads: 16 CTAs leave SMs idle, cuDNN's own rule splits and adds its merge kernel.
  const Run eager = cli("decode --model llama3-8b --card h200 --ctx 4096 --batch 2 --impl eager --explain");
  REQUIRE(eager.rc == 0);
  CHECK(test::contains(eager.out, "reduction kernel floor (the split's merge)"));
  CHECK(test::contains(eager.out, "profiles.eager.cudnn_decode)"));
  // Uncalibrated: flash-decoding's model on the card's launch floor, named as such.
  const Run datasheet = cli("decode --model llama3-8b --card h200 --ctx 4096 --batch 2 --no-calibration --explain");
  REQUIRE(datasheet.rc == 0);
  CHECK(test::contains(datasheet.out, "fixed = split kernel's launch floor "));
  CHECK_FALSE(test::contains(datasheet.out, "cudnn_decode"));
}

TEST_CASE("FlashAttention-2's split decode names the block its floors come from, in a profile that borrows it") {
  // The eager profile has no `decode:` block of its own: it prices FlashAttention-2's split-KV decode with the
  // profile that measured one (roofs.cpp). Each fixed term names that block, never "not used".
  const Run r = cli("op --card h200 --kind attention_decode_flash2 --batch 1 --heads 2 --kv-heads 2 --kv-len 16384 "
                    "--head-dim 128 --impl eager --explain");
  REQUIRE(r.rc == 0);
  CHECK(test::contains(r.out, "fixed = split-KV call floor (split kernel and combine) "));
  CHECK(test::contains(r.out, ".decode (the same kernel in every profile))"));
  CHECK_FALSE(test::contains(r.out, "(not used)"));
}

TEST_CASE("PyTorch's own kernels and the MoE GEMMs name their measured floors too") {
  // F.layer_norm and torch.softmax as eager runs them: ATen's kernels, floors from profiles.eager.aten.
  for (const char* kind : {"layernorm", "softmax"}) {
    CAPTURE(kind);
    const Run r = cli(std::string("op --kind ") + kind + " --rows 64 --cols 4096 --card h200 --impl eager --explain");
    REQUIRE(r.rc == 0);
    CHECK(test::contains(r.out, std::string("fixed = ATen ") + (std::string(kind) == "softmax" ? "softmax_fused" : kind) + " kernel floor "));
    CHECK(test::contains(r.out, "h200.calibration.yaml: profiles.eager.aten)"));
  }
  // Mixtral's experts: torch._grouped_mm in eager, vLLM's fused_moe in the fused profile.
  const Run eager = cli("decode --model mixtral-8x7b --card h200 --ctx 1024 --batch 8 --impl eager --explain");
  REQUIRE(eager.rc == 0);
  CHECK(test::contains(eager.out, "fixed = grouped GEMM floor "));
  const Run fused = cli("decode --model mixtral-8x7b --card h200 --ctx 1024 --batch 8 --explain");
  REQUIRE(fused.rc == 0);
  CHECK(test::contains(fused.out, "fixed = fused_moe kernel floor "));
  CHECK(test::contains(fused.out, "h200.calibration.yaml: profiles.fused.fused_moe)"));
}

TEST_CASE("without --explain nothing is added") {
  const Run r = cli("decode --model llama2-7b --card a100 --ctx 2048 --format json");
  REQUIRE(r.rc == 0);
  CHECK(json_of(r).get("explain") == nullptr);
  CHECK_FALSE(test::contains(cli("decode --model llama2-7b --card a100 --ctx 2048").out, "explain ("));
}
