// The mechanisms of quant5 (quant_gemm_cost.cpp): torch._int_mm's sm80 kernels (cuBLAS's tile
// pick as a rule, the SM's resident CTAs sharing its MMA and fill, the zero-filled rows) and
// cuBLASLt's block-scaled FP8 split-K. The figures quoted are h200-quant2's measurements.
#include <doctest/doctest.h>

#include "perfmodel/calibration.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/profile_accuracy.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

struct H200 {
  Card card = test::catalogue().card("h200");
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  Roofs eager = make_roofs(card, &cal, Impl::eager);
  Roofs fused = make_roofs(card, &cal);
};

const H200& h200() {
  static const H200 h;
  return h;
}

double int_mm(int64_t m, int64_t n, int64_t k) {
  Op op = ops::gemm_scaled("g", m, n, k, DType::bf16, DType::int8, Scaling::tensor);
  op.bytes_written = 4.0 * static_cast<double>(m * n);  // int32 out
  return price(op, h200().eager, Impl::fused).time_s;
}

OpCost int_mm_cost(int64_t m, int64_t n, int64_t k) {
  Op op = ops::gemm_scaled("g", m, n, k, DType::bf16, DType::int8, Scaling::tensor);
  return price(op, h200().eager, Impl::fused);
}

double block(int64_t m, int64_t n, int64_t k) {
  return price(ops::gemm_scaled("b", m, n, k, DType::bf16, DType::fp8, Scaling::block), h200().fused, Impl::fused).time_s;
}

}  // namespace

TEST_CASE("torch._int_mm: cuBLAS's tile as a rule in M, N, K") {
  auto tile = [](int64_t m, int64_t n, int64_t k) {
    const OpCost c = int_mm_cost(m, n, k);
    REQUIRE(c.tiling);
    return std::make_pair(c.tiling->tile.m, c.tiling->tile.n);
  };
  // 64x64 while its CTAs fit about once (Llama-3-70B qkv at 64 rows: 160 CTAs), not at 192.
  CHECK(tile(64, 10240, 8192) == std::make_pair<int64_t, int64_t>(64, 64));
  CHECK(tile(128, 6144, 4096) == std::make_pair<int64_t, int64_t>(128, 64));
  // Qwen's K = 3584 stays on 128x64 up to 4096 rows; deep K takes 128x128, then 128x256.
  CHECK(tile(4096, 4608, 3584) == std::make_pair<int64_t, int64_t>(128, 64));
  CHECK(tile(256, 8192, 28672) == std::make_pair<int64_t, int64_t>(128, 128));
  CHECK(tile(1024, 8192, 28672) == std::make_pair<int64_t, int64_t>(128, 256));
  // 128x256 only from 128 rows on (quant6): the widest gate/ups keep 128x128 / 128x64 below it
  // (Llama-3-70B gate/up at 32 and 64 rows: 128x128, 5 stages; Qwen2.5-32B gate/up at 96 rows:
  // 128x64), and take 128x256 at 128 (Llama-3-70B) and 192 rows (Qwen2.5-32B).
  CHECK(tile(32, 57344, 8192) == std::make_pair<int64_t, int64_t>(128, 128));
  CHECK(tile(64, 57344, 8192) == std::make_pair<int64_t, int64_t>(128, 128));
  CHECK(tile(96, 55296, 5120) == std::make_pair<int64_t, int64_t>(128, 64));
  CHECK(tile(128, 57344, 8192) == std::make_pair<int64_t, int64_t>(128, 256));
  CHECK(tile(192, 55296, 5120) == std::make_pair<int64_t, int64_t>(128, 256));
}

TEST_CASE("torch._int_mm: resident CTAs share the SM; zero-filled rows cost no fill") {
  // Llama-3-70B qkv at 32 rows: 160 64x64 CTAs, two per SM on 28 SMs: one round, not two waves
  // (33.4 us measured against 22.7 for o's 128 CTAs: 1.47x, not 2x).
  const double qkv = int_mm(32, 10240, 8192), o = int_mm(32, 8192, 8192);
  CHECK(qkv > 1.15 * o);
  CHECK(qkv < 1.6 * o);
  // Llama-3-8B gate/up, 448 128x64 CTAs, three resident per SM: 128 rows 55.7 us, 32 rows 35.4.
  CHECK(int_mm(128, 28672, 4096) > 1.2 * int_mm(32, 28672, 4096));
  CHECK(int_mm(128, 28672, 4096) == test::approx(55.7e-6).epsilon(0.12));
  // A lone 64x64 CTA per SM is not faster with fewer rows (Llama-3-8B o: 11.7 / 11.9 / 12.0 us).
  CHECK(int_mm(32, 4096, 4096) == test::approx(int_mm(64, 4096, 4096)).epsilon(0.02));
  CHECK(int_mm(64, 4096, 4096) == test::approx(11.9e-6).epsilon(0.08));
  // At 4096 rows the 128x256 kernel at ~935 TOP/s (Llama-3-70B gate/up 4116 us).
  CHECK(int_mm(4096, 57344, 8192) == test::approx(4115.8e-6).epsilon(0.05));
}

