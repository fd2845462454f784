#include "perfmodel/ops.hpp"

#include <algorithm>

#include "perfmodel/checked.hpp"
#include "perfmodel/instructions.hpp"

namespace perfmodel::ops {

namespace {
double elems(int64_t rows, int64_t cols, const std::string& name) {
  return static_cast<double>(checked_mul({rows, cols}, name));
}
}  // namespace

Op gemm(std::string name, int64_t m, int64_t n, int64_t k, DType act, DType weight,
        Precision precision, bool bias) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::gemm;
  op.kernel = KernelId::gemm;
  op.dtype = act;
  op.precision = precision;
  op.gemm = {m, n, k, 1};
  checked_mul({m, n, k}, op.name, "(m x n x k)");
  const double M = static_cast<double>(m), N = static_cast<double>(n), K = static_cast<double>(k);
  op.flops = 2.0 * M * N * K;
  op.model_flops = op.flops;
  op.bytes_read = M * K * bytes_of(act) + N * K * bytes_of(weight) + (bias ? N * bytes_of(weight) : 0);
  op.bytes_written = M * N * bytes_of(act);
  return op;
}

Op elementwise(std::string name, KernelId kernel, int64_t rows, int64_t cols, DType dtype,
               int inputs, int outputs, double flops_per_element, int launches) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::elementwise;
  op.kernel = kernel;
  op.dtype = dtype;
  op.precision = vector_precision(dtype);
  op.rows = rows;
  op.cols = cols;
  const double e = elems(rows, cols, op.name);
  op.flops = flops_per_element * e;
  op.bytes_read = inputs * e * bytes_of(dtype);
  op.bytes_written = outputs * e * bytes_of(dtype);
  op.launches = launches;
  op.passes = launches;  // each kernel one sweep
  op.instructions = kernel_instructions(kernel, rows, cols, dtype);
  return op;
}

Op add(std::string name, int64_t rows, int64_t cols, DType dtype) {
  return elementwise(std::move(name), KernelId::add, rows, cols, dtype, 2, 1, 1);
}

Op copy(std::string name, int64_t rows, int64_t cols, DType dtype) {
  Op op = elementwise(std::move(name), KernelId::copy, rows, cols, dtype, 1, 1, 0);
  op.kind = OpKind::copy;
  return op;
}

Op silu_mul(std::string name, int64_t rows, int64_t cols, DType dtype) {
  // silu(g) * u = g / (1 + exp(-g)) * u: about 5 FLOPs per element.
  return elementwise(std::move(name), KernelId::silu_mul, rows, cols, dtype, 2, 1, 5);
}

Op gelu_mul(std::string name, int64_t rows, int64_t cols, DType dtype) {
  return elementwise(std::move(name), KernelId::gelu_mul, rows, cols, dtype, 2, 1, 10);
}

Op gelu(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused) {
  // tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): 8 operations per element.
  if (fused) return elementwise(std::move(name), KernelId::gelu_fused, rows, cols, dtype, 1, 1, 8);
  return elementwise(std::move(name), KernelId::gelu_unfused, rows, cols, dtype, 10, 8, 8, 8);
}

Op cast(std::string name, int64_t rows, int64_t cols, DType from, DType to) {
  Op op = elementwise(std::move(name), KernelId::cast, rows, cols, from, 1, 0, 0);
  op.kind = OpKind::copy;
  op.bytes_written = elems(rows, cols, op.name) * bytes_of(to);
  return op;
}

namespace {
Op norm(std::string name, KernelId kernel, int64_t rows, int64_t cols, DType dtype,
        bool fused_residual, int params_per_col, double flops_per_element) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::norm;
  op.kernel = kernel;
  op.dtype = dtype;
  op.precision = Precision::fp32;  // accumulated in fp32 on CUDA cores
  op.rows = rows;
  op.cols = cols;
  op.residual = fused_residual;
  const double e = elems(rows, cols, op.name);
  const double b = bytes_of(dtype);
  op.flops = flops_per_element * e;
  op.bytes_read = (fused_residual ? 2 : 1) * e * b + params_per_col * static_cast<double>(cols) * b;
  op.bytes_written = (fused_residual ? 2 : 1) * e * b;
  op.instructions = kernel_instructions(kernel, rows, cols, dtype, fused_residual);
  return op;
}
}  // namespace

