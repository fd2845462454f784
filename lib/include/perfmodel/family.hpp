#pragma once
// Model families (docs/architecture.md, "add a model family"): each turns a model into its
// abstract layer graph and owns the formulas that depend on its layout: parameters and KV-cache
// bytes. One file per family in lib/src/model/, registered in family_registry.cpp.
#include <string>
#include <string_view>
#include <vector>

#include "perfmodel/dtype.hpp"
#include "perfmodel/layer_graph.hpp"
#include "perfmodel/model.hpp"
#include "perfmodel/workload.hpp"

namespace perfmodel {

struct ModelFamily {
  std::string_view name;
  // The Hugging Face model_type / catalogue `architecture` values it covers.
  std::vector<std::string_view> architectures;
  // The step's abstract layer graph.
  LayerGraph (*graph)(const Model& m, const Workload& w) = nullptr;
  // The ops of the graph that depend on the context (the attention): the Predictor's fast path
  // re-lowers only these per context.
  LayerGraph (*context_graph)(const Model& m, const Workload& w) = nullptr;
  double (*parameters)(const Model& m) = nullptr;
  // Parameters one token uses (MoE: the top-k routed experts, not all); null: all of them.
  double (*active_parameters)(const Model& m) = nullptr;
  // KV-cache bytes of one token of context, all layers (reference B.3).
  double (*kv_bytes_per_token)(const Model& m, DType kv) = nullptr;
  // KV-cache bytes one sequence holds at context n (sliding windows cap their layers).
  double (*kv_bytes_per_sequence)(const Model& m, DType kv, int64_t ctx) = nullptr;
};

const std::vector<const ModelFamily*>& model_families();
// The family of m.architecture; InputError naming the known architectures when none has it.
const ModelFamily& family_for(const Model& m);
// "llama, mistral, ..." for error messages.
std::string known_architectures();

}  // namespace perfmodel
