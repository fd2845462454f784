// report.hpp: one result tree, three printers. Each printer is compared with expected text
// written by hand in tests/data/golden/ (column widths, alignment, hints, CSV quoting, JSON
// escaping), and JSON output is checked to be valid JSON.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "perfmodel/report.hpp"
#include "perfmodel/version.hpp"
#include "test_support.hpp"

using namespace perfmodel;

namespace {

std::string golden(const std::string& name) {
  std::ifstream in(test::data("golden/" + name), std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing golden file " << name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A small report: a fields block and one table with a text column, an integer, a time and a
// percentage; a row name with a comma to exercise CSV quoting.
Report sample() {
  Report r;
  r.command = "test";
  r.root.set("meta", make_meta("test", {"perfmodel", "test", "--flag"}));
  Node result = Node::object();
  result.set("time_s", Node::number(0.0123, Hint::time));
  result.set("name", Node::text("x"));
  r.root.set("result", std::move(result));
  Node rows = Node::array();
  Node a = Node::object();
  a.set("name", Node::text("qkv_proj"));
  a.set("count", Node::integer(32));
  a.set("time_s", Node::number(1.5e-3, Hint::time));
  a.set("share", Node::number(0.25, Hint::percent));
  rows.push(std::move(a));
  Node b = Node::object();
  b.set("name", Node::text("lm, head"));
  b.set("count", Node::integer(1));
  b.set("time_s", Node::number(2.5e-6, Hint::time));
  b.set("share", Node::number(0.031, Hint::percent));
  rows.push(std::move(b));
  r.root.set("rows", std::move(rows));
  r.fields.push_back({"summary", "result", {{"time_s", "step time", Hint::time}, {"name", "name", Hint::text}}});
  r.tables.push_back({"ops",
                      "rows",
                      {{"name", "op", Hint::text},
                       {"count", "x", Hint::integer},
                       {"time_s", "time", Hint::time},
                       {"share", "share", Hint::percent}}});
  r.notes.push_back("one note");
  return r;
}

}  // namespace

TEST_CASE("render_table: fields as aligned label/value lines, then the table, then notes") {
  // Labels padded to the widest label + 2; text columns left-aligned, numbers right-aligned;
  // the rule under the header spans the columns and their 2-space gaps (8+2+8+5 + 3 x 2 = 29).
  CHECK(render_table(sample()) == golden("report_table.txt"));
}

TEST_CASE("render_csv: the first table with raw SI values and quoted cells") {
  CHECK(render_csv(sample()) == golden("report_table.csv"));
  // Without a table: one header line of path.key and one line of values.
  Report r = sample();
  r.tables.clear();
  CHECK(render_csv(r) == golden("report_fields.csv"));
}

TEST_CASE("to_json: indentation, escaping, integers, empty containers") {
  Node n = Node::object();
  n.set("a", Node::integer(1));
  n.set("b", Node::number(0.5));
  n.set("c", Node::text("q\"x\\y\nz"));
  Node d = Node::array();
  d.push(Node::boolean(true));
  d.push(Node());
  d.push(Node::boolean(false));
  n.set("d", std::move(d));
  n.set("e", Node::object());
  n.set("f", Node::array());
  Node g = Node::object();
  g.set("h", Node::number(2.5e-6, Hint::time));
  n.set("g", std::move(g));
  CHECK(to_json(n) == golden("report_small.json"));
  // Compact form.
  Node small = Node::object();
  small.set("k", Node::integer(7));
  small.set("l", Node::array());
  CHECK(to_json(small, 0) == "{\"k\":7,\"l\":[]}\n");
}

TEST_CASE("to_json output is valid JSON with meta.schema_version; non-finite numbers become null") {
  Report r = sample();
  r.root.set("inf", Node::number(std::numeric_limits<double>::infinity()));
  r.root.set("nan", Node::number(std::nan("")));
  r.root.set("big", Node::integer(6738415616LL));
  const std::string out = to_json(r.root);
  test::Json j;
  REQUIRE_NOTHROW(j = test::parse_json(out));
  REQUIRE(j.at("meta.schema_version"));
  CHECK(j.at("meta.schema_version")->num == kSchemaVersion);
  CHECK(j.at("meta.perfmodel_version")->str == kVersion);
  CHECK(j.at("meta.git_sha")->str == kGitSha);
  CHECK(j.at("meta.git_dirty")->type == test::Json::Type::boolean);
  CHECK(j.at("meta.command")->str == "test");
  REQUIRE(j.at("meta.argv")->arr.size() == 3);
  CHECK(j.at("meta.argv")->arr[2].str == "--flag");
  CHECK(j.at("inf")->type == test::Json::Type::null);
  CHECK(j.at("nan")->type == test::Json::Type::null);
  CHECK(j.at("big")->num == 6738415616.0);
  CHECK(test::contains(out, "\"big\": 6738415616"));
  CHECK(j.at("rows")->arr.size() == 2);
  CHECK(j.at("rows")->arr[1].get("name")->str == "lm, head");
  CHECK(j.at("result.time_s")->num == test::approx(0.0123));
  // The meta object comes first (nvbench habit: meta, inputs, results).
  CHECK(j.obj.front().first == "meta");
}

TEST_CASE("format_value follows the hint") {
  CHECK(format_value(Node::number(0.0123), Hint::time) == "12.300 ms");
  CHECK(format_value(Node::number(4.2e-5), Hint::time) == "42.00 us");
  CHECK(format_value(Node::number(0.256), Hint::percent) == "25.6%");
  CHECK(format_value(Node::number(2.5), Hint::ratio) == "2.50x");
  CHECK(format_value(Node::number(136.02), Hint::intensity) == "136");
  CHECK(format_value(Node::number(13476831232.0), Hint::bytes) == "13.5 GB");
  CHECK(format_value(Node::number(312e12), Hint::flop_rate) == "312 TFLOP/s");
  CHECK(format_value(Node::number(2039e9), Hint::byte_rate) == "2.04 TB/s");
  CHECK(format_value(Node::number(14.3e9), Hint::flops) == "14.3 GFLOP");
  CHECK(format_value(Node::integer(59), Hint::none) == "59");  // the node's own hint
  CHECK(format_value(Node::number(1.5), Hint::none) == "1.5");
  CHECK(format_value(Node::text("never"), Hint::intensity) == "never");
  CHECK(format_value(Node::boolean(true), Hint::none) == "yes");
  CHECK(format_value(Node(), Hint::time) == "-");
}

TEST_CASE("Node: set replaces, find and at_path look up, order is kept") {
  Node n = Node::object();
  n.set("a", Node::integer(1));
  n.set("b", Node::object());
  n.set("a", Node::integer(2));
  REQUIRE(n.items().size() == 2);
  CHECK(n.items()[0].first == "a");
  CHECK(n.find("a")->as_number() == 2);
  CHECK(n.find("zz") == nullptr);
  Node inner = Node::object();
  inner.set("c", Node::text("deep"));
  n.set("b", std::move(inner));
  REQUIRE(n.at_path("b.c"));
  CHECK(n.at_path("b.c")->as_string() == "deep");
  CHECK(n.at_path("b.missing") == nullptr);
  CHECK(n.at_path("missing.c") == nullptr);
  CHECK(Node::integer(3).is_integer());
  CHECK_FALSE(Node::number(3).is_integer());
}

TEST_CASE("JSON keeps large values exact") {
  Node n = Node::object();
  n.set("weight_bytes", Node::number(13476831232.0, Hint::bytes));
  n.set("flops", Node::number(2.0 * 1793 * 1793 * 1793, Hint::flops));
  n.set("time_s", Node::number(0.1 + 0.2, Hint::time));
  const test::Json j = test::parse_json(to_json(n));
  CHECK(j.get("weight_bytes")->num == 13476831232.0);
  CHECK(j.get("flops")->num == 2.0 * 1793 * 1793 * 1793);
  CHECK(j.get("time_s")->num == 0.1 + 0.2);
}

TEST_CASE("CSV keeps large counts exact") {
  Report r;
  Node rows = Node::array();
  Node a = Node::object();
  a.set("parameters", Node::number(9241705984.0, Hint::integer));
  rows.push(std::move(a));
  r.root.set("rows", std::move(rows));
  r.tables.push_back({"", "rows", {{"parameters", "params", Hint::integer}}});
  CHECK(render_csv(r) == "parameters\n9241705984\n");
}

TEST_CASE("CSV fields on the root object have plain column names") {
  Report r;
  r.root.set("time_s", Node::number(0.5, Hint::time));
  r.root.set("bound", Node::text("memory"));
  r.fields.push_back({"", "", {{"time_s", "time", Hint::time}, {"bound", "bound", Hint::text}}});
  CHECK(render_csv(r) == "time_s,bound\n0.5,memory\n");
}
