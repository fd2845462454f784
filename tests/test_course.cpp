// docs/course.md, run: every `perfmodel ...` command of the course is run through the CLI with
// `--format json`, and every figure its check markers name is compared with the expected one
// (the seed's figure, or the hand computation where the doc says perfmodel differs, and why).
//
// The markers (docs/course.md, "How the checks work"), each an HTML comment after a command's
// ```sh block, about that command's output:
//   <!-- check: EXPR ≈ VALUE ±TOL -->    TOL absolute, or relative with a % sign
//   <!-- check: PATH = TEXT -->          a text field (a bound, a tile)
//   <!-- output: LABEL -->               names this command's output for later EXPRs (@LABEL.path)
// EXPR is operands joined by " + ", " - ", " * " or " / ", evaluated left to right (no precedence):
// numbers or JSON paths. A path is dotted keys; an array element is picked by its index or by a
// field, `ops[name=lm_head]`.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "cli_support.hpp"

using namespace cli_test;

namespace {

struct Command {
  int line = 0;
  std::string args;  // after "perfmodel "
};

struct Check {
  int line = 0;
  size_t command = 0;  // index into the commands
  std::string expr, text;
  bool is_text = false;
  double value = 0, tol = 0;
  bool relative = false;
};

struct Course {
  std::vector<Command> commands;
  std::vector<Check> checks;
  std::map<std::string, size_t> labels;  // output label -> command index
  std::vector<std::string> errors;      // malformed markers, with their line
};

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// "EXPR ≈ VALUE ±TOL" or "PATH = TEXT"; false with a reason when malformed.
bool parse_check(const std::string& body, Check& c, std::string& why) {
  const std::string approx = "\u2248", pm = "\u00b1";
  const size_t a = body.find(approx);
  if (a == std::string::npos) {
    const size_t eq = body.find(" = ");
    if (eq == std::string::npos) return why = "expected 'EXPR ≈ VALUE ±TOL' or 'PATH = TEXT'", false;
    c.is_text = true;
    c.expr = trim(body.substr(0, eq));
    c.text = trim(body.substr(eq + 3));
    return !c.expr.empty() && !c.text.empty();
  }
  c.expr = trim(body.substr(0, a));
  const std::string rest = body.substr(a + approx.size());
  const size_t p = rest.find(pm);
  if (p == std::string::npos) return why = "no ±tolerance", false;
  const auto v = number(trim(rest.substr(0, p)));
  std::string tol = trim(rest.substr(p + pm.size()));
  c.relative = !tol.empty() && tol.back() == '%';
  if (c.relative) tol.pop_back();
  const auto t = number(tol);
  if (!v || !t || *t <= 0) return why = "VALUE and TOL must be numbers, TOL > 0", false;
  c.value = *v;
  c.tol = c.relative ? *t / 100 : *t;
  return !c.expr.empty();
}

Course read_course(const std::string& text) {
  Course course;
  std::istringstream in(text);
  std::string line;
  bool in_sh = false;
  int n = 0, block_commands = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string t = trim(line);
    if (t.rfind("```", 0) == 0) {
      if (!in_sh && t == "```sh") {
        in_sh = true;
        block_commands = 0;
      } else if (in_sh) {
        in_sh = false;
        if (block_commands != 1) course.errors.push_back("line " + std::to_string(n) + ": a ```sh block holds one perfmodel command");
      }
      continue;
    }
    if (in_sh) {
      if (t.rfind("perfmodel ", 0) == 0) {
        course.commands.push_back({n, t.substr(10)});
        ++block_commands;
      }
      continue;
    }
    // A marker is a line of its own (markers quoted in the prose, in backticks, are not).
    if (t.rfind("<!--", 0) != 0 || t.size() < 7 || t.compare(t.size() - 3, 3, "-->") != 0) continue;
    const std::string body = trim(t.substr(4, t.size() - 7));
    const std::string where = "line " + std::to_string(n);
    if (body.rfind("check:", 0) != 0 && body.rfind("output:", 0) != 0) continue;  // an ordinary comment
    if (course.commands.empty()) {
      course.errors.push_back(where + ": a marker before any command");
      continue;
    }
    if (body.rfind("output:", 0) == 0) {
      course.labels[trim(body.substr(7))] = course.commands.size() - 1;
      continue;
    }
    Check c;
    c.line = n;
    c.command = course.commands.size() - 1;
    std::string why;
    if (parse_check(trim(body.substr(6)), c, why))
      course.checks.push_back(c);
    else
      course.errors.push_back(where + ": " + why);
  }
  return course;
}

