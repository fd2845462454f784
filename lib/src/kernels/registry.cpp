// The kernel registry: kernels.def lists the kinds; each one's definition is a function in
// lib/src/kernels/<name>.cpp.
#include <stdexcept>

#include "perfmodel/kernel.hpp"

namespace perfmodel {

#define PERFMODEL_KERNEL(name) const KernelDef& kernel_def_##name();
#include "perfmodel/kernels.def"
#undef PERFMODEL_KERNEL

const std::vector<const KernelDef*>& kernel_defs() {
  static const std::vector<const KernelDef*> defs = {
#define PERFMODEL_KERNEL(name) &kernel_def_##name(),
#include "perfmodel/kernels.def"
#undef PERFMODEL_KERNEL
  };
  return defs;
}

const KernelDef& kernel_def(KernelId id) {
  const auto i = static_cast<size_t>(id);
  const auto& defs = kernel_defs();
  if (i >= defs.size()) throw std::out_of_range("kernel id out of range");
  return *defs[i];
}

std::string kernel_names() {
  std::string s;
  for (const KernelDef* d : kernel_defs()) s += (s.empty() ? "" : ", ") + std::string(d->name);
  return s;
}

std::string to_string(KernelId k) { return std::string(kernel_def(k).name); }

std::optional<KernelId> kernel_from_string(const std::string& s) {
  for (const KernelDef* d : kernel_defs())
    if (d->name == s) return d->id;
  return std::nullopt;
}

}  // namespace perfmodel
