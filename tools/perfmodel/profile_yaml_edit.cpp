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

}  // namespace

std::string us_text(double s) {
  std::ostringstream o;
  o.precision(4);
  o << std::fixed << s * 1e6 << " us";
  return o.str();
}

std::string tflops_text(double f) {
  std::ostringstream o;
  o.precision(2);
  o << std::fixed << f / 1e12 << " TFLOP/s";
  return o.str();
}

std::string set_profile_key(const std::string& text, const std::string& profile, const std::string& key,
                            const std::string& value, const std::string& why, const std::string& after) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::string entry = "    " + key + ": " + value + "   # " + why;
  size_t profiles = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (is_key(lines[i], 0, "profiles")) profiles = i;
  if (profiles == lines.size()) {
    lines.insert(lines.end(), {"profiles:", "  " + profile + ":", entry});
  } else {
    size_t head = lines.size(), end = lines.size();
    for (size_t i = profiles + 1; i < lines.size(); ++i) {
      if (indent_of(lines[i]) == 0 && lines[i][0] != '#') {
        end = i;
        break;
      }
      if (is_key(lines[i], 2, profile)) head = i;
    }
    if (head == lines.size()) {
      lines.insert(lines.begin() + static_cast<long>(profiles) + 1, {"  " + profile + ":", entry});
    } else {
      size_t found = lines.size(), at = head;
      for (size_t i = head + 1; i < end; ++i) {
        const int ind = indent_of(lines[i]);
        if (ind >= 0 && ind <= 2 && lines[i][static_cast<size_t>(ind)] != '#') break;
        if (is_key(lines[i], 4, key)) {
          found = i;
          break;
        }
        if (!after.empty() && is_key(lines[i], 4, after)) at = i;
      }
      if (found != lines.size())
        lines[found] = entry;
      else
        lines.insert(lines.begin() + static_cast<long>(at) + 1, entry);
    }
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace perfmodel::cli
