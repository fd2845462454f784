#pragma once
// Running the built perfmodel CLI as a user runs it, for the CLI suites: exit code, stdout and
// stderr (ARCHITECTURE.md: Errors: exit 2 and ONE line on stderr for bad input).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>

#include "test_support.hpp"

namespace cli_test {

namespace fs = std::filesystem;

struct Run {
  int rc = -1;
  std::string out, err;
  size_t err_lines() const {
    size_t n = 0;
    for (char c : err) n += c == '\n';
    return n;
  }
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline fs::path tmp_dir() {
  const fs::path d = fs::path(PERFMODEL_TEST_TMP) / ("cli_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

// Runs `perfmodel <args>` with the source tree's catalogue, capturing stdout, stderr and the code.
// `cwd`: the folder to run in (default: the test's own).
inline Run cli(const std::string& args, const std::string& cwd = "", const std::string& exe = PERFMODEL_TEST_CLI) {
  static int counter = 0;
  const fs::path base = tmp_dir() / std::to_string(counter++);
  const std::string out = base.string() + ".out", err = base.string() + ".err";
  const std::string cmd = (cwd.empty() ? "" : "cd '" + cwd + "' && ") + "PERFMODEL_DATA_DIR='" + test::root() +
                          "' '" + exe + "' " + args + " >'" + out + "' 2>'" + err + "' </dev/null";
  const int status = std::system(cmd.c_str());
  Run r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

#define SHOW(run) INFO("rc=" << (run).rc << "\nstdout:\n" << (run).out << "\nstderr:\n" << (run).err)

// Usage or input errors: exit 2, exactly one line on stderr.
inline void expect_input_error(const Run& r, std::initializer_list<std::string> needles) {
  SHOW(r);
  CHECK(r.rc == 2);
  CHECK(r.err_lines() == 1);
  for (const std::string& n : needles) CHECK(test::contains(r.err, n));
}

inline test::Json json_of(const Run& r) {
  SHOW(r);
  test::Json j;
  REQUIRE_NOTHROW(j = test::parse_json(r.out));
  return j;
}

}  // namespace cli_test
