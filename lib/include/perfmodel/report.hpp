#pragma once
// One result tree per command (nvbench's habit): values in SI base units, each with a
// formatting hint. The table, CSV and JSON printers all draw from it; model code never formats
// a number.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace perfmodel {

// How a number is shown in tables (JSON always carries the raw SI value).
enum class Hint { none, integer, time, bytes, flops, flop_rate, byte_rate, ratio, percent, intensity, text };

class Node {
 public:
  enum class Kind { null, boolean, number, string, array, object };
  Node() = default;
  static Node number(double v, Hint h = Hint::none);
  static Node integer(int64_t v);
  static Node text(std::string s);
  static Node boolean(bool b);
  static Node array();
  static Node object();

  Kind kind() const { return kind_; }
  double as_number() const { return number_; }
  bool as_bool() const { return bool_; }
  const std::string& as_string() const { return string_; }
  Hint hint() const { return hint_; }
  bool is_integer() const { return is_integer_; }

  // Object access (insertion-ordered). set() replaces an existing key.
  Node& set(const std::string& key, Node value);
  const Node* find(const std::string& key) const;
  const std::vector<std::pair<std::string, Node>>& items() const { return items_; }
  // Dotted path lookup ("step.time_s").
  const Node* at_path(const std::string& path) const;
  // Array access.
  Node& push(Node value);
  const std::vector<Node>& elements() const { return elements_; }

 private:
  Kind kind_ = Kind::null;
  double number_ = 0;
  bool bool_ = false;
  bool is_integer_ = false;
  Hint hint_ = Hint::none;
  std::string string_;
  std::vector<std::pair<std::string, Node>> items_;
  std::vector<Node> elements_;
};

// What the table and CSV printers show of the tree.
struct Column {
  std::string key;     // key within each row object
  std::string header;  // column title
  Hint hint = Hint::none;
};
struct TableView {
  std::string title;
  std::string path;  // dotted path to an array of row objects
  std::vector<Column> columns;
};
struct FieldsView {
  std::string title;
  std::string path;  // dotted path to an object
  std::vector<Column> fields;  // key, label, hint
};

struct Report {
  std::string command;
  Node root = Node::object();       // meta, inputs, results
  std::vector<FieldsView> fields;   // printed first, as "label  value" lines
  std::vector<TableView> tables;    // then tables; CSV prints the first table
  std::vector<std::string> notes;   // free text printed last in table mode
};

inline constexpr int kSchemaVersion = 1;

// Builds the `meta` object: schema version, perfmodel version, git sha, dirty flag, argv.
Node make_meta(const std::string& command, const std::vector<std::string>& argv);

std::string format_value(const Node& v, Hint hint);
std::string to_json(const Node& n, int indent = 2);
std::string render_table(const Report& r);
std::string render_csv(const Report& r);

}  // namespace perfmodel
