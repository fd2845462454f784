#pragma once
// The kernel registry (docs/architecture.md): one definition per kernel kind of kernels.def, in
// lib/src/kernels/<name>.cpp. A definition says how the kernel is built from a measured case, how
// many instructions its threads issue (the issue roof and the thread chain), which accuracy set it
// belongs to, and how it is priced: `cost` gives its compute, memory and fixed times (the generic
// price() adds the roofline, the bound, the eager host and the distances); a composite kernel
// prices itself whole through `price`.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfmodel/fixed_part.hpp"
#include "perfmodel/gemm_tiling.hpp"
#include "perfmodel/kernel_case.hpp"
#include "perfmodel/op.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

struct Roofs;
struct OpCost;

// Thread instructions of a kernel's reference implementation (instructions.hpp), counted with
// Nsight Compute on the validation kernels (validation/results/h200/ncu/counts.csv).
struct InstructionCount {
  double per_thread = 0;   // index math, loop set-up, block reductions
  double per_element = 0;  // per output element (per element of each operand for rotary, KV append)
  bool row_kernel = false;  // one CTA of row_threads(cols) threads per row; else one thread per 16-byte vector
  double residual_per_element = 0;  // with the residual add fused in (0: same as per_element)
  double operands = 1;      // operands a thread's 16-byte vector is taken from (thread_instructions)
};

// What a kernel's cost gives the generic price(): t = fixed + max(compute, memory).
struct KernelTimes {
  double compute_s = 0;
  double memory_s = 0;
  double fixed_s = 0;
  std::optional<TilePlan> tiling;
  std::vector<FixedPart> fixed_parts;  // fixed_s term by term where the kernel's floors are its own (else empty)
};

struct KernelDef {
  KernelId id = KernelId::other;
  std::string_view name;
  // gemm | elementwise | attention: the accuracy set its measurements count in (issue 4).
  std::string_view accuracy_set = "elementwise";
  // The op a measured case stands for; null when the kernel has no stand-alone form.
  Op (*from_case)(const KernelCase& c, bool allow_tf32) = nullptr;
  InstructionCount instructions;
  KernelTimes (*cost)(const Op& op, const Roofs& roofs, const Tile* force_tile) = nullptr;
  // A composite kernel (several launches priced one by one) prices itself whole.
  OpCost (*price)(const Op& op, const Roofs& roofs, Impl impl) = nullptr;
};

const KernelDef& kernel_def(KernelId id);
// Every registered kernel, in KernelId order.
const std::vector<const KernelDef*>& kernel_defs();
// "gemm, copy, ..." for error messages.
std::string kernel_names();

}  // namespace perfmodel
