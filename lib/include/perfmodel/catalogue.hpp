#pragma once
// Loading cards and models: from the catalogue folders (hardware/, models/) by key or alias, or
// from a path (a catalogue-style YAML file, or a Hugging Face config.json for models).
#include <string>
#include <vector>

#include "perfmodel/card.hpp"
#include "perfmodel/model.hpp"

namespace perfmodel {

Card load_card_file(const std::string& path);
Model load_model_file(const std::string& path);
// Reads a Hugging Face config.json (GPT-2 field names, explicit head_dim, missing kv heads,
// Qwen2's implied q/k/v bias). MoE and MLA configs are refused with a clear message.
Model load_hf_config(const std::string& path);

class Catalogue {
 public:
  // `root` holds hardware/ and models/.
  explicit Catalogue(std::string root);
  const std::string& root() const { return root_; }

  std::vector<std::string> card_keys() const;
  std::vector<std::string> model_keys() const;
  // A key, an alias or a path. Unknown names throw InputError listing close names.
  Card card(const std::string& name_or_path) const;
  Model model(const std::string& name_or_path) const;
  // Resolves a key or alias to the catalogue key ("" when unknown).
  std::string card_key(const std::string& name) const;
  std::string model_key(const std::string& name) const;
  // Path of the calibration file that sits beside a card (may not exist).
  std::string calibration_path(const std::string& card_key) const;

 private:
  std::string resolve(const std::string& dir, const std::string& name) const;
  std::string root_;
};

// The folder holding hardware/ and models/: $PERFMODEL_DATA_DIR, else next to the executable
// (../share/perfmodel), else the source tree this binary was built from.
std::string default_data_root(const std::string& argv0);

}  // namespace perfmodel
