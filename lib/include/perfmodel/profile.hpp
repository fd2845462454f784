#pragma once
// Implementation profiles (docs/profiles.md, docs/architecture.md): each lowers a family's
// abstract layer graph (layer_graph.hpp) into the kernels an engine launches for it. One file
// per profile in lib/src/step/, registered in profile_registry.cpp.
#include <string_view>
#include <vector>

#include "perfmodel/layer_graph.hpp"
#include "perfmodel/step.hpp"

namespace perfmodel {

struct Profile {
  Impl impl = Impl::fused;
  std::string_view name;
  // Appends the kernels of `graph` to `step`, in order.
  void (*lower)(const LayerGraph& graph, const Model& m, const Workload& w, Step& step) = nullptr;
};

const std::vector<const Profile*>& profiles();

// One kernel of the fused vocabulary as PyTorch eager runs it (lib/src/step/eager_ops.cpp):
// F.silu(a) * b is two kernels and an intermediate; with `hf_modules`, RMSNorm is transformers'
// LlamaRMSNorm (8 kernels, fp32 intermediates); rotary is transformers' apply_rotary_pos_emb on q
// and k (10 kernels). Other kernels are PyTorch's own one kernel (F.rms_norm, F.layer_norm, ...).
std::vector<Op> eager_form(const Op& op, bool hf_modules);
// One kernel of the fused vocabulary as Inductor generates it (lib/src/step/compiled_profile.cpp):
// rotary is one Triton kernel for q and one for k; other kernels are the one kernel.
std::vector<Op> compiled_form(const Op& op, bool keep_l2_hit = false);
const Profile& profile_for(Impl impl);

}  // namespace perfmodel
