// The eager (transformers 5) MoE and MLA lowering against validation/results/h200-moe: the
// latent cache re-expanded over the whole context every step, the grouped_mm experts' glue
// kernels, and torch._grouped_mm's persistent tiles (grouped_mm_cost.cpp), FLOPs, bytes, tiles
// and times by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "perfmodel/calibration.hpp"
#include "perfmodel/evaluate.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/price.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {
const Op& op_named(const Step& s, const std::string& name) {
  for (const Op& op : s.ops)
    if (op.name == name) return op;
  FAIL("no op " << name);
  return s.ops.front();
}
bool has_op(const Step& s, const std::string& name) {
  return std::any_of(s.ops.begin(), s.ops.end(), [&](const Op& op) { return op.name == name; });
}
Workload eager(int64_t batch, int64_t ctx, Phase phase = Phase::decode) {
  Workload w;
  w.impl = Impl::eager;
  w.batch = batch;
  w.ctx = ctx;
  w.phase = phase;
  return w;
}
}  // namespace

TEST_CASE("eager MLA decode: kv_b_proj over the whole context, the 192-wide keys cat copies input by input") {
  const Model m = test::catalogue().model("deepseek-v2-lite");  // 16 heads, latent 512, rope 64, nope 128, v 128
  const int64_t b = 64, ctx = 2048, rows = b * ctx;  // probe_ops.txt: aten::mm [[131136, 512], [512, 4096]]
  const Step s = build_step(m, eager(b, ctx));
  const Op& up = op_named(s, "kv_b_proj");
  CHECK(up.gemm.m == rows);
  CHECK(up.gemm.n == 16 * (128 + 128));
  CHECK(up.gemm.k == 512);
  CHECK(up.flops == test::approx(2.0 * rows * 4096 * 512));
  CHECK(up.count == 27);
  // cat((k_nope, k_pe.expand)): k_nope [b, 16, ctx, 128] out of the strided view into its slice,
  // read and written once; k_pe [b, 1, ctx, 64] broadcast to 16 heads: one read per position,
  // 16 writes. Both generic direct_copy kernels (2 operands each); no CatArrayBatchedCopy.
  const Op& nope = op_named(s, "key_nope_copy");
  CHECK(nope.strided);
  CHECK(nope.generic_operands == 2);
  CHECK(nope.kernel == KernelId::other);
  CHECK(nope.bytes_read == test::approx(double(rows) * 16 * 128 * 2));
  CHECK(nope.bytes_written == test::approx(double(rows) * 16 * 128 * 2));
  const Op& pe = op_named(s, "key_pe_copy");
  CHECK(pe.bytes_read == test::approx(double(rows) * 64 * 2));
  CHECK(pe.bytes_written == test::approx(double(rows) * 16 * 64 * 2));
  CHECK_FALSE(has_op(s, "key_cat"));
  CHECK(op_named(s, "query_cat").rows == b);  // the new tokens only
  // The cache grows by the latent and its rope key (576 wide), two vectorized cats.
  const Op& cache = op_named(s, "kv_write.cat");
  CHECK(cache.cols == 576);
  CHECK(cache.launches == 2);
  CHECK_FALSE(cache.strided);
  CHECK(cache.bytes_written == test::approx(double(rows) * 576 * 2));
  // SDPA over the expanded keys and values.
  CHECK(op_named(s, "attention.sdpa").attention.kv_len == ctx);
  CHECK(op_named(s, "attention.sdpa").attention.head_dim == 160);
  // The generic copy by hand, per layer: strided_floor 2.60 us + elements x 2 operands / 6.47e11
  // (the DRAM stream of 0.54 + 0.54 GB is faster).
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Evaluation e = evaluate(m, eager(b, ctx), test::catalogue().card("h200"), &cal);
  double copy_s = 0;
  for (size_t i = 0; i < e.step.ops.size(); ++i)
    if (e.step.ops[i].name == "key_nope_copy") copy_s = e.cost.ops[i].device_time_s;
  CHECK(copy_s == test::approx(2.60e-6 + double(rows) * 16 * 128 * 2 / 6.47e11).epsilon(1e-3));
}