Op rmsnorm(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused_residual) {
  // square, sum, scale, weight: 4 FLOPs per element (+1 for the fused residual add).
  // Two dependent sweeps: the sum of squares (a block reduction), then the scaled write, which
  // also fetches the weight (a first touch: it waits on DRAM like the first sweep).
  Op op = norm(std::move(name), KernelId::rmsnorm, rows, cols, dtype, fused_residual, 1,
               fused_residual ? 5 : 4);
  op.passes = 2;
  // Plain: x, then x again and w. Fused residual: x and r (h written), then h and w.
  op.row_reads_per_sweep = fused_residual ? std::array<int, 4>{2, 2} : std::array<int, 4>{1, 2};
  return op;
}

Op layernorm(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused_residual) {
  // mean, variance, normalize, scale, shift: about 7 FLOPs per element. Three dependent
  // sweeps: the mean, the variance around it, the normalized write. The variance sweep re-reads
  // the row the mean sweep just brought in (an L2 hit); the last one also fetches the weight and
  // bias, first touches that wait on DRAM.
  Op op = norm(std::move(name), KernelId::layernorm, rows, cols, dtype, fused_residual, 2,
               fused_residual ? 8 : 7);
  op.passes = 3;
  op.reread_passes = 1;
  // x (and r), x again, x with w and b.
  op.row_reads_per_sweep = fused_residual ? std::array<int, 4>{2, 1, 3} : std::array<int, 4>{1, 1, 3};
  return op;
}

Op softmax(std::string name, int64_t rows, int64_t cols, DType dtype, bool fused) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::other;
  op.kernel = fused ? KernelId::softmax_fused : KernelId::softmax_naive;
  op.dtype = dtype;
  op.precision = Precision::fp32;
  op.rows = rows;
  op.cols = cols;
  const double mn = elems(rows, cols, op.name), m = static_cast<double>(rows);
  const double b = bytes_of(dtype);
  op.flops = 5 * mn;  // max, subtract, exp, sum, divide
  if (fused) {
    // Online softmax (seed 001 slide 49): one sweep for the running max and sum, one to write;
    // the second re-reads the row the first brought in (an L2 hit).
    op.bytes_read = mn * b;
    op.bytes_written = mn * b;
    op.passes = 2;
    op.reread_passes = 1;
    op.row_reads_per_sweep = {1, 1};
  } else {
    // seed 001 manual_softmax: "Итого: 5MN + M чтений, 3MN + 2M записей"
    op.bytes_read = (5 * mn + m) * b;
    op.bytes_written = (3 * mn + 2 * m) * b;
    op.launches = 5;
    op.passes = 5;
  }
  op.instructions = kernel_instructions(op.kernel, rows, cols, dtype);
  return op;
}

Op rotary(std::string name, int64_t tokens, int64_t heads, int64_t kv_heads, int64_t head_dim,
          DType dtype) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::elementwise;
  op.kernel = KernelId::rotary;
  op.dtype = dtype;
  op.precision = Precision::fp32;
  op.attention = {tokens, heads, kv_heads, 1, 1, head_dim, false};
  op.rows = tokens;
  op.cols = (heads + kv_heads) * head_dim;
  const double e = elems(tokens, op.cols, op.name);
  const double b = bytes_of(dtype);
  op.flops = 3 * e;  // x cos + rotate(x) sin
  // each token's position (int64) and its cos/sin row (head_dim values in the activation
  // dtype), as vLLM's rotary_embedding reads them
  op.bytes_read = e * b + static_cast<double>(tokens) * (8.0 + static_cast<double>(head_dim) * b);
  op.bytes_written = e * b;
  op.instructions = kernel_instructions(KernelId::rotary, tokens, op.cols, dtype);
  return op;
}

Op kv_append(std::string name, int64_t tokens, int64_t kv_heads, int64_t head_dim, DType act,
             DType kv) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::kv_cache;
  op.kernel = KernelId::kv_append;
  op.dtype = kv;
  op.precision = Precision::fp32;
  op.rows = tokens;
  op.cols = 2 * kv_heads * head_dim;
  op.attention = {tokens, kv_heads, kv_heads, 1, 1, head_dim, false};
  const double e = elems(tokens, op.cols, op.name);
  op.bytes_read = e * bytes_of(act) + static_cast<double>(tokens) * 8;  // + slot indices
  op.bytes_written = e * bytes_of(kv);
  op.instructions = kernel_instructions(KernelId::kv_append, tokens, op.cols, kv);
  return op;
}

