// attention_decode: flash-decoding (split-K over the cache + a combine kernel), GQA; groups of >= 4 heads on tensor cores.
#include "attention.cuh"

namespace perfmodel::validation::detail {
namespace {

// ------------------------------------------------------------------ decode
template <typename T, int D, int G>
__global__ void __launch_bounds__(128) decode_kernel(const T* __restrict__ q, const T* __restrict__ kc, const T* __restrict__ vc,
                                                     T* __restrict__ out, float* __restrict__ part_o, float* __restrict__ part_ml,
                                                     int heads, int kv_heads, int64_t kv_len, int64_t chunk, int splits, float qscale) {
  constexpr int V = 8, LPK = D / V, KPW = 32 / LPK, NW = 4, U = 4, NP = NW * KPW;
  __shared__ float sm_m[NP][G], sm_l[NP][G];
  __shared__ float sm_acc[NP][G][D];
  const int split = blockIdx.x, kvh = blockIdx.y, b = blockIdx.z;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, sub = lane / LPK, dl = lane % LPK;
  float qf[G][V], m[G], l[G], acc[G][V];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    load_vec(q + (static_cast<int64_t>(b) * heads + kvh * G + g) * D + dl * V, qf[g]);
#pragma unroll
    for (int e = 0; e < V; ++e) { qf[g][e] *= qscale; acc[g][e] = 0.f; }
    m[g] = -INFINITY;
    l[g] = 0.f;
  }
  const int64_t start = split * chunk, end = min(kv_len, start + chunk);
  const size_t base = (static_cast<size_t>(b) * kv_heads + kvh) * kv_len * D;
  const T* kb = kc + base;
  const T* vb = vc + base;
  for (int64_t t0 = start + static_cast<int64_t>(warp) * U * KPW; t0 < end; t0 += static_cast<int64_t>(NW) * U * KPW) {
    uint4 kr[U], vr[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t t = t0 + u * KPW + sub;
      if (t < end) {
        kr[u] = *reinterpret_cast<const uint4*>(kb + t * D + dl * V);
        vr[u] = *reinterpret_cast<const uint4*>(vb + t * D + dl * V);
      } else {
        kr[u] = make_uint4(0, 0, 0, 0);
        vr[u] = kr[u];
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const bool valid = t0 + u * KPW + sub < end;
      const T* ke = reinterpret_cast<const T*>(&kr[u]);
      const T* ve = reinterpret_cast<const T*>(&vr[u]);
      float kf[V], vf[V];
#pragma unroll
      for (int e = 0; e < V; ++e) { kf[e] = to_f(ke[e]); vf[e] = to_f(ve[e]); }
#pragma unroll
      for (int g = 0; g < G; ++g) {
        float s = 0.f;
#pragma unroll
        for (int e = 0; e < V; ++e) s += qf[g][e] * kf[e];
#pragma unroll
        for (int o = LPK / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if (valid) {
          const float mn = fmaxf(m[g], s);
          const float corr = exp2f(m[g] - mn), p = exp2f(s - mn);
          l[g] = l[g] * corr + p;
#pragma unroll
          for (int e = 0; e < V; ++e) acc[g][e] = acc[g][e] * corr + p * vf[e];
          m[g] = mn;
        }
      }
    }
  }
  const int pi = warp * KPW + sub;
#pragma unroll
  for (int g = 0; g < G; ++g) {
    if (dl == 0) { sm_m[pi][g] = m[g]; sm_l[pi][g] = l[g]; }
#pragma unroll
    for (int e = 0; e < V; ++e) sm_acc[pi][g][dl * V + e] = acc[g][e];
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < G * D; idx += blockDim.x) {
    const int g = idx / D, dim = idx % D;
    float M = -INFINITY;
    for (int p = 0; p < NP; ++p) M = fmaxf(M, sm_m[p][g]);
    float L = 0.f, O = 0.f;
    if (M != -INFINITY)
      for (int p = 0; p < NP; ++p) {
        if (sm_m[p][g] == -INFINITY) continue;
        const float w = exp2f(sm_m[p][g] - M);
        L += sm_l[p][g] * w;
        O += sm_acc[p][g][dim] * w;
      }
    const int64_t bh = static_cast<int64_t>(b) * heads + kvh * G + g;
    if (splits == 1) {
      out[bh * D + dim] = from_f<T>(O / L);
    } else {
      part_o[(bh * splits + split) * D + dim] = O;
      if (dim == 0) { part_ml[(bh * splits + split) * 2] = M; part_ml[(bh * splits + split) * 2 + 1] = L; }
    }
  }
}

// merge of the splits: block per (batch, head), D threads; weights 2^(m_s - M) staged in shared memory
template <typename T>
__global__ void decode_combine_kernel(const float* __restrict__ part_o, const float* __restrict__ part_ml, T* __restrict__ out,
                                      int splits, int D) {
  extern __shared__ float wsh[];  // [splits]
  __shared__ float red[32];
  const int64_t bh = blockIdx.x;
  const float* ml = part_ml + bh * splits * 2;
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  float M = -INFINITY;
  for (int s = threadIdx.x; s < splits; s += blockDim.x) M = fmaxf(M, ml[2 * s]);
  for (int o = 16; o > 0; o >>= 1) M = fmaxf(M, __shfl_xor_sync(0xffffffffu, M, o));
  if (lane == 0) red[wid] = M;
  __syncthreads();
  M = -INFINITY;
  for (int i = 0; i < nw; ++i) M = fmaxf(M, red[i]);
  __syncthreads();
  float L = 0.f;
  for (int s = threadIdx.x; s < splits; s += blockDim.x) {
    const float m = ml[2 * s];
    const float wt = m == -INFINITY ? 0.f : exp2f(m - M);
    wsh[s] = wt;
    L += ml[2 * s + 1] * wt;
  }
  for (int o = 16; o > 0; o >>= 1) L += __shfl_xor_sync(0xffffffffu, L, o);
  if (lane == 0) red[wid] = L;
  __syncthreads();
  L = 0.f;
  for (int i = 0; i < nw; ++i) L += red[i];
  const float inv = 1.f / L;
  const float* po = part_o + bh * splits * D;
  for (int dim = threadIdx.x; dim < D; dim += blockDim.x) {
    float O = 0.f;
#pragma unroll 8
    for (int s = 0; s < splits; ++s) O += wsh[s] * po[static_cast<int64_t>(s) * D + dim];
    out[bh * D + dim] = from_f<T>(O * inv);
  }
}

// ------------------------------------------------------------------ decode with tensor cores (GQA groups of >= 4 heads)
// Block (split, kv head, batch), 4 warps. The G query heads of the group are the rows of a 16-row MMA tile (rows >= G
// are zero). K/V tiles of 64 keys are double-buffered in shared memory (cp.async); warp w takes keys 16w..16w+15 of each
// tile with its own online softmax; the 4 warps are merged at the end (and the splits by decode_combine_kernel).
template <typename T, int D>
__global__ void __launch_bounds__(128) decode_mma_kernel(const T* __restrict__ q, const T* __restrict__ kc, const T* __restrict__ vc,
                                                         T* __restrict__ out, float* __restrict__ part_o, float* __restrict__ part_ml,
                                                         int heads, int kv_heads, int64_t kv_len, int64_t chunk, int splits,
                                                         float scale_log2) {
  using C = FlashCfg<D>;
  constexpr int BN = C::BN, LDK = C::LDK, VPR = D / 8, DT = D / 8;
  extern __shared__ __align__(128) unsigned char smem[];
  T* Ks = reinterpret_cast<T*>(smem);
  T* Vs = Ks + 2 * BN * LDK;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int split = blockIdx.x, kvh = blockIdx.y, b = blockIdx.z;
  const int G = heads / kv_heads;
  const int64_t start = split * chunk, end = min(kv_len, start + chunk);
  const size_t base = (static_cast<size_t>(b) * kv_heads + kvh) * kv_len * D;
  const T* kb = kc + base;
  const T* vb = vc + base;
  const int ntiles = end > start ? static_cast<int>((end - start + BN - 1) / BN) : 0;
  auto load_tile = [&](int it, int stage) {
    const int64_t kt = start + static_cast<int64_t>(it) * BN;
    T* ks = Ks + stage * BN * LDK;
    T* vs = Vs + stage * BN * LDK;
    for (int i = threadIdx.x; i < BN * VPR; i += blockDim.x) {
      const int rr = i / VPR, cv = i % VPR;
      const bool valid = kt + rr < end;
      const int64_t src = valid ? (kt + rr) * D + cv * 8 : 0;
      cp_async16(ks + rr * LDK + cv * 8, kb + src, valid);
      cp_async16(vs + rr * LDK + cv * 8, vb + src, valid);
    }
    asm volatile("cp.async.commit_group;\n" ::);
  };
  if (ntiles > 0) load_tile(0, 0);
  const T* qg = q + (static_cast<int64_t>(b) * heads + static_cast<int64_t>(kvh) * G) * D;
  uint32_t qa[D / 16][4];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int c0 = kk * 16 + 2 * t;
    qa[kk][0] = g < G ? *reinterpret_cast<const uint32_t*>(qg + g * D + c0) : 0u;
    qa[kk][1] = g + 8 < G ? *reinterpret_cast<const uint32_t*>(qg + (g + 8) * D + c0) : 0u;
    qa[kk][2] = g < G ? *reinterpret_cast<const uint32_t*>(qg + g * D + c0 + 8) : 0u;
    qa[kk][3] = g + 8 < G ? *reinterpret_cast<const uint32_t*>(qg + (g + 8) * D + c0 + 8) : 0u;
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
    const T* ks = Ks + stage * BN * LDK + warp * 16 * LDK;
    const T* vs = Vs + stage * BN * LDK + warp * 16 * LDK;
    const int64_t kt = start + static_cast<int64_t>(it) * BN + warp * 16;
    float s[2][4];
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
      s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;
      const T* kr = ks + (nt * 8 + g) * LDK + 2 * t;
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk)
        mma16816<T>(s[nt], qa[kk], *reinterpret_cast<const uint32_t*>(kr + kk * 16), *reinterpret_cast<const uint32_t*>(kr + kk * 16 + 8));
    }
    float mx0 = -INFINITY, mx1 = -INFINITY;
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const bool valid = kt + nt * 8 + 2 * t + e < end;
        s[nt][e] = valid ? s[nt][e] * scale_log2 : -INFINITY;
        s[nt][2 + e] = valid ? s[nt][2 + e] * scale_log2 : -INFINITY;
        mx0 = fmaxf(mx0, s[nt][e]);
        mx1 = fmaxf(mx1, s[nt][2 + e]);
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
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        s[nt][e] = mn0 == -INFINITY ? 0.f : exp2f(s[nt][e] - mn0);
        s[nt][2 + e] = mn1 == -INFINITY ? 0.f : exp2f(s[nt][2 + e] - mn1);
        sum0 += s[nt][e];
        sum1 += s[nt][2 + e];
      }
    l0 = l0 * c0 + sum0;
    l1 = l1 * c1 + sum1;
    m0 = mn0;
    m1 = mn1;
    uint32_t pa[4] = {pack2<T>(s[0][0], s[0][1]), pack2<T>(s[0][2], s[0][3]), pack2<T>(s[1][0], s[1][1]), pack2<T>(s[1][2], s[1][3])};
#pragma unroll
    for (int np = 0; np < D / 16; ++np) {
      o[2 * np][0] *= c0; o[2 * np][1] *= c0; o[2 * np][2] *= c1; o[2 * np][3] *= c1;
      o[2 * np + 1][0] *= c0; o[2 * np + 1][1] *= c0; o[2 * np + 1][2] *= c1; o[2 * np + 1][3] *= c1;
      uint32_t r0, r1, r2, r3;
      ldmatrix_x4_trans(r0, r1, r2, r3, vs + (lane & 15) * LDK + np * 16 + (lane >> 4) * 8);
      mma16816<T>(o[2 * np], pa, r0, r1);
      mma16816<T>(o[2 * np + 1], pa, r2, r3);
    }
    __syncthreads();
  }
