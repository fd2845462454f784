#pragma once
// The Python helpers that measure production kernels and frameworks on the GPU (PyTorch stays out of
// the C++ build): perfmodel runs one as a child process and reads its last result line,
// "<tag> key=value key=value ...".
#include <map>
#include <string>
#include <vector>

namespace perfmodel::cli {

// Runs `command` through the shell and returns its stdout; InputError (naming `what`) when it cannot
// start or exits non-zero.
std::string run_python_helper(const std::string& command, const std::string& what);

// The values of the last line that starts with "<tag> "; InputError when there is none, a value is
// unreadable or one of `required` is missing.
std::map<std::string, double> parse_helper_result(const std::string& out, const std::string& tag,
                                                  const std::vector<std::string>& required, const std::string& what);

}  // namespace perfmodel::cli
