// ops.hpp: each op's FLOPs and bytes against a hand count (every tensor read and written once
// per kernel, in its own dtype; seed 004 错误一).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "perfmodel/checked.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/ops.hpp"
#include "test_support.hpp"

using namespace perfmodel;

TEST_CASE("gemm: 2mnk FLOPs; reads x and W (and the bias), writes y") {
  // y[8, 6] = x[8, 4] . W[6, 4]^T, bf16: FLOPs 2·8·6·4 = 384; read (32 + 24) x 2 = 112 B;
  // write 48 x 2 = 96 B.
  const Op g = ops::gemm("g", 8, 6, 4, DType::bf16, DType::bf16, Precision::bf16);
  CHECK(g.kind == OpKind::gemm);
  CHECK(g.kernel == KernelId::gemm);
  CHECK(g.precision == Precision::bf16);
  CHECK(g.gemm.m == 8);
  CHECK(g.gemm.n == 6);
  CHECK(g.gemm.k == 4);
  CHECK(g.flops == 384.0);
  CHECK(g.model_flops == 384.0);
  CHECK(g.bytes_read == 112.0);
  CHECK(g.bytes_written == 96.0);
  CHECK(g.intensity() == test::approx(384.0 / 208.0));
  // With a bias: + n x 2 = 12 B read.
  CHECK(ops::gemm("g", 8, 6, 4, DType::bf16, DType::bf16, Precision::bf16, true).bytes_read == 124.0);
  // fp8 weights, bf16 activations: W at 1 byte: 32·2 + 24·1 = 88 B.
  CHECK(ops::gemm("g", 8, 6, 4, DType::bf16, DType::fp8, Precision::fp8).bytes_read == 88.0);
  // fp32: 4 bytes per element.
  CHECK(ops::gemm("g", 8, 6, 4, DType::fp32, DType::fp32, Precision::fp32).bytes() == 4.0 * (32 + 24 + 48));
}

TEST_CASE("add, copy, silu_mul, gelu_mul: reads, writes and FLOPs per element") {
  // 10 x 20 = 200 elements of bf16 (2 B).
  const Op add = ops::add("a", 10, 20, DType::bf16);
  CHECK(add.flops == 200.0);
  CHECK(add.bytes_read == 2 * 200 * 2.0);
  CHECK(add.bytes_written == 200 * 2.0);
  CHECK(add.kind == OpKind::elementwise);
  CHECK(add.precision == Precision::fp32);  // CUDA cores (seed 000)
  const Op copy = ops::copy("c", 10, 20, DType::fp32);
  CHECK(copy.kind == OpKind::copy);
  CHECK(copy.flops == 0.0);
  CHECK(copy.bytes_read == 800.0);
  CHECK(copy.bytes_written == 800.0);
  // silu(g)·u: reads gate and up, writes one; 5 FLOPs per element.
  const Op s = ops::silu_mul("s", 10, 20, DType::bf16);
  CHECK(s.bytes_read == 800.0);
  CHECK(s.bytes_written == 400.0);
  CHECK(s.flops == 1000.0);
  // Seed 004 第五题: silu and mul as two kernels move 5 tensors, fused 3: 40 % less time.
  const double two_kernels = 2 * 400.0 /*silu: r1 w1*/ + 3 * 400.0 /*mul: r2 w1*/;
  CHECK(1 - s.bytes() / two_kernels == test::approx(0.4));
  const Op gm = ops::gelu_mul("g", 10, 20, DType::bf16);
  CHECK(gm.bytes() == 1200.0);
  CHECK(gm.kernel == KernelId::gelu_mul);
}

TEST_CASE("gelu fused vs unfused: 1 read + 1 write against 10 reads + 8 writes") {
  const Op f = ops::gelu("g", 4, 5, DType::bf16, true);
  const Op u = ops::gelu("g", 4, 5, DType::bf16, false);
  CHECK(f.bytes_read == 20 * 2.0);
  CHECK(f.bytes_written == 20 * 2.0);
  CHECK(u.bytes_read == 10 * 20 * 2.0);
  CHECK(u.bytes_written == 8 * 20 * 2.0);
  CHECK(u.bytes() == 9 * f.bytes());
  CHECK(f.flops == u.flops);  // the same arithmetic, 8 per element
  CHECK(f.flops == 160.0);
  CHECK(f.kernel == KernelId::gelu_fused);
  CHECK(u.kernel == KernelId::gelu_unfused);
}

