#pragma once
// Text helpers shared by the library and the CLI: "did you mean" distances and JSON string
// escaping (one of each, issue 9).
#include <cstddef>
#include <string>

namespace perfmodel {

// Levenshtein distance (insertions, deletions and substitutions each cost 1), for "did you mean".
size_t edit_distance(const std::string& a, const std::string& b);

// The body of a JSON string (RFC 8259, section 7) without the surrounding quotes: '"' and '\'
// escaped, newline and tab as \n and \t, other control characters as \u00XX; bytes >= 0x20
// pass through (UTF-8 stays UTF-8).
std::string json_escape(const std::string& s);

}  // namespace perfmodel
