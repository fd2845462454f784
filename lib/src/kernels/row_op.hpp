#pragma once
// The op of a one-CTA-per-row norm kernel (RMSNorm, LayerNorm): reads x and the per-column
// parameters (weight, bias), writes y; with the residual add fused in it reads x and the
// residual and writes both.
#include "op_builders.hpp"
#include "perfmodel/instructions.hpp"

namespace perfmodel::kernels {

inline Op norm_op(std::string name, KernelId kernel, int64_t rows, int64_t cols, DType dtype, bool fused_residual,
                  int params_per_col, double flops_per_element) {
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

}  // namespace perfmodel::kernels
