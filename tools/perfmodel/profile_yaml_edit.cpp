// One profile key set in a calibration file's text (profile_yaml_edit.hpp).
#include "profile_yaml_edit.hpp"

#include <sstream>
#include <vector>

namespace perfmodel::cli {

namespace {

int indent_of(const std::string& line) {
  const auto at = line.find_first_not_of(' ');
  return at == std::string::npos ? -1 : static_cast<int>(at);
}

bool is_key(const std::string& line, int indent, const std::string& key) {
  return indent_of(line) == indent && line.compare(static_cast<size_t>(indent), key.size() + 1, key + ":") == 0;
}

// The lines (begin, end) of the block under line `head` at `indent`: up to the next line of that indent or less
// that is not a comment.
size_t block_end(const std::vector<std::string>& lines, size_t head, int indent) {
  for (size_t i = head + 1; i < lines.size(); ++i) {
    const int ind = indent_of(lines[i]);
    if (ind >= 0 && ind <= indent && lines[i][static_cast<size_t>(ind)] != '#') return i;
  }
  return lines.size();
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(path);
  for (std::string s; std::getline(in, s, '.');) out.push_back(s);
  return out;
}

}  // namespace

std::string us_text(double s) {
  std::ostringstream o;
  o.precision(4);
  o << std::fixed << s * 1e6 << " us";
  return o.str();
}

std::string ns_text(double s) {
  std::ostringstream o;
  o.precision(5);
  o << std::fixed << s * 1e9 << " ns";
  return o.str();
}

std::string tflops_text(double f) {
  std::ostringstream o;
  o.precision(2);
  o << std::fixed << f / 1e12 << " TFLOP/s";
  return o.str();
}

std::string gbps_text(double b) {
  std::ostringstream o;
  o.precision(1);
  o << std::fixed << b / 1e9 << " GB/s";
  return o.str();
}

std::string set_profile_key(const std::string& text, const std::string& profile, const std::string& key,
                            const std::string& value, const std::string& why, const std::string& after) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  // The path from the file's top: profiles, the profile, the key's blocks (cudnn_decode.kernel_floor), the key.
  std::vector<std::string> path = {"profiles", profile};
  for (const auto& s : split_path(key)) path.push_back(s);
  const std::string leaf = path.back();
  const std::string entry = std::string(2 * (path.size() - 1), ' ') + leaf + ": " + value + "   # " + why;

  // Walk down: `begin` / `end` bound the enclosing block's lines, `head` its own line (none at the top).
  size_t begin = 0, end = lines.size();
  for (size_t depth = 0; depth + 1 < path.size(); ++depth) {
    const int indent = 2 * static_cast<int>(depth);
    size_t found = end;
    for (size_t i = begin; i < end; ++i)
      if (is_key(lines[i], indent, path[depth])) {
        found = i;
        break;
      }
    if (found == end) {  // the block is absent: added at the end of its parent, with what lies under it
      std::vector<std::string> add;
      for (size_t d = depth; d + 1 < path.size(); ++d) add.push_back(std::string(2 * d, ' ') + path[d] + ":");
      add.push_back(entry);
      lines.insert(lines.begin() + static_cast<long>(end), add.begin(), add.end());
      std::string out;
      for (const auto& l : lines) out += l + "\n";
      return out;
    }
    begin = found + 1;
    end = block_end(lines, found, indent);
  }
  const int indent = 2 * static_cast<int>(path.size() - 1);
  size_t found = end, at = begin - 1;
  for (size_t i = begin; i < end; ++i) {
    if (is_key(lines[i], indent, leaf)) {
      found = i;
      break;
    }
    if (!after.empty() && is_key(lines[i], indent, after)) at = i;
  }
  if (found != end)
    lines[found] = entry;
  else
    lines.insert(lines.begin() + static_cast<long>(at) + 1, entry);
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace perfmodel::cli
