#include "perfmodel/report.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "perfmodel/text.hpp"
#include "perfmodel/units.hpp"
#include "perfmodel/version.hpp"

namespace perfmodel {

Node Node::number(double v, Hint h) {
  Node n;
  n.kind_ = Kind::number;
  n.number_ = v;
  n.hint_ = h;
  return n;
}
Node Node::integer(int64_t v) {
  Node n = number(static_cast<double>(v), Hint::integer);
  n.is_integer_ = true;
  return n;
}
Node Node::text(std::string s) {
  Node n;
  n.kind_ = Kind::string;
  n.string_ = std::move(s);
  n.hint_ = Hint::text;
  return n;
}
Node Node::boolean(bool b) {
  Node n;
  n.kind_ = Kind::boolean;
  n.bool_ = b;
  return n;
}
Node Node::array() {
  Node n;
  n.kind_ = Kind::array;
  return n;
}
Node Node::object() {
  Node n;
  n.kind_ = Kind::object;
  return n;
}

Node& Node::set(const std::string& key, Node value) {
  for (auto& [k, v] : items_)
    if (k == key) return v = std::move(value);
  items_.emplace_back(key, std::move(value));
  return items_.back().second;
}

const Node* Node::find(const std::string& key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return &v;
  return nullptr;
}

const Node* Node::at_path(const std::string& path) const {
  const Node* cur = this;
  size_t start = 0;
  while (cur && start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty()) break;
    cur = cur->find(part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

Node& Node::push(Node value) {
  elements_.push_back(std::move(value));
  return elements_.back();
}

Node make_meta(const std::string& command, const std::vector<std::string>& argv) {
  Node meta = Node::object();
  meta.set("schema_version", Node::integer(kSchemaVersion));
  meta.set("perfmodel_version", Node::text(kVersion));
  meta.set("git_sha", Node::text(kGitSha));
  meta.set("git_dirty", Node::boolean(kGitDirty));
  meta.set("command", Node::text(command));
  Node args = Node::array();
  for (const auto& a : argv) args.push(Node::text(a));
  meta.set("argv", std::move(args));
  return meta;
}

std::string format_value(const Node& v, Hint hint) {
  char buf[64];
  switch (v.kind()) {
    case Node::Kind::null: return "-";
    case Node::Kind::boolean: return v.as_bool() ? "yes" : "no";
    case Node::Kind::string: return v.as_string();
    case Node::Kind::array:
    case Node::Kind::object: return "...";
    case Node::Kind::number: break;
  }
  const double x = v.as_number();
  if (hint == Hint::none) hint = v.hint();
  switch (hint) {
    case Hint::integer: std::snprintf(buf, sizeof buf, "%.0f", x); return buf;
    case Hint::time: return format_time(x);
    case Hint::bytes: return format_si(x, "B");
    case Hint::flops: return format_si(x, "FLOP");
    case Hint::flop_rate: return format_si(x, "FLOP/s");
    case Hint::byte_rate: return format_si(x, "B/s");
    case Hint::ratio: std::snprintf(buf, sizeof buf, "%.2fx", x); return buf;
    case Hint::percent: std::snprintf(buf, sizeof buf, "%.1f%%", x * 100); return buf;
    case Hint::intensity: std::snprintf(buf, sizeof buf, "%.3g", x); return buf;
    default:
      // Plain numbers: 4 significant digits, but no exponent below a billion (tokens/s).
      if (std::fabs(x) >= 1e4 && std::fabs(x) < 1e9) std::snprintf(buf, sizeof buf, "%.0f", x);
      else std::snprintf(buf, sizeof buf, "%.4g", x);
      return buf;
  }
}

namespace {

// The shortest text that reads back as the same double (exact SI values in JSON and CSV).
std::string shortest(double x) {
  char b[40];
  auto r = std::to_chars(b, b + sizeof b, x);
  return std::string(b, r.ptr);
}

void json_string(std::ostringstream& o, const std::string& s) { o << '"' << json_escape(s) << '"'; }

void json(std::ostringstream& o, const Node& n, int indent, int depth) {
  const std::string pad(static_cast<size_t>(indent * (depth + 1)), ' ');
  const std::string end_pad(static_cast<size_t>(indent * depth), ' ');
  const char* nl = indent > 0 ? "\n" : "";
  switch (n.kind()) {
    case Node::Kind::null: o << "null"; break;
    case Node::Kind::boolean: o << (n.as_bool() ? "true" : "false"); break;
    case Node::Kind::string: json_string(o, n.as_string()); break;
    case Node::Kind::number: {
      double x = n.as_number();
      if (!std::isfinite(x)) {
        o << "null";
      } else if (n.is_integer()) {
        o << static_cast<int64_t>(x);
      } else {
        o << shortest(x);
      }
      break;
    }
    case Node::Kind::array: {
      if (n.elements().empty()) {
        o << "[]";
        break;
      }
      o << "[" << nl;
      for (size_t i = 0; i < n.elements().size(); ++i) {
        o << pad;
        json(o, n.elements()[i], indent, depth + 1);
        o << (i + 1 < n.elements().size() ? "," : "") << nl;
      }
      o << end_pad << "]";
      break;
    }
    case Node::Kind::object: {
      if (n.items().empty()) {
        o << "{}";
        break;
      }
      o << "{" << nl;
      for (size_t i = 0; i < n.items().size(); ++i) {
        o << pad;
        json_string(o, n.items()[i].first);
        o << (indent > 0 ? ": " : ":");
        json(o, n.items()[i].second, indent, depth + 1);
        o << (i + 1 < n.items().size() ? "," : "") << nl;
      }
      o << end_pad << "}";
      break;
    }
  }
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Raw value for CSV: numbers unformatted (SI), strings as is.
std::string raw(const Node* v) {
  if (!v) return "";
  switch (v->kind()) {
    case Node::Kind::number:
      if (!std::isfinite(v->as_number())) return "";
      if (v->is_integer()) return std::to_string(static_cast<int64_t>(v->as_number()));
      return shortest(v->as_number());
    case Node::Kind::string: return v->as_string();
    case Node::Kind::boolean: return v->as_bool() ? "true" : "false";
    default: return "";
  }
}

}  // namespace

std::string to_json(const Node& n, int indent) {
  std::ostringstream o;
  json(o, n, indent, 0);
  o << "\n";
  return o.str();
}

std::string render_table(const Report& r) {
  std::ostringstream o;
  for (const FieldsView& f : r.fields) {
    const Node* obj = r.root.at_path(f.path);
    if (!obj) continue;
    if (!f.title.empty()) o << f.title << "\n";
    size_t width = 0;
    for (const Column& c : f.fields) width = std::max(width, c.header.size());
    for (const Column& c : f.fields) {
      const Node* v = obj->at_path(c.key);
      if (!v) continue;
      o << "  " << c.header << std::string(width - c.header.size() + 2, ' ') << format_value(*v, c.hint) << "\n";
    }
    o << "\n";
  }
  for (const TableView& t : r.tables) {
    const Node* arr = r.root.at_path(t.path);
    if (!arr) continue;
    std::vector<std::vector<std::string>> cells;
    std::vector<size_t> width;
    for (const Column& c : t.columns) width.push_back(c.header.size());
    for (const Node& row : arr->elements()) {
      std::vector<std::string> line;
      for (size_t i = 0; i < t.columns.size(); ++i) {
        const Node* v = row.at_path(t.columns[i].key);
        std::string s = v ? format_value(*v, t.columns[i].hint) : "-";
        width[i] = std::max(width[i], s.size());
        line.push_back(std::move(s));
      }
      cells.push_back(std::move(line));
    }
    if (!t.title.empty()) o << t.title << "\n";
    auto print_row = [&](const std::vector<std::string>& line) {
      for (size_t i = 0; i < line.size(); ++i) {
        // Text columns left-aligned, numbers right-aligned.
        const bool left = t.columns[i].hint == Hint::text;
        const std::string gap(width[i] - line[i].size(), ' ');
        o << (i ? "  " : "") << (left ? line[i] + gap : gap + line[i]);
      }
      o << "\n";
    };
    std::vector<std::string> header;
    for (const Column& c : t.columns) header.push_back(c.header);
    print_row(header);
    size_t total = 0;
    for (size_t i = 0; i < width.size(); ++i) total += width[i] + (i ? 2 : 0);
    o << std::string(total, '-') << "\n";
    for (const auto& line : cells) print_row(line);
    o << "\n";
  }
  for (const std::string& n : r.notes) o << n << "\n";
  return o.str();
}

std::string render_csv(const Report& r) {
  std::ostringstream o;
  if (!r.tables.empty()) {
    const TableView& t = r.tables.front();
    const Node* arr = r.root.at_path(t.path);
    for (size_t i = 0; i < t.columns.size(); ++i) o << (i ? "," : "") << csv_cell(t.columns[i].key);
    o << "\n";
    if (arr)
      for (const Node& row : arr->elements()) {
        for (size_t i = 0; i < t.columns.size(); ++i) o << (i ? "," : "") << csv_cell(raw(row.at_path(t.columns[i].key)));
        o << "\n";
      }
    return o.str();
  }
  // No table: one header line and one value line of the fields.
  std::vector<std::string> keys, values;
  for (const FieldsView& f : r.fields) {
    const Node* obj = r.root.at_path(f.path);
    if (!obj) continue;
    for (const Column& c : f.fields) {
      keys.push_back(f.path.empty() ? c.key : f.path + "." + c.key);
      values.push_back(raw(obj->at_path(c.key)));
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) o << (i ? "," : "") << csv_cell(keys[i]);
  o << "\n";
  for (size_t i = 0; i < values.size(); ++i) o << (i ? "," : "") << csv_cell(values[i]);
  o << "\n";
  return o.str();
}

}  // namespace perfmodel
