// Shared pieces of the attention kernels (validation/src/kernels/attention_*.cu): mma.sync and
// cp.async helpers, the flash tile configuration, and the workload base with its reference check.
// Layouts: q/o [batch, heads, q_len, d]; K/V [batch, kv_heads, kv_len, d]; query i sits at key position kv_len-q_len+i.
#pragma once
#include <type_traits>

#include <algorithm>
#include <map>

#include "../common.cuh"

namespace perfmodel::validation::detail {

template <typename T>
void launch_softmax_rows(const T* x, T* y, int64_t rows, int64_t cols, float scale, int64_t mask_q_len, int64_t mask_offset, cudaStream_t s);

namespace {

constexpr float kLog2e = 1.4426950408889634f;

// ------------------------------------------------------------------ fused prefill (flash-attention-2 style, mma.sync)
// Block: 4 warps x 16 query rows = 64 rows of one (batch, head); K/V tiles of 64 keys double-buffered in shared
// memory through cp.async; S = Q K^T and O += P V with mma.sync m16n8k16 (fp32 accumulate), online softmax in registers.
template <int D> struct FlashCfg {
  static constexpr int BM = 64, BN = 64, LDK = D + 8;
  static constexpr size_t smem = 2 * 2 * BN * LDK * 2;  // 2 stages x (K, V) x BN x LDK x 2 bytes
};

template <typename T>
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}
template <typename T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  uint32_t r;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    memcpy(&r, &v, 4);
  } else {
    __half2 v = __floats2half2_rn(lo, hi);
    memcpy(&r, &v, 4);
  }
  return r;
}
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool valid) {
  const uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const int n = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(n));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3, const void* smem) {
  const uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(s));
}

template <typename F>
void dispatch_attn_types(DType d, F&& f) {
  switch (d) {
    case DType::bf16: f(__nv_bfloat16{}); return;
    case DType::fp16: f(__half{}); return;
    default: throw std::runtime_error("attention supports bf16 and fp16 only, not " + std::string(to_string(d)));
  }
}

// ------------------------------------------------------------------ workloads
class AttnWorkload : public Workload {
 public:
  explicit AttnWorkload(const Case& c) : Workload(c) {
    if (c.dtype != DType::bf16 && c.dtype != DType::fp16) throw std::runtime_error("attention supports bf16 and fp16 only");
    et_ = et_of(c.dtype);
    if (c.batch <= 0 || c.heads <= 0 || c.kv_heads <= 0 || c.head_dim <= 0 || c.kv_len <= 0)
      throw std::runtime_error("attention needs batch, heads, kv_heads, head_dim, kv_len > 0");
    if (c.heads % c.kv_heads != 0) throw std::runtime_error("heads must be a multiple of kv_heads");
    if (c.head_dim != 64 && c.head_dim != 128) throw std::runtime_error("head_dim must be 64 or 128");
    sq_ = c.kernel == KernelId::attention_decode ? 1 : (c.q_len > 0 ? c.q_len : c.kv_len);
    if (c.kernel == KernelId::attention_decode && c.q_len > 1) throw std::runtime_error("attention_decode needs q_len = 1");
    if (sq_ > c.kv_len) throw std::runtime_error("q_len > kv_len");
    G_ = static_cast<int>(c.heads / c.kv_heads);
    causal_ = c.kernel != KernelId::attention_decode && c.causal;
  }
  double valid_pairs() const {
    const double sk = static_cast<double>(c_.kv_len), sq = static_cast<double>(sq_);
    if (!causal_) return sq * sk;
    // query i sees keys 0 .. (sk - sq + i)
    return sq * (sk - sq) + sq * (sq + 1) / 2;
  }
  double flops() const override { return 4.0 * c_.batch * c_.heads * c_.head_dim * valid_pairs(); }
  double qkvo_bytes() const {
    const double e = et_size(et_);
    return e * c_.batch * c_.head_dim * (2.0 * c_.heads * sq_ + 2.0 * c_.kv_heads * c_.kv_len);
  }
  double bytes() const override { return qkvo_bytes(); }
  double touched_bytes() const override { return bytes(); }
  size_t q_elems() const { return static_cast<size_t>(c_.batch * c_.heads * sq_ * c_.head_dim); }
  size_t kv_elems() const { return static_cast<size_t>(c_.batch * c_.kv_heads * c_.kv_len * c_.head_dim); }

  CheckOut check(void* const* p) override {
    const int64_t B = c_.batch, H = c_.heads, D = c_.head_dim, SK = c_.kv_len, SQ = sq_;
    const int64_t rows = B * H * SQ;
    std::vector<int64_t> sel;
    if (static_cast<double>(rows) * SK * D <= 3e7) {
      for (int64_t i = 0; i < rows; ++i) sel.push_back(i);
    } else {
      sel = sample_indices(rows, 24, check_seed());
      sel.push_back(rows - 1);
    }
    std::map<int64_t, std::pair<std::vector<double>, std::vector<double>>> kv;  // (b*kvh+kvh) -> K, V
    Comparer cmp;
    const double scale = 1.0 / std::sqrt(static_cast<double>(D));
    for (int64_t row : sel) {
      const int64_t i = row % SQ, bh = row / SQ, h = bh % H, b = bh / H;
      const int64_t key = b * c_.kv_heads + h / G_;
      if (!kv.count(key)) kv[key] = {download(p[1], et_, key * SK * D, SK * D), download(p[2], et_, key * SK * D, SK * D)};
      const auto& [K, Vv] = kv[key];
      auto q = download(p[0], et_, row * D, D);
      auto o = download(p[3], et_, row * D, D);
      const int64_t last = causal_ ? SK - SQ + i : SK - 1;
      std::vector<double> s(last + 1);
      double mx = -1e300;
      for (int64_t t = 0; t <= last; ++t) {
        double a = 0;
        for (int64_t e = 0; e < D; ++e) a += q[e] * K[t * D + e];
        s[t] = a * scale;
        mx = std::max(mx, s[t]);
      }
      double sum = 0;
      for (auto& v : s) { v = std::exp(v - mx); sum += v; }
      for (int64_t e = 0; e < D; ++e) {
        double a = 0;
        for (int64_t t = 0; t <= last; ++t) a += s[t] * Vv[t * D + e];
        cmp.add(row * D + e, o[e], a / sum);
      }
    }
    const int64_t nan = count_nan(p[3], et_, q_elems(), ctx().stream);
    if (nan > 0) return {false, 0, std::to_string(nan) + " output elements unwritten (NaN poison left)"};
    return cmp.finish(tolerance(c_.dtype), "out");
  }

 protected:
  ET et_ = ET::bf16;
  int64_t sq_ = 1;
  int G_ = 1;
  bool causal_ = false;
};

}  // namespace
}  // namespace perfmodel::validation::detail
