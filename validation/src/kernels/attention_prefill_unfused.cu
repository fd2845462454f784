// attention_prefill_unfused: cuBLAS QK^T, the masked softmax kernel, cuBLAS PV (eager attention).
#include "attention.cuh"

namespace perfmodel::validation::detail {
namespace {

class PrefillUnfusedWorkload : public AttnWorkload {
 public:
  explicit PrefillUnfusedWorkload(const Case& c) : AttnWorkload(c) {
    if (c.kv_len % 8 != 0) throw std::runtime_error("attention_prefill_unfused needs kv_len multiple of 8");
    s_elems_ = static_cast<size_t>(c.batch * c.heads * sq_ * c.kv_len);
    bufs = {{"q", et_, q_elems(), Role::input}, {"k", et_, kv_elems(), Role::input}, {"v", et_, kv_elems(), Role::input},
            {"out", et_, q_elems(), Role::output}, {"scores", et_, s_elems_, Role::scratch}};
  }
  int kernels() const override { return 3; }
  // QKV read + O write + scores written by QK^T, read+written by softmax, read by PV
  double bytes() const override { return qkvo_bytes() + 4.0 * s_elems_ * et_size(et_); }
  double touched_bytes() const override { return bytes(); }
  void launch(void* const* p, cudaStream_t s) override {
    const cudaDataType_t dt = c_.dtype == DType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
    const int64_t D = c_.head_dim, SK = c_.kv_len, GS = G_ * sq_;
    const float one = 1.f, zero = 0.f;
    PV_CUBLAS(cublasSetStream(ctx().blas, s));
    // S[G*sq, sk] = Q_g[G*sq, d] . K[sk, d]^T, batched over (b, kv head)
    PV_CUBLAS(cublasGemmStridedBatchedEx(ctx().blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(SK), static_cast<int>(GS), static_cast<int>(D),
                                         &one, p[1], dt, static_cast<int>(D), SK * D, p[0], dt, static_cast<int>(D), GS * D, &zero,
                                         p[4], dt, static_cast<int>(SK), GS * SK, static_cast<int>(c_.batch * c_.kv_heads),
                                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    dispatch_attn_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      launch_softmax_rows<T>(static_cast<const T*>(p[4]), static_cast<T*>(p[4]), c_.batch * c_.heads * sq_, SK,
                             1.f / std::sqrt(static_cast<float>(D)), causal_ ? sq_ : 0, SK - sq_, s);
    });
    // O_g[G*sq, d] = P_g[G*sq, sk] . V[sk, d]
    PV_CUBLAS(cublasGemmStridedBatchedEx(ctx().blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(D), static_cast<int>(GS), static_cast<int>(SK),
                                         &one, p[2], dt, static_cast<int>(D), SK * D, p[4], dt, static_cast<int>(SK), GS * SK, &zero,
                                         p[3], dt, static_cast<int>(D), GS * D, static_cast<int>(c_.batch * c_.kv_heads),
                                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  size_t s_elems_ = 0;
};

}  // namespace

std::unique_ptr<Workload> make_attention_prefill_unfused(const Case& c) { return std::make_unique<PrefillUnfusedWorkload>(c); }

}  // namespace perfmodel::validation::detail
