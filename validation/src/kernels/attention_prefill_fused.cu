// attention_prefill_fused: tiled flash attention (mma.sync, online softmax), causal or not.
#include "attention.cuh"

namespace perfmodel::validation::detail {
namespace {

template <typename T, int D>
__global__ void __launch_bounds__(128) flash_fwd_kernel(const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ Vg,
                                                        T* __restrict__ O, int heads, int kv_heads, int64_t sq, int64_t sk, int causal,
                                                        float scale_log2) {
  using C = FlashCfg<D>;
  constexpr int BM = C::BM, BN = C::BN, LDK = C::LDK, VPR = D / 8, NT = BN / 8, DT = D / 8;
  extern __shared__ __align__(128) unsigned char smem[];
  T* Ks = reinterpret_cast<T*>(smem);  // [2][BN][LDK]
  T* Vs = Ks + 2 * BN * LDK;           // [2][BN][LDK]
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int64_t q0 = static_cast<int64_t>(blockIdx.x) * BM;
  const int h = blockIdx.y, b = blockIdx.z;
  const int G = heads / kv_heads, kvh = h / G;
  const T* Qb = Q + (static_cast<int64_t>(b) * heads + h) * sq * D;
  const T* Kb = K + (static_cast<int64_t>(b) * kv_heads + kvh) * sk * D;
  const T* Vb = Vg + (static_cast<int64_t>(b) * kv_heads + kvh) * sk * D;
  T* Ob = O + (static_cast<int64_t>(b) * heads + h) * sq * D;
  const int64_t offset = sk - sq;
  const int64_t row0 = q0 + warp * 16 + g, row1 = row0 + 8;
  const int64_t qpos0 = row0 + offset, qpos1 = row1 + offset;
  int64_t kend = sk;
  if (causal) kend = min(sk, q0 + BM + offset);
  const int ntiles = static_cast<int>((kend + BN - 1) / BN);

  auto load_tile = [&](int it, int stage) {
    const int64_t kt = static_cast<int64_t>(it) * BN;
    T* ks = Ks + stage * BN * LDK;
    T* vs = Vs + stage * BN * LDK;
    for (int i = threadIdx.x; i < BN * VPR; i += blockDim.x) {
      const int rr = i / VPR, cv = i % VPR;
      const bool valid = kt + rr < sk;
      const int64_t src = valid ? (kt + rr) * D + cv * 8 : 0;
      cp_async16(ks + rr * LDK + cv * 8, Kb + src, valid);
      cp_async16(vs + rr * LDK + cv * 8, Vb + src, valid);
    }
    asm volatile("cp.async.commit_group;\n" ::);
  };
  if (ntiles > 0) load_tile(0, 0);

  // Q fragments (A operand, row-major 16 x D per warp) straight from global memory
  uint32_t qa[D / 16][4];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int c0 = kk * 16 + 2 * t;
    qa[kk][0] = row0 < sq ? *reinterpret_cast<const uint32_t*>(Qb + row0 * D + c0) : 0u;
    qa[kk][1] = row1 < sq ? *reinterpret_cast<const uint32_t*>(Qb + row1 * D + c0) : 0u;
    qa[kk][2] = row0 < sq ? *reinterpret_cast<const uint32_t*>(Qb + row0 * D + c0 + 8) : 0u;
    qa[kk][3] = row1 < sq ? *reinterpret_cast<const uint32_t*>(Qb + row1 * D + c0 + 8) : 0u;
  }
  float o[DT][4];
#pragma unroll
  for (int n = 0; n < DT; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
  float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f;

  for (int it = 0; it < ntiles; ++it) {
    const int stage = it & 1;
    if (it + 1 < ntiles) {
      load_tile(it + 1, stage ^ 1);
      asm volatile("cp.async.wait_group 1;\n" ::);
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::);
    }
    __syncthreads();
    const T* ks = Ks + stage * BN * LDK;
    const T* vs = Vs + stage * BN * LDK;
    const int64_t kt = static_cast<int64_t>(it) * BN;
    float s[NT][4];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;
      const T* kr = ks + (nt * 8 + g) * LDK + 2 * t;
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        const uint32_t b0 = *reinterpret_cast<const uint32_t*>(kr + kk * 16);
        const uint32_t b1 = *reinterpret_cast<const uint32_t*>(kr + kk * 16 + 8);
        mma16816<T>(s[nt], qa[kk], b0, b1);
      }
    }
    // scale, mask, online softmax (rows g and g+8 of this warp; 4 lanes share a row)
    float mx0 = -INFINITY, mx1 = -INFINITY;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int64_t key = kt + nt * 8 + 2 * t + e;
        float v0 = s[nt][e] * scale_log2, v1 = s[nt][2 + e] * scale_log2;
        if (key >= sk || (causal && key > qpos0)) v0 = -INFINITY;
        if (key >= sk || (causal && key > qpos1)) v1 = -INFINITY;
        s[nt][e] = v0;
        s[nt][2 + e] = v1;
        mx0 = fmaxf(mx0, v0);
        mx1 = fmaxf(mx1, v1);
      }
