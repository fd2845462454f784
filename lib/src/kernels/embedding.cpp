// Kernel kind `embedding`: token ids gather rows of the embedding table.
#include "../cost/kernel_costs.hpp"
#include "op_builders.hpp"
#include "perfmodel/instructions.hpp"

namespace perfmodel {

Op ops::embedding(std::string name, int64_t tokens, int64_t hidden, DType table, DType out) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::embedding;
  op.kernel = KernelId::embedding;
  op.dtype = out;
  op.precision = Precision::fp32;
  op.rows = tokens;
  op.cols = hidden;
  const double e = kernels::elems(tokens, hidden, op.name);
  op.bytes_read = static_cast<double>(tokens) * 8 + e * bytes_of(table);  // int64 ids + rows
  op.bytes_written = e * bytes_of(out);
  op.instructions = kernel_instructions(KernelId::embedding, tokens, hidden, out);
  return op;
}

namespace {
Op from_case(const KernelCase& c, bool) { return ops::embedding(c.name, c.rows, c.cols, c.dtype, c.dtype); }
}  // namespace

const KernelDef& kernel_def_embedding() {
  static const KernelDef d{.id = KernelId::embedding,
                           .name = "embedding",
                           .accuracy_set = "elementwise",
                           .from_case = from_case,
                           .instructions = {76.9, 6.64},
                           .cost = stream_cost};
  return d;
}

}  // namespace perfmodel