TEST_CASE("cast reads one dtype and writes another") {
  const Op c = ops::cast("c", 3, 7, DType::bf16, DType::fp32);
  CHECK(c.bytes_read == 21 * 2.0);
  CHECK(c.bytes_written == 21 * 4.0);
  CHECK(c.flops == 0.0);
}

TEST_CASE("rmsnorm and layernorm") {
  // RMSNorm over 4 rows of 8, bf16: reads x (32 x 2) + weight (8 x 2) = 80 B; writes 64 B;
  // 4 FLOPs per element = 128.
  const Op r = ops::rmsnorm("r", 4, 8, DType::bf16, false);
  CHECK(r.kind == OpKind::norm);
  CHECK(r.bytes_read == 80.0);
  CHECK(r.bytes_written == 64.0);
  CHECK(r.flops == 128.0);
  // Residual fused in: reads x and residual, writes both: 2 x 64 + 16 = 144 B read, 128 B written.
  const Op rr = ops::rmsnorm("r", 4, 8, DType::bf16, true);
  CHECK(rr.bytes_read == 144.0);
  CHECK(rr.bytes_written == 128.0);
  CHECK(rr.flops == 160.0);
  // LayerNorm carries a bias: params 2 x 8 x 2 = 32 B.
  const Op l = ops::layernorm("l", 4, 8, DType::bf16, false);
  CHECK(l.bytes_read == 64.0 + 32.0);
  CHECK(l.bytes_written == 64.0);
  CHECK(l.flops == 7 * 32.0);
}

TEST_CASE("softmax naive: 5MN + M reads and 3MN + 2M writes (seed 001 manual_softmax)") {
  const int64_t M = 6, N = 10;
  const Op naive = ops::softmax("s", M, N, DType::fp32, false);
  const double b = bytes_of(DType::fp32);
  CHECK(naive.bytes_read / b == 5.0 * M * N + M);       // 306
  CHECK(naive.bytes_written / b == 3.0 * M * N + 2 * M);  // 192
  CHECK(naive.launches == 5);
  CHECK(naive.kernel == KernelId::softmax_naive);
  const Op fused = ops::softmax("s", M, N, DType::fp32, true);
  CHECK(fused.bytes_read / b == M * N);
  CHECK(fused.bytes_written / b == M * N);
  CHECK(fused.launches == 1);
  // The naive form moves (8MN + 3M) / 2MN ≈ 4x the fused bytes for wide rows.
  const Op wide_n = ops::softmax("s", 1024, 4096, DType::bf16, false);
  const Op wide_f = ops::softmax("s", 1024, 4096, DType::bf16, true);
  CHECK(wide_n.bytes() / wide_f.bytes() == test::approx((8.0 * 4096 + 3) / (2.0 * 4096)));
}

TEST_CASE("rotary, kv_append, embedding") {
  // Rotary on q and k: 3 tokens x (4 + 2) heads x 8 dims = 144 elements, bf16, read and written,
  // plus each token's int64 position and its bf16 cos/sin row: 3 x (8 B + 8 x 2 B) = 72 B.
  const Op r = ops::rotary("r", 3, 4, 2, 8, DType::bf16);
  CHECK(r.bytes_read == 144 * 2.0 + 72.0);
  CHECK(r.bytes_written == 144 * 2.0);
  CHECK(r.flops == 3 * 144.0);
  // KV append: 3 tokens x 2 (K, V) x 2 kv heads x 8 = 96 elements: read bf16 + 3 x 8 B of slot
  // indices; written in the KV dtype (fp8: 1 B).
  const Op kv = ops::kv_append("kv", 3, 2, 8, DType::bf16, DType::fp8);
  CHECK(kv.kind == OpKind::kv_cache);
  CHECK(kv.bytes_read == 96 * 2.0 + 24.0);
  CHECK(kv.bytes_written == 96.0);
  // Embedding gather: 5 token ids (int64) + 5 rows of 16 from the table, written once.
  const Op e = ops::embedding("e", 5, 16, DType::bf16, DType::bf16);
  CHECK(e.kind == OpKind::embedding);
  CHECK(e.bytes_read == 40.0 + 80 * 2.0);
  CHECK(e.bytes_written == 80 * 2.0);
  CHECK(e.flops == 0.0);
  CHECK(e.intensity() == 0.0);  // seed 004: embedding 0
}

