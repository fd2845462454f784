#pragma once
// The mixture-of-experts MLP the `moe` and `deepseek` families share: its parameters and its
// layer-graph nodes (router, routed experts, shared experts), spliced into a decoder graph in
// place of the dense MLP.
#include "perfmodel/family.hpp"

namespace perfmodel::moe {

// A dense gated MLP of width `intermediate`: gate, up and down, 3 d I.
double gated_mlp_parameters(const Model& m, int64_t intermediate);
// One MoE layer's MLP counting `routed` of its routed experts (all of them for the total, top_k
// for the active count): routed x 3 d I_e + shared x 3 d I_s + the router (E x d), DeepSeek-V3's
// per-expert score-correction bias (E) and Qwen2-MoE's shared-expert gate (d).
double mlp_parameters(const Model& m, double routed);
// Replaces the dense MLP nodes of a decoder graph (gate_up_proj, act_mul, down_proj) by the
// dense leading layers' MLP (m.dense_layers() instances, width m.intermediate) and the MoE
// block (m.moe_layers() instances).
void splice_mlp(LayerGraph& g, const Model& m);

}  // namespace perfmodel::moe
