// embedding: gather token rows from the vocabulary table.
#include "elementwise.cuh"

namespace perfmodel::validation::detail {
namespace {

template <typename T>
__global__ void embedding_kernel(const int32_t* __restrict__ ids, const T* __restrict__ table, T* __restrict__ out,
                                 int64_t cols, int64_t nv) {
  constexpr int V = VecN<T>::n;
  const int64_t vpr = cols / V;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nv; i += stride) {
    const int64_t r = i / vpr, c = i % vpr;
    const int64_t id = ids[r];
    *reinterpret_cast<uint4*>(out + i * V) = *reinterpret_cast<const uint4*>(table + id * cols + c * V);
  }
}

class EmbeddingWorkload : public EwWorkload {
 public:
  EmbeddingWorkload(const Case& c) : EwWorkload(c) {
    require_rows_cols();
    if (c.vocab <= 0) throw std::runtime_error("embedding needs vocab > 0");
    bufs = {{"ids", ET::i32, static_cast<size_t>(c.rows), Role::input, true, 0, 0, static_cast<int32_t>(c.vocab)},
            {"table", et_, static_cast<size_t>(c.vocab * c.cols), Role::input, false},
            {"y", et_, static_cast<size_t>(c.rows * c.cols), Role::output}};
  }
  double bytes() const override { return 2.0 * c_.rows * c_.cols * et_size(et_) + 4.0 * c_.rows; }
  double touched_bytes() const override { return bytes(); }
  void launch(void* const* p, cudaStream_t s) override {
    dispatch_float_types(c_.dtype, [&](auto tag) {
      using T = decltype(tag);
      const int64_t nv = c_.rows * c_.cols / VecN<T>::n;
      embedding_kernel<T><<<grid_for(nv, kBlock), kBlock, 0, s>>>(static_cast<const int32_t*>(p[0]), static_cast<const T*>(p[1]),
                                                                  static_cast<T*>(p[2]), c_.cols, nv);
      PV_LAUNCH();
    });
  }
  CheckOut check(void* const* p) override {
    Comparer cmp;
    const int64_t C = c_.cols;
    for (int64_t r : rows_to_check(c_.rows, C)) {
      int32_t id = 0;
      PV_CUDA(cudaMemcpy(&id, static_cast<const int32_t*>(p[0]) + r, 4, cudaMemcpyDeviceToHost));
      if (id < 0 || id >= c_.vocab) return {false, 0, "bad token id"};
      auto src = download(p[1], et_, static_cast<size_t>(id) * C, C);
      auto y = download(p[2], et_, r * C, C);
      for (int64_t i = 0; i < C; ++i) cmp.add(r * C + i, y[i], src[i]);
    }
    return cmp.finish(tolerance(c_.dtype), "y");
  }
};

}  // namespace

std::unique_ptr<Workload> make_embedding(const Case& c) { return std::make_unique<EmbeddingWorkload>(c); }

}  // namespace perfmodel::validation::detail