#pragma unroll
    for (int off = 1; off <= 2; off <<= 1) {
      mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, off));
      mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, off));
    }
    const float mn0 = fmaxf(m0, mx0), mn1 = fmaxf(m1, mx1);
    const float c0 = mn0 == -INFINITY ? 1.f : exp2f(m0 - mn0);
    const float c1 = mn1 == -INFINITY ? 1.f : exp2f(m1 - mn1);
    float sum0 = 0.f, sum1 = 0.f;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float p0 = mn0 == -INFINITY ? 0.f : exp2f(s[nt][e] - mn0);
        const float p1 = mn1 == -INFINITY ? 0.f : exp2f(s[nt][2 + e] - mn1);
        s[nt][e] = p0;
        s[nt][2 + e] = p1;
        sum0 += p0;
        sum1 += p1;
      }
    l0 = l0 * c0 + sum0;  // per-lane partial row sums; reduced across the 4 lanes at the end
    l1 = l1 * c1 + sum1;
    m0 = mn0;
    m1 = mn1;
#pragma unroll
    for (int n = 0; n < DT; ++n) {
      o[n][0] *= c0; o[n][1] *= c0;
      o[n][2] *= c1; o[n][3] *= c1;
    }
    // O += P V: P (16 x 64) from the S accumulators, V via ldmatrix.trans
#pragma unroll
    for (int j = 0; j < BN / 16; ++j) {
      uint32_t pa[4];
      pa[0] = pack2<T>(s[2 * j][0], s[2 * j][1]);
      pa[1] = pack2<T>(s[2 * j][2], s[2 * j][3]);
      pa[2] = pack2<T>(s[2 * j + 1][0], s[2 * j + 1][1]);
      pa[3] = pack2<T>(s[2 * j + 1][2], s[2 * j + 1][3]);
#pragma unroll
      for (int np = 0; np < D / 16; ++np) {
        uint32_t r0, r1, r2, r3;
        ldmatrix_x4_trans(r0, r1, r2, r3, vs + (j * 16 + (lane & 15)) * LDK + np * 16 + (lane >> 4) * 8);
        mma16816<T>(o[2 * np], pa, r0, r1);
        mma16816<T>(o[2 * np + 1], pa, r2, r3);
      }
    }
    __syncthreads();  // this stage is refilled by the next iteration's prefetch
  }
#pragma unroll
  for (int off = 1; off <= 2; off <<= 1) {
    l0 += __shfl_xor_sync(0xffffffffu, l0, off);
    l1 += __shfl_xor_sync(0xffffffffu, l1, off);
  }
  const float i0 = l0 > 0.f ? 1.f / l0 : 0.f, i1 = l1 > 0.f ? 1.f / l1 : 0.f;
#pragma unroll
  for (int n = 0; n < DT; ++n) {
    const int col = n * 8 + 2 * t;
    if (row0 < sq) *reinterpret_cast<uint32_t*>(Ob + row0 * D + col) = pack2<T>(o[n][0] * i0, o[n][1] * i0);
    if (row1 < sq) *reinterpret_cast<uint32_t*>(Ob + row1 * D + col) = pack2<T>(o[n][2] * i1, o[n][3] * i1);
  }
}

class PrefillFusedWorkload : public AttnWorkload {
 public:
  explicit PrefillFusedWorkload(const Case& c) : AttnWorkload(c) {
    bufs = {{"q", et_, q_elems(), Role::input}, {"k", et_, kv_elems(), Role::input}, {"v", et_, kv_elems(), Role::input},
            {"out", et_, q_elems(), Role::output}};
    dispatch_attn_types(c.dtype, [&](auto tag) {
      using T = decltype(tag);
      if (c.head_dim == 128)
        PV_CUDA(cudaFuncSetAttribute(flash_fwd_kernel<T, 128>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(FlashCfg<128>::smem)));
      else
        PV_CUDA(cudaFuncSetAttribute(flash_fwd_kernel<T, 64>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(FlashCfg<64>::smem)));
    });
  }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_attn_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const dim3 grid(static_cast<unsigned>(ceil_div(sq_, 64)), static_cast<unsigned>(c_.heads), static_cast<unsigned>(c_.batch));
      const float sl = kLog2e / std::sqrt(static_cast<float>(c_.head_dim));
      auto go = [&](auto kern, size_t smem) {
        kern<<<grid, 128, smem, s>>>(static_cast<const T*>(p[0]), static_cast<const T*>(p[1]), static_cast<const T*>(p[2]),
                                     static_cast<T*>(p[3]), static_cast<int>(c_.heads), static_cast<int>(c_.kv_heads), sq_, c_.kv_len,
                                     causal_ ? 1 : 0, sl);
      };
      if (c_.head_dim == 128) go(flash_fwd_kernel<T, 128>, FlashCfg<128>::smem);
      else go(flash_fwd_kernel<T, 64>, FlashCfg<64>::smem);
      PV_LAUNCH();
    });
  }
};

}  // namespace

std::unique_ptr<Workload> make_attention_prefill_fused(const Case& c) { return std::make_unique<PrefillFusedWorkload>(c); }

}  // namespace perfmodel::validation::detail