TEST_CASE("block-scaled FP8: split-K at small outputs and long K, no padded-row term") {
  // The measured times are harness times: a split call (the _splitK kernel, then splitKreduce)
  // holds the GPU idle after a pair of kernels, 1.06 us, where the block keys, fitted on one-kernel
  // calls, hold the 0.46 after one (profile_accuracy.cpp harness_idle_s; branch fp8small12).
  const double pair = harness_idle_s(2) - harness_idle_s(1);
  // Llama-3-8B down: 25.7 us at 16 rows (split + splitKreduce), 41.1 at 32 (one pass).
  CHECK(block(16, 4096, 14336) < 0.75 * block(32, 4096, 14336));
  CHECK(block(16, 4096, 14336) + pair == test::approx(25.7e-6).epsilon(0.10));
  CHECK(block(32, 4096, 14336) == test::approx(41.1e-6).epsilon(0.10));
  // No split at K <= 8192 or at 16 x 8192 outputs (Llama-3-70B o, down: M = 16 as M = 128).
  CHECK(block(16, 8192, 8192) == test::approx(block(128, 8192, 8192)).epsilon(0.03));
  CHECK(block(16, 8192, 28672) == test::approx(block(128, 8192, 28672)).epsilon(0.03));
  // The split count (quant6, h200-quant5's kernel grids): Llama-3.2-3B down (K = 8192) 3-way at 16
  // rows, 16.4 us; 2-way at 32, 19.6 us; unsplit at 48, 26.3 us (the old rule, K > 8192 and two
  // parts, priced 16 and 32 rows unsplit: +61 % / +35 %).
  // 16 rows: -16 % (13.8 with the pair's idle against 16.4 us; -19 % without it), a known miss
  // stated at its size; checked with doctest's default scale until 2026-12-02, which let any
  // microsecond value through (the claim was 15 %). Every split grid not bound by its stream is
  // priced fast, by 0.6-3.6 us before the pair's idle, not for the reduce (docs/accuracy-notes.md,
  // branch fp8small12; validation/scripts/quant/block_split_overlap.py).
  CHECK(block(16, 3072, 8192) + pair == test::approx(16.4e-6).epsilon(0.17));
  CHECK(block(32, 3072, 8192) + pair == test::approx(19.6e-6).epsilon(0.15));
  CHECK(block(48, 3072, 8192) == test::approx(26.3e-6).epsilon(0.15));
  CHECK(block(16, 3072, 8192) < block(32, 3072, 8192));
  CHECK(block(32, 3072, 8192) < 0.85 * block(48, 3072, 8192));
  // Qwen2.5-32B down (40 tiles): 3-way at 16 rows (45.5 us), which fills the SMs; unsplit at 32
  // (78.1 us, 32 x 5120 outputs are past 2^17).
  CHECK(block(16, 5120, 27648) + pair == test::approx(45.5e-6).epsilon(0.15));
  CHECK(block(32, 5120, 27648) == test::approx(78.1e-6).epsilon(0.15));
  // No split below K = 8192 whatever the output (Qwen2.5-32B o at 16 rows: 18.4 us; M = 16 as 96).
  CHECK(block(16, 5120, 5120) == test::approx(block(96, 5120, 5120)).epsilon(0.05));
  // Without the block keys the kernel is priced as the row-scaled one (padded-row term included).
  Calibration without = h200().cal;
  without.quant.fp8_block = {};
  const Roofs r = make_roofs(h200().card, &without);
  const double as_row = price(ops::gemm_scaled("b", 16, 8192, 8192, DType::bf16, DType::fp8, Scaling::block), r, Impl::fused).time_s;
  const double as_row_scaled = price(ops::gemm_scaled("r", 16, 8192, 8192, DType::bf16, DType::fp8, Scaling::row), r, Impl::fused).time_s;
  CHECK(as_row > 1.2 * block(16, 8192, 8192));
  CHECK(as_row == test::approx(as_row_scaled).epsilon(0.05));
}

// quant9 (h200-quant9's block trace of ATen's weight_int8pack_mm_kernel): past the first resident
// round (8 blocks an SM, 1056 on 132 SMs) at 1-4 rows the rest of the grid lands on the SMs that
// free first, the first refill taking floor((64 - 7 x live warps) / 8) blocks at once (7 at M = 1);
// with 8 live warps a block (16 rows) the refill is one block a completed block, as before.
TEST_CASE("torch int8pack: the blocks past the first round land on the SMs that free first") {
  auto wonly = [](int64_t m, int64_t n, int64_t k) {
    return price(ops::gemm_wonly("w", m, n, k, DType::bf16, DType::int8, 0), h200().fused, Impl::fused).time_s;
  };
  // M = 1, N = 16896 -> 17408 (1056 -> 1088 blocks): measured 317.7 -> 583.7 us (1.84x), the 32
  // late blocks 7 to an SM; one block more an SM would have been 1.5x.
  const double jump = wonly(1, 17408, 4096) / wonly(1, 16896, 4096);
  CHECK(jump > 1.75);
  CHECK(jump < 2.1);
  // More late blocks: a larger company on the busiest SM, never below the first refill's.
  CHECK(wonly(1, 24576, 4096) > wonly(1, 17408, 4096) * 1.05);
  CHECK(wonly(1, 20480, 4096) == test::approx(wonly(1, 17408, 4096)).epsilon(0.01));  // 7 of 224: still the first refill
  // 16 rows (8 live warps): one more round, not a greedy refill (h200-quant8: 8448 -> 8464 at
  // 16 rows, 1240.6 -> 1534.5 us, 1.24x).
  const double rows16 = wonly(16, 8464, 4096) / wonly(16, 8448, 4096);
  CHECK(rows16 > 1.15);
  CHECK(rows16 < 1.35);
}