TEST_CASE("eager MLA prefill: the prompt expanded once, no cache cat") {
  const Model m = test::catalogue().model("deepseek-v2-lite");
  const Step s = build_step(m, eager(2, 1024, Phase::prefill));
  CHECK(op_named(s, "kv_b_proj").gemm.m == 2 * 1024);
  CHECK_FALSE(has_op(s, "kv_write.cat"));
  CHECK(op_named(s, "key_nope_copy").rows == 2 * 1024);
}

TEST_CASE("eager grouped_mm experts: the glue kernels transformers 5 runs, shapes by hand") {
  const Model m = test::catalogue().model("qwen3-30b-a3b");  // E 128, k 8, hidden 2048, I 768
  const int64_t T = 16, routed = T * 8;
  const Step s = build_step(m, eager(T, 1024));
  CHECK(op_named(s, "router.topk").launches == 3);  // gatherTopK and two bitonic sorts
  CHECK(op_named(s, "experts._grouped_mm_gate_up").launches == 2);  // prepare_grouped_gemm_data + GEMM
  CHECK(op_named(s, "experts._grouped_mm_down").launches == 2);
  const Op& rows = op_named(s, "experts.gather_rows");
  CHECK(rows.bytes_written == test::approx(double(routed) * 2048 * 2));
  // out * weights[:, None]: the broadcast weight sends TensorIterator down its generic path.
  const Op& mul = op_named(s, "experts.mul_weights");
  CHECK(mul.strided);
  CHECK(mul.generic_operands == 3);
  CHECK(mul.rows * mul.cols == routed * 2048);
  // act_fn(gate) * up on the chunk views of the [routed, 2 I] output: generic too.
  CHECK(op_named(s, "experts.act_fn").generic_operands == 2);
  CHECK(op_named(s, "experts.act_mul_up").generic_operands == 3);
  CHECK(op_named(s, "experts.act_mul_up").rows * op_named(s, "experts.act_mul_up").cols == routed * 768);
  // out[inv_perm] then the sum over the k picks: the routed rows read twice, written once, and T rows out.
  const Op& back = op_named(s, "experts.unpermute_sum");
  CHECK(back.launches == 2);
  CHECK(back.bytes_written == test::approx(double(T) * 2048 * 2 + double(routed) * 2048 * 2));
  CHECK(op_named(s, "experts.argsort").launches == 4);  // 128 picks: iota + in-place sort, twice
  // Each grouped GEMM's input passes masked_fill out of place: a clone, then masked_fill_
  // (self, self, mask) over [routed, hidden] and [routed, I].
  CHECK(op_named(s, "experts.rows.clone").bytes_written == test::approx(double(routed) * 2048 * 2));
  CHECK(op_named(s, "experts.rows.masked_fill").rows * op_named(s, "experts.rows.masked_fill").cols == routed * 2048);
  CHECK(op_named(s, "experts.act.masked_fill").rows * op_named(s, "experts.act.masked_fill").cols == routed * 768);
  CHECK(op_named(s, "experts.act.masked_fill").generic_operands == 3);
  // Every kernel of an MoE layer: router 1 + 1 + 3 + 2 + 1, experts 2 + 1 + 4 + 3 + 5 + 2 x (1 + 1)
  // + 2 + 1 + 1 + 2 + 1 + 2.
  int64_t moe_launches = 0;
  for (const Op& op : s.ops)
    if (op.name.rfind("router.", 0) == 0 || op.name.rfind("experts.", 0) == 0) moe_launches += op.launches;
  CHECK(moe_launches == 8 + 28);
}

TEST_CASE("eager experts at prefill: cub's radix sort past 4096 picks, the generic kernels per operand element") {
  const Model m = test::catalogue().model("qwen3-30b-a3b");
  // 512 tokens x 8 picks = 4096: still the in-place sort; 513 tokens: cub's onesweep radix sort,
  // 12 kernels per argsort (h200-moe-contiguous: prefill runs 16-17 more kernels a layer than decode).
  CHECK(op_named(build_step(m, eager(1, 512, Phase::prefill)), "experts.argsort").launches == 4);
  CHECK(op_named(build_step(m, eager(1, 513, Phase::prefill)), "experts.argsort").launches == 24);
  // masked_fill_ over [2048 x 8, 768] at prefill b1 ctx2048, per layer: strided_floor + 3 operands
  // per element at generic_operand_elements_per_s (fit_moe_glue.py's model).
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Evaluation e = evaluate(m, eager(1, 2048, Phase::prefill), test::catalogue().card("h200"), &cal);
  double fill_s = 0;
  for (size_t i = 0; i < e.step.ops.size(); ++i)
    if (e.step.ops[i].name == "experts.act.masked_fill") fill_s = e.cost.ops[i].device_time_s;
  CHECK(fill_s == test::approx(2.60e-6 + 2048.0 * 8 * 768 * 3 / 6.47e11).epsilon(1e-3));
}

