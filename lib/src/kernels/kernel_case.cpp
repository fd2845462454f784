#include "perfmodel/kernel_case.hpp"

#include "perfmodel/errors.hpp"
#include "perfmodel/l2_residency.hpp"
#include "perfmodel/kernel.hpp"

namespace perfmodel {

double harness_l2_hit(const KernelCase& c, double capacity) {
  if (c.l2_resident) return 1;
  return c.rotated_bytes > 0 ? cyclic_l2_hit(c.rotated_bytes, capacity) : 0;
}

Op to_op_on(const KernelCase& c, double capacity) {
  Op op = to_op(c);
  op.l2_hit = harness_l2_hit(c, capacity);
  return op;
}

Op to_op(const KernelCase& c, bool allow_tf32) {
  const KernelDef& def = kernel_def(c.kernel);
  if (!def.from_case) throw InputError("kernel '" + to_string(c.kernel) + "' has no stand-alone cost model");
  return def.from_case(c, allow_tf32);
}

}  // namespace perfmodel
