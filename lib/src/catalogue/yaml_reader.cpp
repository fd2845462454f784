#include "catalogue/yaml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>

namespace perfmodel::detail {

std::string close_names(const std::string& name, const std::vector<std::string>& candidates) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) {
    size_t d = edit_distance(name, c);
    bool substring = !name.empty() && (c.find(name) != std::string::npos ||
                                       name.find(c) != std::string::npos);
    if (d <= std::max<size_t>(2, name.size() / 3) || substring) scored.emplace_back(d, c);
  }
  std::sort(scored.begin(), scored.end());
  std::string out;
  for (size_t i = 0; i < scored.size() && i < 4; ++i) {
    if (!out.empty()) out += ", ";
    out += scored[i].second;
  }
  return out;
}

MapReader::MapReader(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {
  if (!node_.IsMap()) fail_here("expected a mapping of keys to values");
  check_keys();
}

void MapReader::check_keys() const {
  std::map<std::string, int> first_line;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const YAML::Mark m = it->first.Mark();
    if (!it->first.IsScalar())
      throw ConfigError(file_, m.line + 1, m.column + 1, path_,
                        "a key must be a single name, not a sequence or mapping");
    const std::string k = it->first.Scalar();
    auto [at, inserted] = first_line.emplace(k, m.line + 1);
    if (!inserted)
      throw ConfigError(file_, m.line + 1, m.column + 1, child_path(k),
                        "duplicate key '" + k + "' (first given on line " + std::to_string(at->second) +
                            "); give each key once");
  }
}

std::string MapReader::child_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void MapReader::fail(const std::string& key, const std::string& what) const {
  YAML::Mark m = node_.Mark();
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.Scalar() == key) {
      m = it->second.Mark();
      break;
    }
  }
  throw ConfigError(file_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0,
                    child_path(key), what);
}

void MapReader::fail_here(const std::string& what) const {
  YAML::Mark m = node_.Mark();
  throw ConfigError(file_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0,
                    path_, what);
}

bool MapReader::has(const std::string& key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it)
    if (it->first.Scalar() == key) return true;
  return false;
}

std::vector<std::string> MapReader::keys() const {
  std::vector<std::string> out;
  for (auto it = node_.begin(); it != node_.end(); ++it) out.push_back(it->first.Scalar());
  return out;
}

YAML::Node MapReader::get(const std::string& key) {
  used_.insert(key);
  for (auto it = node_.begin(); it != node_.end(); ++it)
    if (it->first.Scalar() == key) return it->second;
  return YAML::Node();
}

std::string MapReader::str(const std::string& key) {
  auto v = opt_str(key);
  if (!v) fail_here("missing required field '" + key + "'");
  return *v;
}

std::optional<std::string> MapReader::opt_str(const std::string& key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  if (!n.IsScalar()) fail(key, "expected a single value");
  return n.Scalar();
}

namespace {
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
}  // namespace

std::optional<double> MapReader::opt_number(const std::string& key, double min_value, double max_value) {
  auto s = opt_str(key);
  if (!s) return std::nullopt;
  double v = 0;
  try {
    size_t pos = 0;
    v = std::stod(*s, &pos);
    if (pos != s->size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    fail(key, "'" + *s + "' is not a number");
  }
  if (!std::isfinite(v)) fail(key, "'" + *s + "' is not a finite number");
  if (v < min_value || v > max_value)
    fail(key, "must be between " + number_text(min_value) + " and " + number_text(max_value) + ", got " + *s);
  return v;
}

std::optional<int64_t> MapReader::opt_integer(const std::string& key, int64_t min_value, int64_t max_value) {
  auto s = opt_str(key);
  if (!s) return std::nullopt;
  int64_t v = 0;
  try {
    size_t pos = 0;
    long long x = std::stoll(*s, &pos);
    if (pos != s->size()) throw std::invalid_argument("trailing");
    v = x;
  } catch (const std::out_of_range&) {
    fail(key, "'" + *s + "' is out of range; must be at most " + std::to_string(max_value));
  } catch (const std::exception&) {
    fail(key, "'" + *s + "' is not an integer");
  }
  if (v < min_value) fail(key, "must be at least " + std::to_string(min_value) + ", got " + *s);
  if (v > max_value) fail(key, "must be at most " + std::to_string(max_value) + ", got " + *s);
  return v;
}

int64_t MapReader::integer(const std::string& key, int64_t min_value, int64_t max_value) {
  auto v = opt_integer(key, min_value, max_value);
  if (!v) fail_here("missing required field '" + key + "'");
  return *v;
}

std::optional<int64_t> MapReader::opt_nullable_integer(const std::string& key, int64_t min_value,
                                                        int64_t max_value) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return opt_integer(key, min_value, max_value);
}

std::optional<double> MapReader::opt_nullable_number(const std::string& key, double min_value, double max_value) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return opt_number(key, min_value, max_value);
}

std::optional<bool> MapReader::opt_boolean(const std::string& key) {
  auto s = opt_str(key);
  if (!s) return std::nullopt;
  if (*s == "true" || *s == "True") return true;
  if (*s == "false" || *s == "False") return false;
  fail(key, "'" + *s + "' is not true or false");
}

bool MapReader::boolean(const std::string& key) {
  auto v = opt_boolean(key);
  if (!v) fail_here("missing required field '" + key + "'");
  return *v;
}

std::optional<double> MapReader::opt_quantity(const std::string& key, Dimension dim, bool allow_zero,
                                              double max_si) {
  auto s = opt_str(key);
  if (!s) return std::nullopt;
  std::string why;
  auto v = parse_quantity(*s, dim, &why, allow_zero);
  if (!v) fail(key, why);
  if (*v > max_si) fail(key, "'" + *s + "' is out of range; must be at most " + number_text(max_si) + " in SI units");
  return v;
}

double MapReader::quantity(const std::string& key, Dimension dim, double max_si) {
  auto v = opt_quantity(key, dim, false, max_si);
  if (!v) fail_here("missing required field '" + key + "' (" + std::string(to_string(dim)) + ")");
  return *v;
}

std::optional<MapReader> MapReader::opt_map(const std::string& key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  if (!n.IsMap()) fail(key, "expected a mapping");
  return MapReader(n, file_, child_path(key));
}

MapReader MapReader::map(const std::string& key) {
  auto m = opt_map(key);
  if (!m) fail_here("missing required section '" + key + "'");
  return *m;
}

void MapReader::ignore(const std::vector<std::string>& keys) {
  for (const auto& k : keys) used_.insert(k);
}

void MapReader::finish() const {
  std::vector<std::string> known(used_.begin(), used_.end());
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    std::string k = it->first.Scalar();
    if (used_.count(k)) continue;
    YAML::Mark m = it->first.Mark();
    std::string hint = close_names(k, known);
    throw ConfigError(file_, m.line + 1, m.column + 1, child_path(k),
                      "unknown key '" + k + "'" +
                          (hint.empty() ? "" : "; did you mean " + hint + "?"));
  }
}

YAML::Node load_file(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw ConfigError(file, 0, 0, "", "cannot open file: " + ec.message());
  if (!ec && fs::is_directory(st)) throw ConfigError(file, 0, 0, "", "is a directory, not a file");
  try {
    return YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw ConfigError(file, 0, 0, "", "cannot open file");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(file, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  } catch (const YAML::Exception& e) {
    throw ConfigError(file, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
}

}  // namespace perfmodel::detail