// One JSON path: dotted keys, array elements by index or [field=value].
const test::Json* follow(const test::Json& root, const std::string& path) {
  const test::Json* cur = &root;
  std::istringstream segs(path);
  std::string seg;
  while (cur && std::getline(segs, seg, '.')) {
    std::string key = seg, field, want;
    const size_t br = seg.find('[');
    if (br != std::string::npos) {
      const size_t eq = seg.find('=', br), close = seg.find(']', br);
      if (eq == std::string::npos || close == std::string::npos || close < eq) return nullptr;
      key = seg.substr(0, br);
      field = seg.substr(br + 1, eq - br - 1);
      want = seg.substr(eq + 1, close - eq - 1);
    }
    if (cur->type == test::Json::Type::array) {
      const auto i = number(key);
      if (!i || *i < 0 || *i >= static_cast<double>(cur->arr.size())) return nullptr;
      cur = &cur->arr[static_cast<size_t>(*i)];
    } else {
      cur = cur->get(key);
    }
    if (cur && !field.empty()) {
      if (cur->type != test::Json::Type::array) return nullptr;
      const test::Json* hit = nullptr;
      for (const test::Json& e : cur->arr) {
        const test::Json* f = e.get(field);
        if (f && ((f->type == test::Json::Type::string && f->str == want) ||
                  (f->type == test::Json::Type::number && number(want) == f->num)))
          hit = &e;
      }
      cur = hit;
    }
  }
  return cur;
}

// Evaluates EXPR against `out` (the check's command) and the labelled outputs; nullopt and a
// reason when a path is missing or not a number.
std::optional<double> evaluate(const std::string& expr, const test::Json& out,
                               const std::map<std::string, test::Json>& labelled, std::string& why) {
  std::istringstream in(expr);
  std::string tok;
  double acc = 0;
  char op = '+';
  bool want_operand = true;
  while (in >> tok) {
    if (!want_operand) {
      if (tok != "*" && tok != "/" && tok != "+" && tok != "-")
        return why = "expected + - * or / before '" + tok + "'", std::nullopt;
      op = tok[0];
      want_operand = true;
      continue;
    }
    std::optional<double> v = number(tok);
    if (!v) {
      const test::Json* root = &out;
      std::string path = tok;
      if (tok[0] == '@') {
        const size_t dot = tok.find('.');
        const auto it = labelled.find(tok.substr(1, dot == std::string::npos ? std::string::npos : dot - 1));
        if (it == labelled.end() || dot == std::string::npos) return why = "unknown output label in " + tok, std::nullopt;
        root = &it->second;
        path = tok.substr(dot + 1);
      }
      const test::Json* j = follow(*root, path);
      if (!j || j->type != test::Json::Type::number) return why = "no number at " + tok, std::nullopt;
      v = j->num;
    }
    acc = op == '+' ? acc + *v : op == '-' ? acc - *v : op == '*' ? acc * *v : acc / *v;
    want_operand = false;
  }
  if (want_operand) return why = "empty or dangling expression", std::nullopt;
  return acc;
}

bool within(double got, const Check& c) {
  const double allowed = c.relative ? c.tol * std::fabs(c.value) : c.tol;
  return std::isfinite(got) && std::fabs(got - c.value) <= allowed;
}

std::string course_text() { return slurp(fs::path(test::root()) / "docs" / "course.md"); }

}  // namespace

TEST_CASE("docs/course.md: the markers are well formed and every command has a check") {
  const Course course = read_course(course_text());
  for (const std::string& e : course.errors) FAIL_CHECK("docs/course.md " << e);
  // Every seed has examples in the course; a doc that lost most of them fails here.
  CHECK(course.commands.size() >= 30);
  CHECK(course.checks.size() >= course.commands.size());
  std::vector<int> checked(course.commands.size(), 0);
  for (const Check& c : course.checks) ++checked[c.command];
  for (size_t i = 0; i < checked.size(); ++i) {
    INFO("docs/course.md line " << course.commands[i].line << ": perfmodel " << course.commands[i].args);
    CHECK(checked[i] > 0);
  }
}

