// Runs a measuring Python helper and reads its result line (python_helper.hpp).
#include "python_helper.hpp"

#include <array>
#include <cstdio>
#include <sstream>

#include <sys/wait.h>

#include "perfmodel/errors.hpp"

namespace perfmodel::cli {

std::string run_python_helper(const std::string& command, const std::string& what) {
  FILE* p = popen(command.c_str(), "r");
  if (!p) throw InputError(what + ": cannot start: " + command);
  std::string out;
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
  const int status = pclose(p);
  if (status != 0)
    throw InputError(what + ": the helper failed (exit " +
                     std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : status) + "): " + command);
  return out;
}

std::map<std::string, double> parse_helper_result(const std::string& out, const std::string& tag,
                                                  const std::vector<std::string>& required, const std::string& what) {
  const std::string head = tag + " ";
  size_t at = out.rfind(head);
  while (at != std::string::npos && at > 0 && out[at - 1] != '\n') at = out.rfind(head, at - 1);
  if (at == std::string::npos) throw InputError(what + ": the helper printed no result line (" + tag + " ...)");
  const size_t end = out.find('\n', at);
  std::istringstream line(out.substr(at + head.size(), end == std::string::npos ? std::string::npos : end - at - head.size()));
  std::map<std::string, double> r;
  for (std::string kv; line >> kv;) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    try {
      size_t used = 0;
      r[kv.substr(0, eq)] = std::stod(kv.substr(eq + 1), &used);
      if (used != kv.size() - eq - 1) throw std::invalid_argument(kv);
    } catch (const std::exception&) {
      throw InputError(what + ": unreadable value in the helper's result: '" + kv + "'");
    }
  }
  for (const auto& k : required)
    if (!r.count(k)) throw InputError(what + ": the helper's result has no " + k);
  return r;
}

}  // namespace perfmodel::cli