TEST_CASE("torch._grouped_mm: each CTA's own stream plus the card's shared one; prefill is MMA-bound") {
  // The checks below state moe9's law term by term: the calibration with branch moe14's wave
  // sharing and branch moe15's tile switch cleared (both in the default since branch moedef; the
  // next test case states them).
  Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  for (ProfileCalibration& p : cal.profiles) {
    p.aten.grouped_mm_wave_sharing = 0;
    p.aten.grouped_mm_tile_switch_s = 0;
  }
  const Card card = test::catalogue().card("h200");
  const Roofs r = make_roofs(card, &cal, Impl::eager);
  REQUIRE(r.aten.grouped_mm_measured());
  const double cta = r.aten.grouped_mm_cta_rate, stream = r.aten.grouped_mm_stream;
  // Qwen3 gate_up at one token: 8 experts x ceil(1536 / 128) = 96 tiles of 64 x 128, one wave on
  // 96 of the 132 SMs; a tile's slab at one CTA's rate plus the wave's bytes at the card's.
  const Op one = ops::grouped_gemm("gate_up", 1, 8, 128, 1536, 2048, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(one.bytes() == test::approx(8.0 * 1536 * 2048 * 2 + 8.0 * (2048 + 1536) * 2));
  const OpCost c = price(one, r, Impl::eager);
  CHECK(c.memory_time_s == test::approx(one.bytes() / 96 / cta + one.bytes() / stream));
  // One row's MMAs on the pingpong kernel (the mean over 128 experts is far under 128 rows), at
  // that kernel's share of the peak; memory-bound all the same.
  const double ping_peak = r.peak[size_t(Precision::bf16)] * r.aten.grouped_mm_pingpong_mma_share;
  CHECK(c.compute_time_s == test::approx(2.0 * 1 * 128 * 2048 / (ping_peak / 132)));
  CHECK(c.device_time_s == test::approx(r.aten.grouped_mm_floor_s + c.memory_time_s));
  // Measured 32.4 us (h200-moe) and 31.9 us (h200-moe-sync, in the fit): within 5 %.
  CHECK(c.device_time_s == test::approx(32.4e-6).epsilon(0.05));
  // A CTA alone streams faster than its share of a full card (Mixtral's T = 1 down projection,
  // 64 CTAs walking K = 14336, ran at ~45 GB/s a CTA; Qwen3's full card at ~23).
  CHECK(1 / (1 / cta + 132 / stream) < 1 / (1 / cta + 64 / stream));
  CHECK(1 / (1 / cta + 132 / stream) == test::approx(23e9).epsilon(0.05));
  // At T = 8, ceil(128 (1 - (120/128)^8)) = 52 experts x 12 = 624 tiles: 132 CTAs in 5 waves.
  const Op eight = ops::grouped_gemm("gate_up", 8, 8, 128, 1536, 2048, DType::bf16, DType::bf16, Precision::bf16);
  const double tiles = std::ceil(eight.moe.experts_touched - 1e-9) * 12;
  CHECK(tiles == 624);
  const double tile_bytes = eight.bytes() / tiles;
  CHECK(price(eight, r, Impl::eager).memory_time_s == test::approx(5 * (tile_bytes / cta + tile_bytes * 132 / stream)));
  // Two row tiles per expert (65 rows; set by hand as the routing sweep does: 65 tokens each
  // picking all 8 experts, so every expert has exactly 65 rows): the 2 x 1 cluster's CTAs share
  // each weight slab (multicast), so a CTA fetches half of it per tile; twice the tiles, the same
  // DRAM bytes.
  const Op rows65 = ops::grouped_gemm("w", 65, 8, 8, 4096, 4096, DType::bf16, DType::bf16, Precision::bf16);
  REQUIRE(rows65.gemm.m == 65);
  const double t65 = rows65.bytes() / (8.0 * 2 * 32);
  const double two_terms = 4 * (2 * t65 / 2 / cta + t65 * 132 / stream);
  // Since h200-moe6 a pair streams as a full pair in the share (rows / 128 - 1/2) / (1/4), from 65
  // rows (1/32 here) to 96 (all): those tiles at grouped_mm_full_pair_stream, no per-CTA term.
  const double full = r.aten.grouped_mm_full_pair_stream;
  REQUIRE(full > stream);
  CHECK(price(rows65, r, Impl::eager).memory_time_s ==
        test::approx((1 - 1.0 / 32) * two_terms + rows65.bytes() / 32 / full));
  for (int64_t rows : {96, 128}) {  // a full pair: the op's bytes at the full-pair stream
    const Op op = ops::grouped_gemm("w", rows, 8, 8, 4096, 4096, DType::bf16, DType::bf16, Precision::bf16);
    CHECK(price(op, r, Impl::eager).memory_time_s == test::approx(op.bytes() / full));
  }
  // A router's rows (binomial: T = 512 tokens, top-2 of 8, 128 an expert on average) keep the two
  // terms: h200-moe5's random-router cases at that mean ran at the partial-pair rate.
  const Op router_rows = ops::grouped_gemm("w", 512, 2, 8, 4096, 4096, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(price(router_rows, r, Impl::eager).memory_time_s > 1.2 * router_rows.bytes() / full);
  // Mixtral prefill, 2048 rows on each of 8 experts (set by hand): a mean of 2048 rows over the
  // experts (> 128) with N > 128, so GroupMM.cu runs its 128 x 256 cooperative kernel: 16 x 112
  // tiles each, far more than the SMs: MMA-bound at the cooperative kernel's share.
  const Op big = ops::grouped_gemm("w13", 2048, 8, 8, 28672, 4096, DType::bf16, DType::bf16, Precision::bf16);
  const double waves = std::ceil(8.0 * 16 * 112 / 132);
  const OpCost p = price(big, r, Impl::eager);
  CHECK(p.compute_time_s > p.memory_time_s);
  const double coop_peak = r.peak[size_t(Precision::bf16)] * r.aten.grouped_mm_cooperative_mma_share;
  CHECK(p.compute_time_s == test::approx(waves * 2.0 * 128 * 256 * 4096 / (coop_peak / 132)));
  REQUIRE(p.tiling.has_value());
  CHECK(p.tiling->tile.name() == "128x256");
  // The mean over ALL the weight's experts decides: 2048 tokens x 8 picks over 128 experts (Qwen3
  // prefill, mean 128) run the pingpong kernel at 64 x 128, 4096 tokens (mean 256) the cooperative.
  const Op qwen = ops::grouped_gemm("gate_up", 2048, 8, 128, 1536, 2048, DType::bf16, DType::bf16, Precision::bf16);
  REQUIRE(price(qwen, r, Impl::eager).tiling.has_value());
  CHECK(price(qwen, r, Impl::eager).tiling->tile.name() == "64x128");
  const Op qwen4k = ops::grouped_gemm("gate_up", 4096, 8, 128, 1536, 2048, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(price(qwen4k, r, Impl::eager).tiling->tile.name() == "128x256");
  // N <= 128 keeps the pingpong kernel whatever the rows.
  const Op narrow = ops::grouped_gemm("w", 2048, 8, 8, 128, 4096, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(price(narrow, r, Impl::eager).tiling->tile.name() == "64x128");
  // A third M tile brings the 2 x 1 cluster's partner: 384 rows (DeepSeek-V2-Lite's T = 4096) on
  // the cooperative kernel cost four 128-row tiles, not three; 129 rows two.
  const Op rows384 = ops::grouped_gemm("w", 384, 8, 8, 4096, 4096, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(price(rows384, r, Impl::eager).tiling->tiles == 8 * 4 * 16);
  const Op rows129 = ops::grouped_gemm("w", 129, 8, 8, 4096, 4096, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(price(rows129, r, Impl::eager).tiling->tiles == 8 * 2 * 16);
  // A step's router: each expert's rows are Binomial(T, k / E). Mixtral prefill at 2048 tokens,
  // top-2 of 8: 512 rows on average, but P(rows > 512) = 0.49, and those experts take a third
  // 256-row cluster pair (six 128-row tiles): 8 x (4 + 2 x 0.49) = 39.8 -> 40 x 112 tiles, where
  // balanced rows would give 32 x 112 (h200-moe5: the random router's case 1.29x the balanced).
  const Op routed = ops::grouped_gemm("w13", 2048, 2, 8, 28672, 4096, DType::bf16, DType::bf16, Precision::bf16);
  REQUIRE(routed.gemm.m == 512);
  CHECK(price(routed, r, Impl::eager).tiling->tiles == 40 * 112);
  // At decode every touched expert has one tile: a few rows each (Qwen3 T = 8 above, 624 tiles).
  // Without the eager profile's measurement (datasheet roofs) it stays a tiled GEMM with tiles
  // and waves (gemm_cost).
  const Roofs plain = make_roofs(card, nullptr);
  CHECK_FALSE(plain.aten.grouped_mm_measured());
  REQUIRE(price(one, plain, Impl::eager).tiling.has_value());
  REQUIRE(c.tiling.has_value());
  CHECK(c.tiling->tile.name() == "64x128");
  CHECK(c.tiling->tiles == 96);
  CHECK(c.tiling->waves == 1);
}

TEST_CASE("torch._grouped_mm's default since branch moedef: moe14's wave sharing and the serial tile switch") {
  const Calibration cal = load_calibration(test::root() + "/hardware/h200.calibration.yaml");
  const Card card = test::catalogue().card("h200");
  const Roofs r = make_roofs(card, &cal, Impl::eager);
  REQUIRE(r.aten.grouped_mm_wave_sharing == 1);
  REQUIRE(r.aten.grouped_mm_tile_switch_s > 0);
  const double cta = r.aten.grouped_mm_cta_rate, stream = r.aten.grouped_mm_stream;
  // Qwen3 gate_up at one token, one wave: the law leaves the two terms as they were (the first
  // wave pays the per-CTA term whole); each CTA tile a CTA walks adds the switch x 768 / K: 8
  // experts x 2 M tiles (CUTLASS's cluster pair) x 12 column tiles over 132 CTAs, serial to the
  // larger of the memory and MMA terms.
  const Op one = ops::grouped_gemm("gate_up", 1, 8, 128, 1536, 2048, DType::bf16, DType::bf16, Precision::bf16);
  const OpCost c = price(one, r, Impl::eager);
  CHECK(c.memory_time_s == test::approx(one.bytes() / 96 / cta + one.bytes() / stream));
  const double tile_switch = r.aten.grouped_mm_tile_switch_s * 768.0 / 2048.0 * (8.0 * 2 * 12 / 132);
  CHECK(c.device_time_s == test::approx(r.aten.grouped_mm_floor_s + tile_switch + c.memory_time_s));
  // Measured 32.4 us (h200-moe) and 31.9 us (h200-moe-sync): within 5 %.
  CHECK(c.device_time_s == test::approx(32.4e-6).epsilon(0.05));
  // At T = 8, 624 tiles in 5 waves: each later wave's per-CTA term in the share c_eff / W, the
  // clusters of one expert in a wave (6 here: 12 column tiles, one pair) over the wave's 66.
  const Op eight = ops::grouped_gemm("gate_up", 8, 8, 128, 1536, 2048, DType::bf16, DType::bf16, Precision::bf16);
  const double tile_bytes = eight.bytes() / 624;
  const OpCost e = price(eight, r, Impl::eager);
  CHECK(e.memory_time_s < 5 * (tile_bytes / cta + tile_bytes * 132 / stream));
  CHECK(e.memory_time_s > tile_bytes / cta + 5 * tile_bytes * 132 / stream);
  // A compute-bound pingpong op (h200-moe5's forced-pingpong Qwen3 down, 256 rows on each of 128
  // experts): the switch adds to the MMA term, not hidden under it.
  Op forced = ops::grouped_gemm("w2", 256, 128, 128, 2048, 768, DType::bf16, DType::bf16, Precision::bf16);
  forced.moe = {128, 256, 256, forced.moe.experts_touched};
  const OpCost f = price(forced, r, Impl::eager);
  REQUIRE(f.tiling.has_value());
  CHECK(f.tiling->tile.name() == "64x128");
  CHECK(f.compute_time_s > f.memory_time_s);
  CHECK(f.device_time_s > r.aten.grouped_mm_floor_s + f.compute_time_s + r.aten.grouped_mm_tile_switch_s * 60);
}