TEST_CASE("decode attention: 4bhLd FLOPs; the cache is read once per KV head (GQA)") {
  // b = 2, 8 query heads, 2 KV heads, L = 100, d = 16, bf16.
  const Op a = ops::attention_decode("a", 2, 8, 2, 100, 16, DType::bf16, DType::bf16);
  CHECK(a.kind == OpKind::attention);
  CHECK(a.flops == 4.0 * 2 * 8 * 100 * 16);  // 102,400
  CHECK(a.model_flops == a.flops);
  // K and V: 2 x b x kv_heads x L x d x 2 B = 25,600 B; q: b x h x d x 2 = 512 B.
  CHECK(a.bytes_read == 2.0 * 2 * 2 * 100 * 16 * 2 + 2.0 * 8 * 16 * 2);
  CHECK(a.bytes_written == 2.0 * 8 * 16 * 2);
  // MHA reads 4x the cache of this 4-way GQA.
  const Op mha = ops::attention_decode("a", 2, 8, 8, 100, 16, DType::bf16, DType::bf16);
  CHECK(mha.bytes_read - 512.0 == 4 * (a.bytes_read - 512.0));
  // Seed 004: decode attention's AI is about 1 (FLOPs 4bhLd over 4 b kv L d bytes, MHA).
  CHECK(mha.intensity() == test::approx(1.0).epsilon(0.01));
}

TEST_CASE("prefill attention: causal pairs and FLOPs") {
  // Causal, q = kv = 4: pairs 1 + 2 + 3 + 4 = 10.
  CHECK(ops::attention_pairs(4, 4, true) == 10.0);
  CHECK(ops::attention_pairs(4, 4, false) == 16.0);
  // q = 2 new tokens over kv = 5: 4 + 5 = 9 pairs.
  CHECK(ops::attention_pairs(2, 5, true) == 9.0);
  // FLOPs = 4 b h d pairs: b = 1, h = 2, d = 8, s = 4 causal: 4·1·2·8·10 = 640.
  const Op p = ops::attention_prefill("p", 1, 2, 1, 4, 4, 8, true, DType::bf16, DType::bf16);
  CHECK(p.flops == 640.0);
  // Q read and O written once (4 x 2 x 8 x 2 B = 128 B each); K and V: 2 x 4 x 1 x 8 x 2 = 128 B.
  CHECK(p.bytes_read == 128.0 + 128.0);
  CHECK(p.bytes_written == 128.0);
  CHECK(p.kernel == KernelId::attention_prefill_fused);
}

TEST_CASE("products of user-given sizes are checked for overflow") {
  const int64_t big = int64_t{1} << 40;
  CHECK_THROWS_AS(ops::add("a", big, big, DType::bf16), InputError);
  CHECK_THROWS_AS(ops::gemm("g", big, big, 2, DType::bf16, DType::bf16, Precision::bf16), InputError);
  CHECK_THROWS_AS(ops::attention_decode("a", big, 64, 8, big, 128, DType::bf16, DType::bf16), InputError);
  CHECK_THROWS_AS(ops::rmsnorm("r", -1, 8, DType::bf16, false), InputError);
  CHECK(checked_mul({3, 5, 7}, "x") == 105);
  CHECK(checked_mul({std::numeric_limits<int64_t>::max(), 1}, "x") == std::numeric_limits<int64_t>::max());
  try {
    checked_mul({big, big}, "tokens x vocab");
    FAIL("expected overflow");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("tokens x vocab") != std::string::npos);
  }
}

TEST_CASE("dtypes: bytes, names and the peak a matmul uses") {
  CHECK(bytes_of(DType::fp64) == 8);
  CHECK(bytes_of(DType::fp32) == 4);
  CHECK(bytes_of(DType::tf32) == 4);
  CHECK(bytes_of(DType::bf16) == 2);
  CHECK(bytes_of(DType::fp16) == 2);
  CHECK(bytes_of(DType::fp8) == 1);
  CHECK(bytes_of(DType::int8) == 1);
  CHECK(dtype_from_string("bfloat16") == DType::bf16);
  CHECK(dtype_from_string("fp16") == DType::fp16);
  CHECK_FALSE(dtype_from_string("fp7").has_value());
  CHECK(precision_from_string("fp16_acc16") == Precision::fp16_acc16);
  // Seed 004 错误三: fp32 matmuls run on CUDA cores unless TF32 is allowed.
  CHECK(matmul_precision(DType::fp32, false) == Precision::fp32);
  CHECK(matmul_precision(DType::fp32, true) == Precision::tf32);
  CHECK(matmul_precision(DType::bf16, false) == Precision::bf16);
  CHECK(vector_precision(DType::bf16) == Precision::fp32);
  CHECK_FALSE(is_tensor(Precision::fp32));
  CHECK(is_tensor(Precision::fp64_tensor));
}
