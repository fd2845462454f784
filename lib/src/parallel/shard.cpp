// One GPU's share of a model under tensor and pipeline parallelism (docs/model.md, "Parallelism"):
// Megatron-LM's layout (Shoeybi et al. 2019, §3), as vLLM and TensorRT-LLM run it. Column-parallel
// GEMMs (q/k/v, gate/up) split their outputs, so heads and the FFN width divide by tp;
// row-parallel ones (o_proj, down_proj) split their inputs; norms and the residual stream stay
// whole on every GPU. KV heads split too, and when there are fewer KV heads than GPUs each is
// replicated on tp / kv_heads GPUs (vLLM's QKVParallelLinear). The vocabulary is split
// (VocabParallelEmbedding, ParallelLMHead). Pipeline stages hold ceil(layers / pp) layers. Expert
// parallelism (DeepSeek-V3's and vLLM's layout) splits a MoE layer's experts over ep GPUs while the
// attention runs data-parallel over them: each GPU attends for batch / ep sequences.
#include <string>

#include "parallel_internal.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/family.hpp"

namespace perfmodel {

std::string to_string(const Parallelism& p) {
  return "tp" + std::to_string(p.tp) + " pp" + std::to_string(p.pp) + " ep" + std::to_string(p.ep) + " dp" +
         std::to_string(p.dp);
}

namespace {

std::string str(int64_t v) { return std::to_string(v); }

void require_degree(int v, const char* flag) {
  if (v < 1 || v > 65536) throw InputError(std::string(flag) + " must be between 1 and 65536, got " + str(v));
}

}  // namespace

void validate_parallelism(const Model& m, const Parallelism& p) {
  require_degree(p.tp, "--tp");
  require_degree(p.pp, "--pp");
  require_degree(p.ep, "--ep");
  require_degree(p.dp, "--dp");
  if (static_cast<int64_t>(p.tp) * p.pp * p.ep * p.dp > 65536)
    throw InputError("tp x pp x ep x dp = " + str(static_cast<int64_t>(p.tp) * p.pp * p.ep * p.dp) +
                     " GPUs; more than 65536 are not modelled");
  if (p.micro_batches < 0) throw InputError("--micro-batches must be positive (0: the default), got " + str(p.micro_batches));
  if (m.heads % p.tp != 0)
    throw InputError("--tp " + str(p.tp) + " does not divide " + m.name + "'s " + str(m.heads) + " attention heads");
  if (m.kv_heads >= p.tp ? m.kv_heads % p.tp != 0 : p.tp % m.kv_heads != 0)
    throw InputError("--tp " + str(p.tp) + " and " + m.name + "'s " + str(m.kv_heads) +
                     " KV heads: each GPU needs whole KV heads (kv_heads a multiple of tp, or tp a multiple of kv_heads)");
  if (m.intermediate % p.tp != 0)
    throw InputError("--tp " + str(p.tp) + " does not divide " + m.name + "'s intermediate size " + str(m.intermediate));
  if (p.pp > m.layers)
    throw InputError("--pp " + str(p.pp) + " is more stages than " + m.name + "'s " + str(m.layers) + " layers");
  if (p.ep > 1 && !m.moe.enabled())
    throw InputError("--ep " + str(p.ep) + ": expert parallelism needs a mixture-of-experts model; " + m.name +
                     " is dense");
  if (p.ep > 1 && (m.moe.experts % p.ep != 0 || m.moe.experts / p.ep < m.moe.top_k))
    throw InputError("--ep " + str(p.ep) + " must divide " + m.name + "'s " + str(m.moe.experts) +
                     " routed experts and leave each GPU at least top_k (" + str(m.moe.top_k) + ") of them");
  if (m.moe.enabled() && (m.moe.expert_intermediate % p.tp != 0 || m.moe.shared_intermediate % p.tp != 0))
    throw InputError("--tp " + str(p.tp) + " does not divide " + m.name + "'s expert intermediate sizes");
}

void validate_parallelism(const Card& card, const Parallelism& p) {
  const Interconnect& ic = card.interconnect;
  if (p.gpus() > ic.gpus_per_node && !ic.nic)
    throw InputError(to_string(p) + " needs " + str(p.gpus()) + " GPUs, more than the " + str(ic.gpus_per_node) +
                     " of one " + card.key + " node, and the card states no node NIC (interconnect.nic)");
  if (p.sharded() && card.vendor != "NVIDIA")
    throw InputError("card '" + card.key + "' is " + card.vendor + "'s; collectives are modelled for NCCL only");
}

Model shard_model(const Model& m, const Parallelism& p) {
  validate_parallelism(m, p);
  Model s = m;
  s.heads = m.heads / p.tp;
  s.kv_heads = m.kv_heads >= p.tp ? m.kv_heads / p.tp : 1;  // replicated when fewer than the GPUs
  s.intermediate = m.intermediate / p.tp;
  s.vocab = (m.vocab + p.tp - 1) / p.tp;  // the last shard padded, as vLLM pads the vocabulary
  s.layers = (m.layers + p.pp - 1) / p.pp;
  // MoE: tensor parallelism splits every expert's FFN (vLLM's FusedMoE), expert parallelism the
  // experts themselves; the router stays whole (priced over the GPU's experts: a GEMM of d x E/ep
  // instead of d x E, a small undercount).
  s.moe.expert_intermediate = m.moe.expert_intermediate / p.tp;
  s.moe.shared_intermediate = m.moe.shared_intermediate / p.tp;
  s.moe.experts = m.moe.experts / p.ep;
  // The first stage holds the embedding table, the last the LM head: with stages, the busiest
  // stage holds ceil(layers / pp) layers and one vocabulary table, what a tied model counts.
  if (p.pp > 1) s.tie_word_embeddings = true;
  return s;
}

}  // namespace perfmodel
