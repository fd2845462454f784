#pragma once
// Running the built perfmodel CLI from a test (test_cli.cpp, test_cli_formats.cpp): stdout,
// stderr and the exit code of one command line, with the source tree's catalogue.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

struct Run {
  int rc = -1;
  std::string out, err;
  size_t err_lines() const {
    size_t n = 0;
    for (char c : err) n += c == '\n';
    return n;
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path tmp_dir() {
  const fs::path d = fs::path(PERFMODEL_TEST_TMP) / ("cli_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

// Runs `perfmodel <args>` with the source tree's catalogue, capturing stdout, stderr and the code.
// `cwd`: the folder to run in (default: the test's own).
Run cli(const std::string& args, const std::string& cwd = "") {
  static int counter = 0;
  const fs::path base = tmp_dir() / std::to_string(counter++);
  const std::string out = base.string() + ".out", err = base.string() + ".err";
  const std::string cmd = (cwd.empty() ? "" : "cd '" + cwd + "' && ") + "PERFMODEL_DATA_DIR='" + test::root() +
                          "' '" + PERFMODEL_TEST_CLI + "' " + args + " >'" + out + "' 2>'" + err + "' </dev/null";
  const int status = std::system(cmd.c_str());
  Run r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

}  // namespace

#define SHOW(run) INFO("rc=" << (run).rc << "\nstdout:\n" << (run).out << "\nstderr:\n" << (run).err)