#pragma unroll
  for (int off = 1; off <= 2; off <<= 1) {
    l0 += __shfl_xor_sync(0xffffffffu, l0, off);
    l1 += __shfl_xor_sync(0xffffffffu, l1, off);
  }
  // merge the 4 warps through shared memory (the tile buffers are free now)
  float* sm_m = reinterpret_cast<float*>(smem);  // [4][16]
  float* sm_l = sm_m + 4 * 16;                   // [4][16]
  float* sm_o = sm_l + 4 * 16;                   // [4][16][D]
  __syncthreads();
  if (t == 0) {
    sm_m[warp * 16 + g] = m0; sm_m[warp * 16 + g + 8] = m1;
    sm_l[warp * 16 + g] = l0; sm_l[warp * 16 + g + 8] = l1;
  }
#pragma unroll
  for (int n = 0; n < DT; ++n) {
    const int col = n * 8 + 2 * t;
    sm_o[(warp * 16 + g) * D + col] = o[n][0];
    sm_o[(warp * 16 + g) * D + col + 1] = o[n][1];
    sm_o[(warp * 16 + g + 8) * D + col] = o[n][2];
    sm_o[(warp * 16 + g + 8) * D + col + 1] = o[n][3];
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < G * D; idx += blockDim.x) {
    const int r = idx / D, dim = idx % D;
    float M = -INFINITY;
#pragma unroll
    for (int w = 0; w < 4; ++w) M = fmaxf(M, sm_m[w * 16 + r]);
    float L = 0.f, O = 0.f;
    if (M != -INFINITY)
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        const float mw = sm_m[w * 16 + r];
        if (mw == -INFINITY) continue;
        const float wt = exp2f(mw - M);
        L += sm_l[w * 16 + r] * wt;
        O += sm_o[(w * 16 + r) * D + dim] * wt;
      }
    const int64_t bh = static_cast<int64_t>(b) * heads + static_cast<int64_t>(kvh) * G + r;
    if (splits == 1) {
      out[bh * D + dim] = from_f<T>(O / L);
    } else {
      part_o[(bh * splits + split) * D + dim] = O;
      if (dim == 0) { part_ml[(bh * splits + split) * 2] = M; part_ml[(bh * splits + split) * 2 + 1] = L; }
    }
  }
}

