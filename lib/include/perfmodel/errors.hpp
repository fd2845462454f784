#pragma once
// Typed errors of the library. Only tools/perfmodel/main.cpp catches them, prints one line and
// chooses the exit code (2 for both: they are the user's input, not a crash).
#include <stdexcept>
#include <string>

namespace perfmodel {

// A catalogue or config file is wrong: names the file, line, column and YAML path.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& file, int line, int column, const std::string& path,
              const std::string& what)
      : std::runtime_error(format(file, line, column, path, what)),
        file_(file), line_(line), column_(column), path_(path) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& yaml_path() const { return path_; }

 private:
  static std::string format(const std::string& file, int line, int column,
                            const std::string& path, const std::string& what) {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (line > 0) {
      s.append(":").append(std::to_string(line));
      s.append(":").append(std::to_string(column));
    }
    s.append(": ");
    if (!path.empty()) s.append(path).append(": ");
    s.append(what);
    return s;
  }
  std::string file_;
  int line_, column_;
  std::string path_;
};

// An impossible workload or request (zero sizes, overflow, unknown names).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace perfmodel
