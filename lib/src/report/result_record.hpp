#pragma once
// Typed reading of one JSON object of a result file (results.hpp), through yaml-cpp so every
// error carries the line and column of the offending value: ConfigError "file:line:col: path:
// what". Unlike MapReader (yaml_reader.hpp, for hand-written YAML) it tolerates keys it is not
// asked for — result files carry many diagnostics the library does not use, and
// `schema_version` is what guards their shape — and it tells JSON's types apart: a quoted
// "1.5" is a string, not a number; null is "not measured", not zero.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel::detail {

class Record {
 public:
  Record(YAML::Node node, std::string file, std::string path);

  bool has(const std::string& key) const;
  // Required values: ConfigError when absent, null or of another type.
  std::string str(const std::string& key) const;
  double number(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  bool boolean(const std::string& key) const;
  Record object(const std::string& key) const;
  std::vector<Record> list(const std::string& key) const;
  // Optional values: absent -> the default; present -> must have the type.
  std::string opt_str(const std::string& key, const std::string& absent = "") const;
  double opt_number(const std::string& key, double absent = 0) const;
  int64_t opt_integer(const std::string& key, int64_t absent = 0) const;
  bool opt_boolean(const std::string& key, bool absent = false) const;
  // A number that may be null ("not measured"): nullopt when absent or null.
  std::optional<double> nullable_number(const std::string& key) const;

  // Checks `key` holds the integer `expected` (the files' schema_version).
  void require_version(const std::string& key, int64_t expected) const;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  const std::string& file() const { return file_; }

 private:
  YAML::Node value(const std::string& key) const;  // required: present and not null
  YAML::Node node_;
  std::string file_, path_;
};

// The top-level object of a result file.
Record load_record(const std::string& file);
// ... of JSON text held in memory; `source` names it in errors.
Record parse_record(const std::string& text, const std::string& source);

}  // namespace perfmodel::detail