class DecodeWorkload : public AttnWorkload {
 public:
  explicit DecodeWorkload(const Case& c) : AttnWorkload(c) {
    if (G_ > 16) throw std::runtime_error("attention_decode supports heads/kv_heads <= 16");
    use_mma_ = G_ >= 4;
    if (!use_mma_ && G_ != 1 && G_ != 2) throw std::runtime_error("attention_decode supports heads/kv_heads in {1,2} or 4..16");
    const int64_t base = c.batch * c.kv_heads;
    const int64_t sm = ctx().sm_count > 0 ? ctx().sm_count : 132;
    const int64_t min_chunk = use_mma_ ? 128 : 64;
    splits_ = std::max<int64_t>(1, std::min(ceil_div(3 * sm, base), ceil_div(c.kv_len, min_chunk)));
    chunk_ = ceil_div(ceil_div(c.kv_len, splits_), use_mma_ ? 64 : 32) * (use_mma_ ? 64 : 32);
    splits_ = ceil_div(c.kv_len, chunk_);
    if (use_mma_)
      dispatch_attn_types(c.dtype, [&](auto tag) {
        using T = decltype(tag);
        if (c.head_dim == 128)
          PV_CUDA(cudaFuncSetAttribute(decode_mma_kernel<T, 128>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(FlashCfg<128>::smem)));
        else
          PV_CUDA(cudaFuncSetAttribute(decode_mma_kernel<T, 64>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(FlashCfg<64>::smem)));
      });
    bufs = {{"q", et_, q_elems(), Role::input}, {"k_cache", et_, kv_elems(), Role::input}, {"v_cache", et_, kv_elems(), Role::input},
            {"out", et_, q_elems(), Role::output},
            {"part_o", ET::f32, static_cast<size_t>(c.batch * c.heads * splits_ * c.head_dim), Role::scratch, false},
            {"part_ml", ET::f32, static_cast<size_t>(c.batch * c.heads * splits_ * 2), Role::scratch, false}};
  }
  int kernels() const override { return splits_ > 1 ? 2 : 1; }
  bool use_mma_ = false;
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_attn_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const dim3 grid(static_cast<unsigned>(splits_), static_cast<unsigned>(c_.kv_heads), static_cast<unsigned>(c_.batch));
      const float qs = kLog2e / std::sqrt(static_cast<float>(c_.head_dim));
      auto go = [&](auto kern) {
        kern<<<grid, 128, 0, s>>>(static_cast<const T*>(p[0]), static_cast<const T*>(p[1]), static_cast<const T*>(p[2]),
                                  static_cast<T*>(p[3]), static_cast<float*>(p[4]), static_cast<float*>(p[5]),
                                  static_cast<int>(c_.heads), static_cast<int>(c_.kv_heads), c_.kv_len, chunk_,
                                  static_cast<int>(splits_), qs);
      };
      if (use_mma_) {
        const float sl = kLog2e / std::sqrt(static_cast<float>(c_.head_dim));
        auto gm = [&](auto kern, size_t smem) {
          kern<<<grid, 128, smem, s>>>(static_cast<const T*>(p[0]), static_cast<const T*>(p[1]), static_cast<const T*>(p[2]),
                                       static_cast<T*>(p[3]), static_cast<float*>(p[4]), static_cast<float*>(p[5]),
                                       static_cast<int>(c_.heads), static_cast<int>(c_.kv_heads), c_.kv_len, chunk_,
                                       static_cast<int>(splits_), sl);
        };
        if (c_.head_dim == 128) gm(decode_mma_kernel<T, 128>, FlashCfg<128>::smem);
        else gm(decode_mma_kernel<T, 64>, FlashCfg<64>::smem);
      } else {
#define PV_DEC(DD, GG) if (c_.head_dim == DD && G_ == GG) go(decode_kernel<T, DD, GG>)
        PV_DEC(128, 1); PV_DEC(128, 2); PV_DEC(64, 1); PV_DEC(64, 2);
#undef PV_DEC
      }
      PV_LAUNCH();
      if (splits_ > 1) {
        decode_combine_kernel<T><<<static_cast<unsigned>(c_.batch * c_.heads), static_cast<unsigned>(c_.head_dim), splits_ * sizeof(float), s>>>(
            static_cast<const float*>(p[4]), static_cast<const float*>(p[5]), static_cast<T*>(p[3]), static_cast<int>(splits_),
            static_cast<int>(c_.head_dim));
        PV_LAUNCH();
      }
    });
  }
  int64_t splits_ = 1, chunk_ = 1;
};

}  // namespace

std::unique_ptr<Workload> make_attention_decode(const Case& c) { return std::make_unique<DecodeWorkload>(c); }

}  // namespace perfmodel::validation::detail
