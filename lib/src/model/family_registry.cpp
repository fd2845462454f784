// The model families: one line each (docs/architecture.md, "add a model family").
#include "perfmodel/errors.hpp"
#include "perfmodel/family.hpp"

namespace perfmodel {

const ModelFamily& llama_family();
const ModelFamily& gemma2_family();
const ModelFamily& gpt2_family();
const ModelFamily& moe_family();
const ModelFamily& deepseek_family();

const std::vector<const ModelFamily*>& model_families() {
  static const std::vector<const ModelFamily*> families = {
      &llama_family(),
      &gemma2_family(),
      &gpt2_family(),
      &moe_family(),
      &deepseek_family(),
  };
  return families;
}

std::string known_architectures() {
  std::string s;
  for (const ModelFamily* f : model_families())
    for (std::string_view a : f->architectures) s += (s.empty() ? "" : ", ") + std::string(a);
  return s;
}

const ModelFamily& family_for(const Model& m) {
  for (const ModelFamily* f : model_families())
    for (std::string_view a : f->architectures)
      if (a == m.architecture) return *f;
  throw InputError("model '" + m.key + "': architecture '" + m.architecture + "' has no model family; known: " +
                   known_architectures());
}

}  // namespace perfmodel