Op embedding(std::string name, int64_t tokens, int64_t hidden, DType table, DType out) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::embedding;
  op.kernel = KernelId::embedding;
  op.dtype = out;
  op.precision = Precision::fp32;
  op.rows = tokens;
  op.cols = hidden;
  const double e = elems(tokens, hidden, op.name);
  op.bytes_read = static_cast<double>(tokens) * 8 + e * bytes_of(table);
  op.bytes_written = e * bytes_of(out);
  op.instructions = kernel_instructions(KernelId::embedding, tokens, hidden, out);
  return op;
}

double attention_pairs(int64_t q_len, int64_t kv_len, bool causal, int64_t window) {
  const double q = static_cast<double>(q_len), k = static_cast<double>(kv_len);
  if (!causal) return q * (window > 0 ? std::min(k, static_cast<double>(window)) : k);
  // Query i (0-based, aligned to the end of the keys) sees a + i + 1 keys, a = kv_len - q_len,
  // capped at the window: the first n1 queries are under the cap, the rest see `window` keys.
  const double a = k - q;
  if (window <= 0) return q * a + q * (q + 1) / 2;
  const double w = static_cast<double>(window);
  const double n1 = std::clamp(w - a, 0.0, q);
  return n1 * a + n1 * (n1 + 1) / 2 + (q - n1) * w;
}

Op attention_decode(std::string name, int64_t batch, int64_t heads, int64_t kv_heads,
                    int64_t kv_len, int64_t head_dim, DType act, DType kv) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::attention;
  op.kernel = KernelId::attention_decode;
  op.dtype = act;
  op.precision = matmul_precision(act, false);
  op.attention = {batch, heads, kv_heads, 1, kv_len, head_dim, false};
  checked_mul({batch, heads, kv_len, head_dim}, op.name);
  const double B = static_cast<double>(batch), H = static_cast<double>(heads);
  const double L = static_cast<double>(kv_len), D = static_cast<double>(head_dim);
  op.flops = 4 * B * H * L * D;
  op.model_flops = op.flops;
  op.bytes_read = 2 * B * kv_heads * L * D * bytes_of(kv) + B * H * D * bytes_of(act);
  op.bytes_written = B * H * D * bytes_of(act);
  // Flash-decoding: a split kernel and a combine kernel.
  op.launches = 2;
  op.passes = 2;
  return op;
}

Op attention_prefill(std::string name, int64_t batch, int64_t heads, int64_t kv_heads,
                     int64_t q_len, int64_t kv_len, int64_t head_dim, bool causal, DType act,
                     DType kv, int64_t window) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::attention;
  op.kernel = KernelId::attention_prefill_fused;
  op.dtype = act;
  op.precision = matmul_precision(act, false);
  op.attention = {batch, heads, kv_heads, q_len, kv_len, head_dim, causal, window};
  checked_mul({batch, heads, q_len, kv_len, head_dim}, op.name);
  const double B = static_cast<double>(batch), H = static_cast<double>(heads);
  const double D = static_cast<double>(head_dim);
  op.flops = 4 * B * H * D * attention_pairs(q_len, kv_len, causal, window);
  op.model_flops = op.flops;
  op.bytes_read = B * q_len * H * D * bytes_of(act) + 2 * B * kv_len * kv_heads * D * bytes_of(kv);
  op.bytes_written = B * q_len * H * D * bytes_of(act);
  return op;
}

Op attention_prefill_unfused(std::string name, int64_t batch, int64_t heads, int64_t kv_heads,
                             int64_t q_len, int64_t kv_len, int64_t head_dim, bool causal,
                             DType act, DType kv) {
  Op op = attention_prefill(std::move(name), batch, heads, kv_heads, q_len, kv_len, head_dim,
                            causal, act, kv);
  op.kernel = KernelId::attention_prefill_unfused;
  const double B = static_cast<double>(batch), H = static_cast<double>(heads);
  const double D = static_cast<double>(head_dim);
  const double scores = B * H * static_cast<double>(q_len) * static_cast<double>(kv_len);
  op.flops = 4 * B * H * D * static_cast<double>(q_len) * static_cast<double>(kv_len) + 5 * scores;
  op.model_flops = 4 * B * H * D * attention_pairs(q_len, kv_len, causal);
  // S written by QK^T, read and P written by softmax, P read by PV.
  op.bytes_read += 2 * scores * bytes_of(act);
  op.bytes_written += 2 * scores * bytes_of(act);
  op.launches = 3;
  op.passes = 3;
  return op;
}

}  // namespace perfmodel::ops
