// GEMM through cuBLASLt in the nn.Linear layout: y[m,n] = x[m,k] . W[n,k]^T (row-major).
// Column-major view: y^T[n,m] = op_T(W as [k,n]) . x as [k,m]  ("TN", as fp8 requires).
#include <algorithm>
#include <map>

#include "../common.cuh"

namespace perfmodel::validation::detail {
namespace {

class GemmWorkload : public Workload {
 public:
  explicit GemmWorkload(const Case& c) : Workload(c) {
    if (c.m <= 0 || c.n <= 0 || c.k <= 0) throw std::runtime_error("gemm needs m, n, k > 0");
    cudaDataType_t ab = CUDA_R_16BF, cd = CUDA_R_16BF;
    cublasComputeType_t comp = CUBLAS_COMPUTE_32F;
    switch (c.dtype) {
      case DType::bf16: in_ = out_ = ET::bf16; break;
      case DType::fp16: in_ = out_ = ET::f16; ab = cd = CUDA_R_16F; break;
      case DType::fp32: in_ = out_ = ET::f32; ab = cd = CUDA_R_32F; break;
      case DType::tf32: in_ = out_ = ET::f32; ab = cd = CUDA_R_32F; comp = CUBLAS_COMPUTE_32F_FAST_TF32; break;
      case DType::fp8:
        if (ctx().cc_major * 10 + ctx().cc_minor < 89) throw std::runtime_error("fp8 gemm needs compute capability >= 8.9");
        in_ = ET::e4m3; out_ = ET::bf16; ab = CUDA_R_8F_E4M3; cd = CUDA_R_16BF;
        if (c.k % 16 != 0 || c.n % 16 != 0) throw std::runtime_error("fp8 gemm needs k and n multiples of 16");
        break;
    }
    const size_t M = c.m, N = c.n, K = c.k;
    bufs = {{"x", in_, M * K, Role::input}, {"W", in_, N * K, Role::input}, {"y", out_, M * N, Role::output},
            {"workspace", ET::e4m3, kWorkspace, Role::scratch, false}};
    PV_CUBLAS(cublasLtMatmulDescCreate(&desc_, comp, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    PV_CUBLAS(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
    PV_CUBLAS(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
    PV_CUBLAS(cublasLtMatrixLayoutCreate(&la_, ab, K, N, K));  // W: [k, n] col-major, ld k
    PV_CUBLAS(cublasLtMatrixLayoutCreate(&lb_, ab, K, M, K));  // x: [k, m] col-major, ld k
    PV_CUBLAS(cublasLtMatrixLayoutCreate(&lc_, cd, N, M, N));  // y: [n, m] col-major, ld n
    cublasLtMatmulPreference_t pref;
    PV_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t ws = kWorkspace;
    PV_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
    int found = 0;
    cublasLtMatmulHeuristicResult_t res{};
    auto st = cublasLtMatmulAlgoGetHeuristic(ctx().lt, desc_, la_, lb_, lc_, lc_, pref, 1, &res, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || found == 0)
      throw std::runtime_error("cuBLASLt found no algorithm for gemm " + std::string(to_string(c.dtype)) + " m=" + std::to_string(c.m) +
                               " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) + " (status " + std::to_string(int(st)) + ")");
    algo_ = res.algo;
  }
  ~GemmWorkload() override {
    if (la_) cublasLtMatrixLayoutDestroy(la_);
    if (lb_) cublasLtMatrixLayoutDestroy(lb_);
    if (lc_) cublasLtMatrixLayoutDestroy(lc_);
    if (desc_) cublasLtMatmulDescDestroy(desc_);
  }
  double flops() const override { return 2.0 * c_.m * c_.n * c_.k; }
  double bytes() const override {
    return static_cast<double>(c_.m * c_.k + c_.n * c_.k) * et_size(in_) + static_cast<double>(c_.m * c_.n) * et_size(out_);
  }
  double touched_bytes() const override { return bytes(); }
  void launch(void* const* p, cudaStream_t s) override {
    const float alpha = 1.f, beta = 0.f;
    PV_CUBLAS(cublasLtMatmul(ctx().lt, desc_, &alpha, p[1], la_, p[0], lb_, &beta, p[2], lc_, p[2], lc_, &algo_, p[3],
                             kWorkspace, s));
  }
  CheckOut check(void* const* p) override {
    Comparer cmp;
    const int64_t M = c_.m, N = c_.n, K = c_.k;
    if (M * N <= 65536 && M * N * K <= (int64_t{1} << 28)) {
      auto x = download(p[0], in_, 0, M * K);
      auto w = download(p[1], in_, 0, N * K);
      auto y = download(p[2], out_, 0, M * N);
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double acc = 0;
          for (int64_t l = 0; l < K; ++l) acc += x[i * K + l] * w[j * K + l];
          cmp.add(i * N + j, y[i * N + j], acc);
        }
    } else {
      // sampled: ~256 elements from 16 rows x 16 cols (+ the last row/col)
      auto ri = sample_indices(M, static_cast<int>(std::min<int64_t>(M, 15)), check_seed());
      auto cj = sample_indices(N, 15, check_seed() + 7);
      ri.push_back(M - 1);
      cj.push_back(N - 1);
      std::map<int64_t, std::vector<double>> wrows;
      for (int64_t j : cj) wrows[j] = download(p[1], in_, j * K, K);
      for (int64_t i : ri) {
        auto x = download(p[0], in_, i * K, K);
        for (int64_t j : cj) {
          const auto& w = wrows[j];
          double acc = 0;
          for (int64_t l = 0; l < K; ++l) acc += x[l] * w[l];
          auto y = download(p[2], out_, i * N + j, 1);
          cmp.add(i * N + j, y[0], acc);
        }
      }
      const int64_t nan = count_nan(p[2], out_, static_cast<size_t>(M * N), ctx().stream);
      if (nan > 0) return {false, 0, std::to_string(nan) + " output elements of y unwritten (NaN poison left)"};
    }
    return cmp.finish(tolerance(c_.dtype), "y");
  }

 private:
  static constexpr size_t kWorkspace = 32u << 20;
  ET in_ = ET::bf16, out_ = ET::bf16;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace

std::unique_ptr<Workload> make_gemm(const Case& c) { return std::make_unique<GemmWorkload>(c); }

}  // namespace perfmodel::validation::detail
