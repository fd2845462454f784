#include "yaml_reader.hpp"

#include <algorithm>
#include <limits>

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
}

std::string MapReader::child_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void MapReader::fail(const std::string& key, const std::string& what) const {
  YAML::Mark m = node_.Mark();
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.as<std::string>() == key) {
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
    if (it->first.as<std::string>() == key) return true;
  return false;
}

std::vector<std::string> MapReader::keys() const {
  std::vector<std::string> out;
  for (auto it = node_.begin(); it != node_.end(); ++it) out.push_back(it->first.as<std::string>());
  return out;
}

YAML::Node MapReader::get(const std::string& key) {
  used_.insert(key);
  for (auto it = node_.begin(); it != node_.end(); ++it)
    if (it->first.as<std::string>() == key) return it->second;
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
  return n.as<std::string>();
}

std::optional<double> MapReader::opt_number(const std::string& key) {
  auto s = opt_str(key);
  if (!s) return std::nullopt;
  try {
    size_t pos = 0;
    double v = std::stod(*s, &pos);
    if (pos != s->size()) throw std::invalid_argument("trailing");
    return v;
  } catch (const std::exception&) {
    fail(key, "'" + *s + "' is not a number");
  }
}

std::optional<int64_t> MapReader::opt_integer(const std::string& key, int64_t min_value) {
  auto s = opt_str(key);
  if (!s) return std::nullopt;
  int64_t v = 0;
  try {
    size_t pos = 0;
    long long x = std::stoll(*s, &pos);
    if (pos != s->size()) throw std::invalid_argument("trailing");
    v = x;
  } catch (const std::exception&) {
    fail(key, "'" + *s + "' is not an integer");
  }
  if (v < min_value) fail(key, "must be at least " + std::to_string(min_value) + ", got " + *s);
  return v;
}

int64_t MapReader::integer(const std::string& key, int64_t min_value) {
  auto v = opt_integer(key, min_value);
  if (!v) fail_here("missing required field '" + key + "'");
  return *v;
}

std::optional<int64_t> MapReader::opt_nullable_integer(const std::string& key) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  return opt_integer(key, 0);
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

std::optional<double> MapReader::opt_quantity(const std::string& key, Dimension dim, bool allow_zero) {
  auto s = opt_str(key);
  if (!s) return std::nullopt;
  std::string why;
  auto v = parse_quantity(*s, dim, &why, allow_zero);
  if (!v) fail(key, why);
  return v;
}

double MapReader::quantity(const std::string& key, Dimension dim) {
  auto v = opt_quantity(key, dim);
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
    std::string k = it->first.as<std::string>();
    if (used_.count(k)) continue;
    YAML::Mark m = it->first.Mark();
    std::string hint = close_names(k, known);
    throw ConfigError(file_, m.line + 1, m.column + 1, child_path(k),
                      "unknown key '" + k + "'" +
                          (hint.empty() ? "" : "; did you mean " + hint + "?"));
  }
}

YAML::Node load_file(const std::string& file) {
  try {
    return YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw ConfigError(file, 0, 0, "", "cannot open file");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(file, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
}

}  // namespace perfmodel::detail
