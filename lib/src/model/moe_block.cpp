#include "moe_block.hpp"

#include "decoder.hpp"

#include <algorithm>

namespace perfmodel::moe {

namespace {

using Kind = GraphNode::Kind;
using decoder::node;

GraphNode linear(std::string name, std::vector<GraphNode::Part> parts, int64_t in, int64_t count) {
  return decoder::linear(std::move(name), std::move(parts), in, false, count);
}

// gate/up, act(gate) * up, down: a dense gated MLP of width `width` (the dense leading layers,
// the shared experts).
void gated_mlp(std::vector<GraphNode>& out, const std::string& prefix, int64_t width, const Model& m, int64_t count) {
  if (count <= 0 || width <= 0) return;
  out.push_back(linear(prefix + "gate_up_proj", {{prefix + "gate_proj", width}, {prefix + "up_proj", width}},
                       m.hidden, count));
  GraphNode act = node(Kind::activation, prefix + "act_mul", count);
  act.gated = true;
  act.width = width;
  out.push_back(act);
  out.push_back(linear(prefix + "down_proj", {{prefix + "down_proj", m.hidden}}, width, count));
}

}  // namespace

double gated_mlp_parameters(const Model& m, int64_t intermediate) {
  return 3.0 * static_cast<double>(m.hidden) * static_cast<double>(intermediate);
}

double mlp_parameters(const Model& m, double routed) {
  const MoeSpec& e = m.moe;
  const double d = static_cast<double>(m.hidden), E = static_cast<double>(e.experts);
  return routed * gated_mlp_parameters(m, e.expert_intermediate) +
         static_cast<double>(e.shared_experts) * gated_mlp_parameters(m, e.shared_intermediate) + E * d +
         (e.score_correction_bias ? E : 0.0) + (e.shared_expert_gate ? d : 0.0);
}

void splice_mlp(LayerGraph& g, const Model& m) {
  const int64_t L = m.moe_layers();
  std::vector<GraphNode> mlp;
  // The dense leading layers keep the dense MLP (DeepSeek first_k_dense_replace).
  gated_mlp(mlp, "", m.intermediate, m, m.dense_layers());
  if (L > 0) {
    mlp.push_back(node(Kind::router, "router", L));
    mlp.push_back(node(Kind::moe_experts, "experts", L));
    // DeepseekV3MoE: the shared experts are one MLP n_shared x moe_intermediate wide;
    // Qwen2-MoE: one shared_expert_intermediate_size-wide MLP behind a sigmoid gate.
    const MoeSpec& e = m.moe;
    gated_mlp(mlp, "shared_", e.shared_experts * e.shared_intermediate, m, L);
    if (e.shared_expert_gate) mlp.push_back(linear("shared_expert_gate", {{"shared_expert_gate", 1}}, m.hidden, L));
  }
  auto& nodes = g.nodes;
  auto first = std::find_if(nodes.begin(), nodes.end(), [](const GraphNode& n) { return n.name == "gate_up_proj"; });
  auto last = std::find_if(nodes.begin(), nodes.end(), [](const GraphNode& n) { return n.name == "down_proj"; });
  // A decoder graph always has both (decoder.cpp, gated MLP).
  if (first == nodes.end() || last == nodes.end()) return;
  const auto at = nodes.erase(first, last + 1);
  nodes.insert(at, mlp.begin(), mlp.end());
}

}  // namespace perfmodel::moe
