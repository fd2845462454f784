// The collectives tensor and pipeline parallelism add to a layer graph (docs/model.md,
// "Parallelism"), and one GPU's step built from the sharded model (shard.cpp) with them.
//  - after every row-parallel GEMM (o_proj, down_proj): an all-reduce of tokens x hidden, which
//    serving engines run on the step's path (vLLM and TensorRT-LLM do not overlap it in decode;
//    Megatron's sequence parallelism, a reduce-scatter and an all-gather instead, is not modelled);
//  - after the vocabulary-parallel embedding: an all-reduce of tokens x hidden (each GPU gathers
//    the rows of its shard, zeros elsewhere: vLLM's VocabParallelEmbedding);
//  - after the vocabulary-parallel LM head: an all-gather of the logits (vLLM's logits gather);
//  - with expert parallelism: an all-to-all of tokens x top_k x hidden before a MoE layer's experts
//    (dispatch) and one after (combine); with tp, one all-reduce after the experts;
//  - with pipeline stages: one send of the micro-batch's hidden states and residual (vLLM's
//    IntermediateTensors, 2 x tokens x hidden) to the next stage, beside the next micro-batch's work.
#include "parallel_internal.hpp"
#include "perfmodel/family.hpp"
#include "perfmodel/ops.hpp"
#include "perfmodel/profile.hpp"

namespace perfmodel {

namespace {

GraphNode collective_node(std::string name, CollectiveOp what, int group, int64_t width, int64_t count,
                          bool overlaps = false, bool logits = false, int64_t rows_per_token = 1) {
  GraphNode n;
  n.kind = GraphNode::Kind::collective;
  n.name = std::move(name);
  n.collective = what;
  n.group = group;
  n.width = width;
  n.count = count;
  n.overlaps = overlaps;
  n.logits = logits;
  n.rows_per_token = rows_per_token;
  return n;
}

void add_collectives(LayerGraph& g, const Model& shard, const Parallelism& p) {
  std::vector<GraphNode> out;
  out.reserve(g.nodes.size() + 8);
  for (GraphNode& n : g.nodes) {
    const bool embed = n.kind == GraphNode::Kind::embed;
    const bool row = n.kind == GraphNode::Kind::linear && n.row_parallel;
    const bool head = n.kind == GraphNode::Kind::linear && n.logits;
    const bool experts = n.kind == GraphNode::Kind::moe_experts;
    const int64_t count = n.count;
    const std::string name = n.name;
    // Expert parallelism: each token's hidden state goes to the GPUs of its top_k experts and
    // comes back (DeepEP / vLLM all2all dispatch and combine), tokens x top_k rows each way.
    if (experts && p.ep > 1)
      out.push_back(collective_node(name + ".dispatch", CollectiveOp::all_to_all, p.ep, shard.hidden, count, false,
                                    false, shard.moe.top_k));
    out.push_back(std::move(n));
    if (experts && p.ep > 1)
      out.push_back(collective_node(name + ".combine", CollectiveOp::all_to_all, p.ep, shard.hidden, count, false,
                                    false, shard.moe.top_k));
    if (p.tp < 2) continue;
    // A MoE layer's routed and shared experts are summed and all-reduced once (vLLM).
    if (embed || row || experts)
      out.push_back(collective_node(name + ".all_reduce", CollectiveOp::all_reduce, p.tp, shard.hidden, count));
    else if (head)
      out.push_back(collective_node(name + ".all_gather", CollectiveOp::all_gather, p.tp, shard.vocab * p.tp, count,
                                    false, /*logits=*/true));
  }
  // The group is the pipeline's GPUs: a send crosses nodes when they span more than one.
  if (p.pp > 1)
    out.push_back(collective_node("pp_send", CollectiveOp::send_recv, p.tp * p.pp, 2 * shard.hidden, 1, true));
  g.nodes = std::move(out);
}

}  // namespace

Op lower_collective(const GraphNode& n, const Workload& w) {
  const int64_t rows = n.logits ? logits_rows(w) : w.tokens() * n.rows_per_token;
  const double bytes = static_cast<double>(rows) * static_cast<double>(n.width) * bytes_of(w.act_dtype);
  Op op = ops::collective(n.name, n.collective, n.group, bytes, n.overlaps);
  op.dtype = w.act_dtype;
  op.rows = rows;
  op.cols = n.width;
  op.count = n.count;
  return op;
}

Step build_parallel_step(const Model& m, const Workload& w) {
  const Model shard = shard_model(m, w.parallel);
  LayerGraph g = family_for(shard).graph(shard, w);
  add_collectives(g, shard, w.parallel);
  Step s;
  s.ops.reserve(80);
  profile_for(w.impl).lower(g, shard, w, s);
  return s;
}

Step build_parallel_context_step(const Model& m, const Workload& w) {
  const Model shard = shard_model(m, w.parallel);
  Step s;
  profile_for(w.impl).lower(family_for(shard).context_graph(shard, w), shard, w, s);
  return s;
}

}  // namespace perfmodel
