#pragma once
// Recorded measurements a JSON object a line (the validation scripts' .jsonl files: fused_step_alone.py's
// results.jsonl, compiled_gaps.py's records), read with each bad line and field named (file:line).
#include <functional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "perfmodel/catalogue.hpp"
#include "perfmodel/errors.hpp"
#include "perfmodel/model.hpp"

namespace perfmodel::cli {

// One line's object and where it is; field() converts one field, naming it (and the script that writes it) when it is
// missing or of the wrong kind.
struct JsonRecord {
  YAML::Node node;
  std::string where;   // path:line
  std::string writer;  // the script that writes the file, for "missing" errors

  template <typename T>
  T field(const char* key, const char* what) const {
    const YAML::Node n = node[key];
    if (!n) throw InputError(where + ": field '" + key + "' missing (" + writer + " writes it)");
    try {
      return n.as<T>();
    } catch (const YAML::Exception&) {
      throw InputError(where + ": field '" + key + "': " + what + ", not '" + (n.IsScalar() ? n.Scalar() : "a list or object") + "'");
    }
  }
  double time(const char* key) const;                    // a positive time in seconds, at most an hour
  int64_t count(const char* key, int64_t most) const;    // a whole number in [1, most]
  Model model(const Catalogue& cat, const char* key) const;  // a catalogue model key
};

// Calls `each` for every non-blank line of `path`, a JSON object a line (written by `writer`); throws InputError for a
// file that cannot be read or a line that is not a JSON object.
void for_each_json_record(const std::string& path, const std::string& writer, const std::function<void(const JsonRecord&)>& each);

}  // namespace perfmodel::cli
