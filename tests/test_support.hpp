#pragma once
// Shared helpers of the suites: where the catalogue and fixtures are, and a strict little JSON
// reader (so tests check the CLI's and to_json's output as JSON, not as text).
#include <cctype>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "perfmodel/catalogue.hpp"

namespace test {

// doctest::Approx passes when |a - b| < eps x (scale + max(|a|, |b|)) with scale 1 by default:
// for times in seconds (1e-6) that is an absolute tolerance of 1.2e-5 s, which lets any small
// time through. Every comparison here is relative (the smallest scale, so that 0 still equals 0).
inline doctest::Approx approx(double v) { return doctest::Approx(v).scale(std::numeric_limits<double>::min()); }

inline std::string root() { return PERFMODEL_TEST_ROOT; }
// gemm5's kernel-only `gemm:` block (fit_gemm.py --kernel-only; not in the committed calibration,
// docs/accuracy-notes.md), laid over one profile's calibration.
template <class Profile>
void lay_fitted_gemm_block(Profile& p) {
  p.gemm.fixed_s = 1.5e-6;
  p.gemm.split_k_reduce_s = 3.5e-6;
  p.gemm.cta_walk_per_1024_k_s = 3.8e-6;
  p.gemm.stream_efficiency = 0.86;
  p.gemm.fp8_peak = 1460e12;
  p.gemm.cta_walk_latency_share = 0.35;
}
inline std::string data(const std::string& rel) { return std::string(PERFMODEL_TEST_DATA) + "/" + rel; }
inline const perfmodel::Catalogue& catalogue() {
  static const perfmodel::Catalogue cat(root());
  return cat;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// --- JSON ---------------------------------------------------------------------------------------
struct Json {
  enum class Type { null, boolean, number, string, array, object } type = Type::null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::vector<std::pair<std::string, Json>> obj;

  const Json* get(const std::string& key) const {
    for (const auto& [k, v] : obj)
      if (k == key) return &v;
    return nullptr;
  }
  // Dotted path ("analysis.max_batch"); nullptr when absent.
  const Json* at(const std::string& path) const {
    const Json* cur = this;
    size_t start = 0;
    while (cur) {
      const size_t dot = path.find('.', start);
      cur = cur->get(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    return cur;
  }
};

// RFC 8259 syntax, strictly: throws std::runtime_error with the offset of the first error.
class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}
  Json parse() {
    Json v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool eat(const char* lit) {
    const std::string l(lit);
    if (s_.compare(i_, l.size(), l) != 0) return false;
    i_ += l.size();
    return true;
  }
  std::string string() {
    if (i_ >= s_.size() || s_[i_] != '"') fail("expected a string");
    ++i_;
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("bad escape");
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("bad \\u escape");
          for (int k = 0; k < 4; ++k)
            if (!std::isxdigit(static_cast<unsigned char>(s_[i_ + k]))) fail("bad \\u escape");
          const long cp = std::strtol(s_.substr(i_, 4).c_str(), nullptr, 16);
          i_ += 4;
          out += cp < 0x80 ? static_cast<char>(cp) : '?';
          break;
        }
        default: fail("bad escape");
      }
    }
  }
  double number() {
    const size_t start = i_;
    if (s_[i_] == '-') ++i_;
    auto digits = [&] {
      const size_t d = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      if (i_ == d) fail("expected a digit");
    };
    if (i_ < s_.size() && s_[i_] == '0') ++i_;
    else digits();
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      digits();
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      digits();
    }
    return std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
  }
  Json value() {
    ws();
    if (i_ >= s_.size()) fail("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      v.type = Json::Type::object;
      ++i_;
      ws();
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return v;
      }
      while (true) {
        ws();
        std::string key = string();
        ws();
        if (i_ >= s_.size() || s_[i_] != ':') fail("expected ':'");
        ++i_;
        v.obj.emplace_back(std::move(key), value());
        ws();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < s_.size() && s_[i_] == '}') {
          ++i_;
          return v;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.type = Json::Type::array;
      ++i_;
      ws();
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return v;
      }
      while (true) {
        v.arr.push_back(value());
        ws();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < s_.size() && s_[i_] == ']') {
          ++i_;
          return v;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v.type = Json::Type::string;
      v.str = string();
      return v;
    }
    if (eat("true")) {
      v.type = Json::Type::boolean;
      v.b = true;
      return v;
    }
    if (eat("false")) {
      v.type = Json::Type::boolean;
      return v;
    }
    if (eat("null")) return v;
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      v.type = Json::Type::number;
      v.num = number();
      return v;
    }
    fail(std::string("unexpected character '") + c + "'");
  }

  const std::string& s_;
  size_t i_ = 0;
};

inline Json parse_json(const std::string& s) { return JsonParser(s).parse(); }

}  // namespace test
