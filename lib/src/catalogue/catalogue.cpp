#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "perfmodel/catalogue.hpp"
#include "perfmodel/errors.hpp"
#include "catalogue/yaml_reader.hpp"

namespace fs = std::filesystem;

namespace perfmodel {

namespace {

std::vector<std::string> yaml_stems(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml") continue;
    std::string stem = e.path().stem().string();
    // aliases.yaml and <card>.calibration.yaml are not catalogue entries.
    if (stem == "aliases" || stem.ends_with(".calibration")) continue;
    out.push_back(stem);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Keys plus the aliases of a catalogue folder, for "did you mean".
std::vector<std::string> with_aliases(std::vector<std::string> keys, const std::string& alias_file) {
  if (!fs::exists(alias_file)) return keys;
  YAML::Node aliases = detail::load_file(alias_file);
  if (aliases.IsMap())
    for (auto it = aliases.begin(); it != aliases.end(); ++it) keys.push_back(it->first.as<std::string>());
  return keys;
}

// Whether `path` names something on disk; a path the system cannot even look up (a component
// over its name limit) is the user's input error, named, not a filesystem_error (issue 14).
bool path_exists(const std::string& path) {
  std::error_code ec;
  const bool found = fs::exists(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw InputError("'" + path + "': " + ec.message());
  return found;
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || s.ends_with(".yaml") || s.ends_with(".yml") ||
         s.ends_with(".json");
}

}  // namespace

Catalogue::Catalogue(std::string root) : root_(std::move(root)) {
  if (!fs::is_directory(fs::path(root_) / "hardware"))
    throw InputError("catalogue folder '" + root_ + "' has no hardware/ folder; set PERFMODEL_DATA_DIR "
                     "to the folder that holds hardware/ and models/");
}

std::vector<std::string> Catalogue::card_keys() const { return yaml_stems(root_ + "/hardware"); }
std::vector<std::string> Catalogue::model_keys() const { return yaml_stems(root_ + "/models"); }

std::string Catalogue::resolve(const std::string& dir, const std::string& name) const {
  const std::string n = lower(name);
  const auto keys = yaml_stems(root_ + "/" + dir);
  if (std::find(keys.begin(), keys.end(), n) != keys.end()) return n;
  const std::string alias_file = root_ + "/" + dir + "/aliases.yaml";
  if (fs::exists(alias_file)) {
    YAML::Node aliases = detail::load_file(alias_file);
    if (aliases.IsMap() && aliases[n]) return aliases[n].as<std::string>();
  }
  return "";
}

std::string Catalogue::card_key(const std::string& name) const { return resolve("hardware", name); }
std::string Catalogue::model_key(const std::string& name) const { return resolve("models", name); }

std::string Catalogue::calibration_path(const std::string& key) const {
  return root_ + "/hardware/" + key + ".calibration.yaml";
}

Card Catalogue::card(const std::string& name) const {
  if (looks_like_path(name) && path_exists(name)) {
    Card c = load_card_file(name);
    c.key = fs::path(name).stem().string();
    return c;
  }
  std::string key = card_key(name);
  if (key.empty()) {
    std::string close = detail::close_names(lower(name), with_aliases(card_keys(), root_ + "/hardware/aliases.yaml"));
    throw InputError("unknown card '" + name + "'" + (close.empty() ? "" : "; did you mean " + close + "?") +
                     " (`perfmodel cards` lists them)");
  }
  Card c = load_card_file(root_ + "/hardware/" + key + ".yaml");
  c.key = key;
  return c;
}

Model Catalogue::model(const std::string& name) const {
  std::string key;
  if (looks_like_path(name)) {
    if (path_exists(name)) return load_model_file(name);
    // A Hugging Face repo id (org/name, e.g. Qwen/Qwen3-30B-A3B) that is not a local folder: the catalogue's model or
    // alias of that name; the same architecture whatever the org.
    const size_t slash = name.find('/');
    const bool repo_id = slash != std::string::npos && slash > 0 && name.find('/', slash + 1) == std::string::npos &&
                         name.front() != '.' && !name.ends_with(".yaml") && !name.ends_with(".yml") &&
                         !name.ends_with(".json");
    if (repo_id) key = model_key(name.substr(slash + 1));
    if (key.empty())
      throw InputError("model file '" + name + "' does not exist" +
                       (repo_id ? ", and no catalogue model or alias is named '" + name.substr(slash + 1) +
                                      "' (`perfmodel models` lists them)"
                                : std::string()));
  } else {
    key = model_key(name);
  }
  if (key.empty()) {
    std::string close = detail::close_names(lower(name), with_aliases(model_keys(), root_ + "/models/aliases.yaml"));
    throw InputError("unknown model '" + name + "'" + (close.empty() ? "" : "; did you mean " + close + "?") +
                     " (`perfmodel models` lists them; a path to a YAML file or an HF config.json also works)");
  }
  Model m = load_model_file(root_ + "/models/" + key + ".yaml");
  m.key = key;
  return m;
}

std::string default_data_root(const std::string& argv0) {
  if (const char* env = std::getenv("PERFMODEL_DATA_DIR")) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) exe = fs::path(argv0);
  fs::path installed = exe.parent_path() / ".." / "share" / "perfmodel";
  if (fs::is_directory(installed / "hardware")) return fs::weakly_canonical(installed).string();
#ifdef PERFMODEL_SOURCE_DIR
  if (fs::is_directory(fs::path(PERFMODEL_SOURCE_DIR) / "hardware")) return PERFMODEL_SOURCE_DIR;
#endif
  return ".";
}

}  // namespace perfmodel