TEST_CASE("docs/course.md: every command runs and prints the figure its check states") {
  const Course course = read_course(course_text());
  std::vector<test::Json> outputs(course.commands.size());
  std::map<std::string, test::Json> labelled;
  for (size_t i = 0; i < course.commands.size(); ++i) {
    const Command& cmd = course.commands[i];
    INFO("docs/course.md line " << cmd.line << ": perfmodel " << cmd.args);
    const Run r = cli(cmd.args + " --format json", test::root());
    REQUIRE(r.rc == 0);
    outputs[i] = json_of(r);
    for (const auto& [label, index] : course.labels)
      if (index == i) labelled[label] = outputs[i];
  }
  for (const Check& c : course.checks) {
    INFO("docs/course.md line " << c.line << ": perfmodel " << course.commands[c.command].args << "\n  check: "
                                << c.expr);
    if (c.is_text) {
      const test::Json* j = follow(outputs[c.command], c.expr);
      REQUIRE(j != nullptr);
      CHECK(j->str == c.text);
      continue;
    }
    std::string why;
    const std::optional<double> got = evaluate(c.expr, outputs[c.command], labelled, why);
    INFO(why);
    REQUIRE(got.has_value());
    INFO("got " << *got << ", expected " << c.value << " ±" << (c.relative ? c.tol * 100 : c.tol)
                << std::string(c.relative ? "%" : ""));
    CHECK(within(*got, c));
  }
}

TEST_CASE("the course's checker refuses a wrong figure and a malformed marker") {
  // The same machinery as above on a two-line course: a wrong figure must not pass.
  const Course course = read_course(
      "```sh\nperfmodel gemm --m 4096 --n 4096 --k 4096\n```\n"
      "<!-- check: intensity ≈ 1365 ±0.5 -->\n<!-- check: intensity ≈ 1400 ±0.5 -->\n"
      "<!-- check: flops / intensity ≈ 1e8 ±1% -->\n<!-- check: intensity ≈ 1365 -->\n");
  REQUIRE(course.commands.size() == 1);
  REQUIRE(course.checks.size() == 3);
  REQUIRE(course.errors.size() == 1);  // the marker without a tolerance
  CHECK(test::contains(course.errors[0], "line 7"));
  const test::Json out = json_of(cli(course.commands[0].args + " --format json", test::root()));
  std::string why;
  const auto good = evaluate(course.checks[0].expr, out, {}, why);
  REQUIRE(good.has_value());
  CHECK(within(*good, course.checks[0]));
  CHECK_FALSE(within(*good, course.checks[1]));
  // flops / intensity = bytes = 6 x 4096^2 = 100,663,296: within 1 % of 1e8.
  const auto ratio = evaluate(course.checks[2].expr, out, {}, why);
  REQUIRE(ratio.has_value());
  CHECK(*ratio == test::approx(6.0 * 4096 * 4096));
  CHECK(within(*ratio, course.checks[2]));
  CHECK_FALSE(evaluate("no_such_key", out, {}, why).has_value());
  CHECK_FALSE(evaluate("@nolabel.flops", out, {}, why).has_value());
}

TEST_CASE("perfmodel tiling (added for the course): bad sizes are refused with the flag named") {
  expect_input_error(cli("tiling --n 32 --tile 7"), {"--tile 7 must divide --n 32"});
  expect_input_error(cli("tiling --n 0 --tile 8"), {"--n"});
  expect_input_error(cli("tiling --n 32 --tile -8"), {"--tile"});
  expect_input_error(cli("tiling --n 32"), {"--tile"});
  // A card without BF16 names the dtypes it has.
  expect_input_error(cli("tiling --card t4 --n 32 --tile 8"), {"bf16"});
  // fp32 on the same 100 KiB: 3 x 64^2 x 4 B = 49,152 fits, 128 would need 196,608: t = 64, 64 / 4 = 16 FLOP/B.
  const test::Json j = json_of(cli("tiling --card rtx-4080 --n 4096 --tile 128 --dtype fp32 --format json"));
  CHECK(j.at("result.max_tile")->num == 64);
  CHECK(j.at("result.max_tile_intensity")->num == test::approx(16));
  CHECK(j.at("result.load_reduction")->num == test::approx(128));
}
