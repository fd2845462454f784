// The H100, which is not lent, against published measurements nothing was fitted on
// (validation/results/published-fa3-h100; validation/scripts/published/compare_h100.py prints every case):
// FlashAttention-3 paper Fig. 5 and a tritonbench run, bf16 forward attention on an H100 SXM5. The H200's
// calibration reaches the H100 through sibling_calibration (one die, calibration_transfer.hpp), as `perfmodel op
// --card h100-sxm` prices it. FlashAttention-3 is what vLLM runs on Hopper: the fused profile's prefill (cuDNN's
// kernel as fitted on the H200) is checked against it; FlashAttention-2 against its own tiles fitted on the H200.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "perfmodel/calibration_transfer.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/stats.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct Published {
  std::string source, impl, dtype;
  int64_t head_dim, seq_len, batch, heads;
  bool causal;
  double tflops;
};

std::vector<Published> published() {
  std::ifstream in(test::root() + "/validation/results/published-fa3-h100/forward_tflops.csv");
  REQUIRE(in);
  std::vector<Published> out;
  std::string line;
  std::getline(in, line);  // header: source,figure,impl,dtype,head_dim,causal,seq_len,batch,heads,tflops
  while (std::getline(in, line)) {
    std::stringstream s(line);
    std::vector<std::string> f;
    for (std::string cell; std::getline(s, cell, ',');) f.push_back(cell);
    REQUIRE(f.size() == 10);
    out.push_back({f[0], f[2], f[3], std::stoll(f[4]), std::stoll(f[6]), std::stoll(f[7]), std::stoll(f[8]), f[5] == "1",
                   std::stod(f[9])});
  }
  return out;
}

// |predicted / measured - 1| of every published case of one kernel and input dtype, from `min_len` tokens.
std::vector<double> errors(const std::string& impl, const std::string& dtype = "bf16", int64_t min_len = 0) {
  const Card& h100 = test::catalogue().card("h100-sxm");
  static const std::optional<Calibration> cal = sibling_calibration(test::catalogue(), h100);
  REQUIRE(cal);
  const Roofs roofs = make_roofs(h100, &*cal, Impl::fused);
  std::vector<double> out;
  for (const Published& p : published()) {
    if (p.impl != impl || p.dtype != dtype || p.seq_len < min_len) continue;
    const DType t = dtype == "fp8" ? DType::fp8 : DType::bf16;
    const Op op = impl == "flash2" ? ops::attention_prefill_flash2("p", p.batch, p.heads, p.heads, p.seq_len, p.seq_len,
                                                                   p.head_dim, p.causal, t, t)
                                   : ops::attention_prefill("p", p.batch, p.heads, p.heads, p.seq_len, p.seq_len,
                                                            p.head_dim, p.causal, t, t);
    // The benchmarks' own FLOP count: 4 b h s^2 d, halved under the causal mask.
    const double flops = 4.0 * p.batch * p.heads * p.seq_len * p.seq_len * p.head_dim / (p.causal ? 2 : 1);
    out.push_back(std::fabs(price(op, roofs, Impl::fused).time_s / (flops / (p.tflops * 1e12)) - 1));
  }
  return out;
}

}  // namespace

TEST_CASE("FlashAttention-3 on the H100 (published), the fused profile's prefill: median <= 8 %, p90 <= 20 %") {
  const std::vector<double> e = errors("flash3");
  REQUIRE(e.size() == 30);  // Fig. 5a / 5b / 5c / 5f and tritonbench, 512 to 16k tokens, head dims 64 / 128 / 256
  CAPTURE(quantile(e, 0.5));
  CAPTURE(quantile(e, 0.9));
  CHECK(quantile(e, 0.5) <= 0.08);  // 6.2 %, never fitted (issue 10's target)
  CHECK(quantile(e, 0.9) <= 0.20);  // 15.8 %
}

TEST_CASE("FlashAttention-2 on the H100 (published), its H200-fitted tiles: median <= 8 %, p90 <= 20 %") {
  const std::vector<double> e = errors("flash2");
  REQUIRE(e.size() == 24);
  CAPTURE(quantile(e, 0.5));
  CAPTURE(quantile(e, 0.9));
  CHECK(quantile(e, 0.5) <= 0.08);  // 3.7 %
  CHECK(quantile(e, 0.9) <= 0.20);  // 12.1 %
}

// PyTorch's SDPA takes no FP8, so FP8 attention is never measured here: the paper's FP8 figures are its only check.
// From 4k tokens the MMAs at the fp8 rate (flash_prefill_cost.cpp) price FlashAttention-3 within 16 %; priced as
// bf16 (before) they were 59 % slow at the median. Below 4k FA3's FP8 kernel runs far under that rate (at 512 tokens
// slower than its own bf16 kernel): 15-53 % fast, the row docs/targets.md reports as missed.
TEST_CASE("FlashAttention-3 FP8 on the H100 (published), from 4k tokens: median <= 8 %, p90 <= 20 %") {
  const std::vector<double> long_calls = errors("flash3", "fp8", 4096);
  REQUIRE(long_calls.size() == 12);
  CAPTURE(quantile(long_calls, 0.5));
  CAPTURE(quantile(long_calls, 0.9));
  CHECK(quantile(long_calls, 0.5) <= 0.08);
  CHECK(quantile(long_calls, 0.9) <= 0.20);
  CHECK(quantile(errors("flash3", "fp8"), 0.5) <= 0.20);  // all 24: 15.7 % (33.6 % priced as bf16)
}
