#pragma once
// Strict reading of one YAML mapping: every key must be declared (required or optional) before
// it is read, unknown keys are errors with file:line:col and a "did you mean", values with units
// go through parse_quantity and every number is range-checked after its unit is applied (issue 14).
// Keys must be single values and appear once: yaml-cpp keeps both copies of a duplicate key and
// its lookup returns the first, while Python's json (and so transformers) keeps the last, so a
// duplicate is refused rather than resolved either way. The only code besides the loaders that
// touches yaml-cpp.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "perfmodel/errors.hpp"
#include "perfmodel/text.hpp"
#include "perfmodel/units.hpp"

namespace perfmodel::detail {

using perfmodel::edit_distance;  // text.hpp
// The closest names within a small distance, comma separated ("" if none).
std::string close_names(const std::string& name, const std::vector<std::string>& candidates);

inline constexpr double kNoLimit = std::numeric_limits<double>::max();
inline constexpr int64_t kNoIntLimit = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kIntMax = std::numeric_limits<int>::max();

class MapReader {
 public:
  MapReader(YAML::Node node, std::string file, std::string path);

  bool has(const std::string& key) const;
  // Required values: throw ConfigError when absent or malformed.
  std::string str(const std::string& key);
  // Integers lie in [min_value, max_value]; fields stored as int pass max_value <= kIntMax.
  int64_t integer(const std::string& key, int64_t min_value = 1, int64_t max_value = kNoIntLimit);
  bool boolean(const std::string& key);
  // Quantities are finite and at most max_si (in SI units, after the unit factor).
  double quantity(const std::string& key, Dimension dim, double max_si = kNoLimit);
  MapReader map(const std::string& key);
  // Optional values.
  std::optional<std::string> opt_str(const std::string& key);
  std::optional<int64_t> opt_integer(const std::string& key, int64_t min_value = 1,
                                     int64_t max_value = kNoIntLimit);
  std::optional<bool> opt_boolean(const std::string& key);
  std::optional<double> opt_quantity(const std::string& key, Dimension dim, bool allow_zero = false,
                                     double max_si = kNoLimit);
  // A finite plain number in [min_value, max_value] (inf, nan and .inf are refused).
  std::optional<double> opt_number(const std::string& key, double min_value = -kNoLimit,
                                   double max_value = kNoLimit);
  std::optional<MapReader> opt_map(const std::string& key);
  // Null-or-integer (HF configs: "sliding_window": null).
  std::optional<int64_t> opt_nullable_integer(const std::string& key, int64_t min_value = 0,
                                              int64_t max_value = kNoIntLimit);
  // Null-or-number (HF configs: "final_logit_softcapping": null).
  std::optional<double> opt_nullable_number(const std::string& key, double min_value = -kNoLimit,
                                            double max_value = kNoLimit);
  // Keys of the mapping, in file order.
  std::vector<std::string> keys() const;

  // Marks keys that are allowed but ignored (e.g. HF training fields).
  void ignore(const std::vector<std::string>& keys);
  // Throws ConfigError for the first key never read nor ignored.
  void finish() const;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  [[noreturn]] void fail_here(const std::string& what) const;
  const std::string& file() const { return file_; }
  std::string child_path(const std::string& key) const;

 private:
  YAML::Node get(const std::string& key);
  // Refuses keys that are sequences or mappings and keys given twice.
  void check_keys() const;
  YAML::Node node_;
  std::string file_, path_;
  std::set<std::string> used_;
};

// Loads a YAML (or JSON) file, turning parse errors into ConfigError; a directory, a missing file
// or an unusable path (a component over the system's name limit) is one ConfigError line.
YAML::Node load_file(const std::string& file);

}  // namespace perfmodel::detail
