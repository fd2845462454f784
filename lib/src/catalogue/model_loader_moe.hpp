#pragma once
// MoE and MLA fields of the model loaders (internal; model_loader_moe.cpp).
#include <string>

#include "perfmodel/model.hpp"
#include "yaml_reader.hpp"

namespace perfmodel::detail {

// config.json: the MoE / MLA fields of `type`; any other MoE- or MLA-looking key that is set is
// refused by name (ConfigError).
void read_hf_moe_mla(MapReader& r, const std::string& type, Model& m);
// models/*.yaml: the optional MoE block (n_routed_experts and what goes with it), qk_norm and
// the MLA block (kv_lora_rank and what goes with it).
void read_yaml_moe_mla(MapReader& r, Model& m);

}  // namespace perfmodel::detail
