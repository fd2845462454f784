#include "result_record.hpp"

#include <cmath>

#include "perfmodel/errors.hpp"
#include "catalogue/yaml_reader.hpp"

namespace perfmodel::detail {

namespace {

// yaml-cpp tags a quoted scalar "!" and a plain one "?" (YAML 1.2 spec, 6.9.1): in JSON a
// quoted scalar is a string, a plain one a number, true, false or null.
bool quoted(const YAML::Node& n) { return n.Tag() == "!"; }

std::string kind_of(const YAML::Node& n) {
  if (n.IsNull()) return "null";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "an object";
  if (quoted(n)) return "a string";
  const std::string s = n.Scalar();
  if (s == "true" || s == "false") return "true/false";
  return "'" + s + "'";
}

}  // namespace

Record::Record(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

bool Record::has(const std::string& key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it)
    if (it->first.Scalar() == key) return true;
  return false;
}

void Record::fail(const std::string& key, const std::string& what) const {
  YAML::Mark m = node_.Mark();
  for (auto it = node_.begin(); it != node_.end(); ++it)
    if (it->first.Scalar() == key) {
      m = it->second.Mark();
      break;
    }
  const std::string path = key.empty() ? path_ : path_.empty() ? key : path_ + "." + key;
  throw ConfigError(file_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, path, what);
}

YAML::Node Record::value(const std::string& key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it)
    if (it->first.Scalar() == key) {
      if (it->second.IsNull()) fail(key, "is null, expected a value");
      return it->second;
    }
  fail(key, "missing required field '" + key + "'");
}

std::string Record::str(const std::string& key) const {
  const YAML::Node n = value(key);
  if (!n.IsScalar() || !quoted(n)) fail(key, "expected a string, got " + kind_of(n));
  return n.Scalar();
}

double Record::number(const std::string& key) const {
  const YAML::Node n = value(key);
  if (!n.IsScalar() || quoted(n)) fail(key, "expected a number, got " + kind_of(n));
  double v = 0;
  if (!YAML::convert<double>::decode(n, v)) fail(key, "expected a number, got " + kind_of(n));
  if (!std::isfinite(v)) fail(key, "expected a finite number, got " + kind_of(n));
  return v;
}

int64_t Record::integer(const std::string& key) const {
  const YAML::Node n = value(key);
  int64_t v = 0;
  if (!n.IsScalar() || quoted(n) || !YAML::convert<int64_t>::decode(n, v))
    fail(key, "expected an integer, got " + kind_of(n));
  return v;
}

bool Record::boolean(const std::string& key) const {
  const YAML::Node n = value(key);
  if (!n.IsScalar() || quoted(n) || (n.Scalar() != "true" && n.Scalar() != "false"))
    fail(key, "expected true or false, got " + kind_of(n));
  return n.Scalar() == "true";
}

Record Record::object(const std::string& key) const {
  const YAML::Node n = value(key);
  if (!n.IsMap()) fail(key, "expected an object, got " + kind_of(n));
  return Record(n, file_, path_.empty() ? key : path_ + "." + key);
}

std::vector<Record> Record::list(const std::string& key) const {
  const YAML::Node n = value(key);
  if (!n.IsSequence()) fail(key, "expected a list, got " + kind_of(n));
  std::vector<Record> out;
  const std::string base = path_.empty() ? key : path_ + "." + key;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string at = base + "[" + std::to_string(i) + "]";
    if (!n[i].IsMap()) {
      const YAML::Mark m = n[i].Mark();
      throw ConfigError(file_, m.line + 1, m.column + 1, at, "expected an object, got " + kind_of(n[i]));
    }
    out.emplace_back(n[i], file_, at);
  }
  return out;
}

std::string Record::opt_str(const std::string& key, const std::string& absent) const {
  return has(key) ? str(key) : absent;
}
double Record::opt_number(const std::string& key, double absent) const { return has(key) ? number(key) : absent; }
int64_t Record::opt_integer(const std::string& key, int64_t absent) const { return has(key) ? integer(key) : absent; }
bool Record::opt_boolean(const std::string& key, bool absent) const { return has(key) ? boolean(key) : absent; }

std::optional<double> Record::nullable_number(const std::string& key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it)
    if (it->first.Scalar() == key) return it->second.IsNull() ? std::nullopt : std::optional<double>(number(key));
  return std::nullopt;
}

void Record::require_version(const std::string& key, int64_t expected) const {
  const int64_t v = integer(key);
  if (v != expected)
    fail(key, "version " + std::to_string(v) + " is not supported (this perfmodel reads version " +
                  std::to_string(expected) + ")");
}

Record load_record(const std::string& file) {
  const YAML::Node root = load_file(file);
  if (!root.IsMap()) throw ConfigError(file, 1, 1, "", "expected a JSON object");
  return Record(root, file, "");
}

Record parse_record(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(source, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
  if (!root.IsMap()) throw ConfigError(source, 1, 1, "", "expected a JSON object");
  return Record(root, source, "");
}

}  // namespace perfmodel::detail
