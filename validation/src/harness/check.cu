// Correctness: CUDA/cuBLAS errors, tolerances, the comparer, and one checked launch of a case.

#include "harness.cuh"

namespace perfmodel::validation {
namespace detail {

void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  std::ostringstream os;
  os << "CUDA error " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e) << ") in " << what << " at " << file << ":" << line;
  throw CudaError(os.str());
}
void throw_cublas(int st, const char* what, const char* file, int line) {
  std::ostringstream os;
  os << "cuBLAS status " << st << " (" << cublasGetStatusString(static_cast<cublasStatus_t>(st)) << ") in " << what << " at " << file << ":" << line;
  throw CudaError(os.str());
}

ET et_of(DType d) {
  switch (d) {
    case DType::fp32: case DType::tf32: return ET::f32;
    case DType::bf16: return ET::bf16;
    case DType::fp16: return ET::f16;
    case DType::fp8: return ET::e4m3;
  }
  return ET::bf16;
}
double tolerance(DType d) {
  switch (d) {
    case DType::fp32: return 1e-5;
    case DType::tf32: return 5e-3;
    case DType::bf16: return 2e-2;
    case DType::fp16: return 5e-3;
    case DType::fp8: return 6e-2;
  }
  return 1e-2;
}

CheckOut Comparer::finish(double tol, const std::string& what) const {
  CheckOut o;
  if (bad > 0) {
    o.ok = false;
    o.msg = std::to_string(bad) + " checked elements of " + what + " are not finite, first at flat index " + std::to_string(first_bad) + ": " +
            first_bad_what;
    return o;
  }
  o.rel_err = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  if (!(o.rel_err <= tol)) {
    o.ok = false;
    std::ostringstream os;
    os << "relative error " << o.rel_err << " of " << what << " exceeds tolerance " << tol;
    o.msg = os.str();
    return o;
  }
  // element-wise guard: one corrupted element hides in the norm of a large tensor
  const double rms = count > 0 ? std::sqrt(den / count) : 0;
  if (count > 0 && max_abs > 10 * tol * std::max(rms, 1e-30)) {
    o.ok = false;
    std::ostringstream os;
    os << "element-wise relative error " << max_abs / std::max(rms, 1e-30) << " (|out-ref| / rms(ref)) of " << what << " at flat index "
       << max_idx << " (out " << max_out << ", ref " << max_ref << ") exceeds " << 10 * tol;
    o.msg = os.str();
  }
  return o;
}

double Workload::bytes() const {
  double b = 0;
  for (auto& s : bufs)
    if (s.role != Role::scratch) b += static_cast<double>(s.bytes()) * (s.role == Role::inout ? 2 : 1);
  return b;
}
double Workload::touched_bytes() const {
  double b = 0;
  for (auto& s : bufs)
    if (s.rotate) b += static_cast<double>(s.bytes());
  return b;
}


CheckOut check_once(Workload& w, const std::vector<void*>& p) {
  cudaStream_t s = ctx().stream;
  for (size_t i = 0; i < w.bufs.size(); ++i)
    if (w.bufs[i].role == Role::output) PV_CUDA(cudaMemsetAsync(p[i], 0xFF, w.bufs[i].bytes(), s));
  PV_CUDA(cudaStreamSynchronize(s));
  w.before_check(p.data());
  w.launch(p.data(), s);
  PV_CUDA(cudaStreamSynchronize(s));
  CheckOut co = w.check(p.data());
  if (co.ok && w.full_write())
    for (size_t i = 0; i < w.bufs.size(); ++i)
      if (w.bufs[i].role == Role::output) {
        const int64_t nan = count_nan(p[i], w.bufs[i].et, w.bufs[i].count, s);
        if (nan > 0) return {false, co.rel_err, std::to_string(nan) + " elements of " + w.bufs[i].name + " not finite (unwritten: NaN poison left)"};
      }
  return co;
}


}  // namespace detail

}  // namespace perfmodel::validation
