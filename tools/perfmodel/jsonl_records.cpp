// A JSON object a line, read with file:line in every error (jsonl_records.hpp).
#include "jsonl_records.hpp"

#include <fstream>

namespace perfmodel::cli {

double JsonRecord::time(const char* key) const {
  const auto v = field<double>(key, "a time in seconds");
  // A recorded kernel or step runs microseconds to seconds; an hour is no measurement (and its arithmetic overflows).
  if (!(v > 0) || !(v <= 3600))
    throw InputError(where + ": field '" + key + "': a positive time in seconds, at most 3600, not " +
                     node[key].as<std::string>());
  return v;
}

int64_t JsonRecord::count(const char* key, int64_t most) const {
  const auto v = field<int64_t>(key, "a whole number");
  if (v < 1 || v > most)
    throw InputError(where + ": field '" + key + "': 1 to " + std::to_string(most) + ", not " + std::to_string(v));
  return v;
}

Model JsonRecord::model(const Catalogue& cat, const char* key) const {
  const auto name = field<std::string>(key, "a catalogue model key");
  try {
    return cat.model(name);
  } catch (const InputError& e) {
    throw InputError(where + ": field '" + key + "': " + e.what());
  }
}

void for_each_json_record(const std::string& path, const std::string& writer, const std::function<void(const JsonRecord&)>& each) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read the recorded steps (" + writer + " writes them)");
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    JsonRecord r;
    r.where = path + ":" + std::to_string(line_no);
    r.writer = writer;
    try {
      r.node = YAML::Load(line);
    } catch (const std::exception& e) {
      throw InputError(r.where + ": not a JSON object a line (" + writer + "'s records): " + e.what());
    }
    if (!r.node.IsMap()) throw InputError(r.where + ": not a JSON object a line (" + writer + "'s records)");
    each(r);
  }
}

}  // namespace perfmodel::cli
