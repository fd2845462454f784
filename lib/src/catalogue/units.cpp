#include "perfmodel/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace perfmodel {

std::string_view to_string(Dimension d) {
  switch (d) {
    case Dimension::bytes: return "bytes (e.g. 80 GiB, 50 MB)";
    case Dimension::bytes_per_s: return "bandwidth (e.g. 4.8 TB/s)";
    case Dimension::flop_per_s: return "throughput (e.g. 989 TFLOP/s, 1979 TOP/s)";
    case Dimension::hertz: return "frequency (e.g. 1830 MHz)";
    case Dimension::bits: return "bits (e.g. 5120 bit)";
    case Dimension::bits_per_s: return "per-pin data rate (e.g. 5.23 Gbps)";
    case Dimension::seconds: return "time (e.g. 4 us)";
    case Dimension::watts: return "power (e.g. 700 W)";
  }
  return "?";
}

namespace {

struct Prefix {
  std::string_view text;
  double factor;
};

// Longest prefixes first so "Ki" wins over "K".
constexpr std::array<Prefix, 13> kPrefixes{{{"Ki", 1024.0},
                                             {"Mi", 1048576.0},
                                             {"Gi", 1073741824.0},
                                             {"Ti", 1099511627776.0},
                                             {"k", 1e3},
                                             {"K", 1e3},
                                             {"M", 1e6},
                                             {"G", 1e9},
                                             {"T", 1e12},
                                             {"P", 1e15},
                                             {"m", 1e-3},
                                             {"u", 1e-6},
                                             {"n", 1e-9}}};

struct BaseUnit {
  std::string_view text;
  Dimension dim;
  double factor;  // to SI
};

constexpr std::array<BaseUnit, 17> kBases{{{"W", Dimension::watts, 1},
                                          {"B", Dimension::bytes, 1},
                                          {"byte", Dimension::bytes, 1},
                                          {"bytes", Dimension::bytes, 1},
                                          {"B/s", Dimension::bytes_per_s, 1},
                                          {"FLOP/s", Dimension::flop_per_s, 1},
                                          {"FLOPS", Dimension::flop_per_s, 1},
                                          {"OP/s", Dimension::flop_per_s, 1},
                                          {"OPS", Dimension::flop_per_s, 1},
                                          {"Hz", Dimension::hertz, 1},
                                          {"bit", Dimension::bits, 1},
                                          {"bits", Dimension::bits, 1},
                                          {"bps", Dimension::bits_per_s, 1},
                                          {"bit/s", Dimension::bits_per_s, 1},
                                          {"s", Dimension::seconds, 1},
                                          {"sec", Dimension::seconds, 1},
                                          {"us", Dimension::seconds, 1e-6}}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Finds the unit's factor and dimension, allowing an optional prefix.
std::optional<std::pair<double, Dimension>> lookup_unit(std::string_view unit) {
  if (unit == "\xC2\xB5s") return std::make_pair(1e-6, Dimension::seconds);  // "µs"
  for (const auto& b : kBases)
    if (unit == b.text) return std::make_pair(b.factor, b.dim);
  for (const auto& p : kPrefixes) {
    if (unit.size() <= p.text.size() || unit.substr(0, p.text.size()) != p.text) continue;
    std::string_view rest = unit.substr(p.text.size());
    for (const auto& b : kBases) {
      if (rest != b.text || b.text == "us") continue;
      bool binary = p.text.size() == 2;
      // Binary prefixes only make sense for capacities; sub-unit prefixes only for time.
      if (binary && b.dim != Dimension::bytes) continue;
      bool small = p.factor < 1;
      if (small && b.dim != Dimension::seconds && b.dim != Dimension::watts) continue;
      return std::make_pair(p.factor * b.factor, b.dim);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_quantity(std::string_view text, Dimension dim, std::string* why,
                                     bool allow_zero) {
  auto fail = [&](std::string msg) -> std::optional<double> {
    if (why) *why = std::move(msg);
    return std::nullopt;
  };
  std::string_view s = trim(text);
  if (s.empty()) return fail("empty value; expected " + std::string(to_string(dim)));
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' ||
                          s[i] == 'e' || s[i] == 'E' || s[i] == '+' || s[i] == '-')) {
    // An 'e' followed by a non-digit starts the unit, not an exponent.
    if ((s[i] == 'e' || s[i] == 'E') &&
        (i + 1 >= s.size() || !(std::isdigit(static_cast<unsigned char>(s[i + 1])) ||
                                s[i + 1] == '-' || s[i + 1] == '+')))
      break;
    ++i;
  }
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + i, value);
  if (ec != std::errc() || ptr != s.data() + i || i == 0)
    return fail("'" + std::string(text) + "' does not start with a number; expected " +
                std::string(to_string(dim)));
  std::string_view unit = trim(s.substr(i));
  if (unit.empty())
    return fail("'" + std::string(text) + "' has no unit; expected " + std::string(to_string(dim)));
  auto found = lookup_unit(unit);
  if (!found)
    return fail("unknown unit '" + std::string(unit) + "' in '" + std::string(text) +
                "'; expected " + std::string(to_string(dim)));
  if (found->second != dim)
    return fail("'" + std::string(text) + "' is " + std::string(to_string(found->second)) +
                ", expected " + std::string(to_string(dim)));
  if (!std::isfinite(value) || value < 0 || (value == 0 && !allow_zero))
    return fail("'" + std::string(text) + "' must be positive");
  // The unit factor may carry a finite number past the largest double (1e308 GiB).
  const double si = value * found->first;
  if (!std::isfinite(si)) return fail("'" + std::string(text) + "' overflows once its unit is applied");
  return si;
}

std::string format_si(double value, std::string_view unit, int precision) {
  static constexpr std::array<std::pair<double, const char*>, 9> kSteps{{{1e15, "P"},
                                                                         {1e12, "T"},
                                                                         {1e9, "G"},
                                                                         {1e6, "M"},
                                                                         {1e3, "k"},
                                                                         {1, ""},
                                                                         {1e-3, "m"},
                                                                         {1e-6, "u"},
                                                                         {1e-9, "n"}}};
  double a = std::fabs(value);
  for (const auto& [f, p] : kSteps) {
    if (a >= f || f == 1e-9) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*g %s%.*s", precision, value / f, p,
                    static_cast<int>(unit.size()), unit.data());
      return buf;
    }
  }
  return std::to_string(value);
}

std::string format_time(double seconds) {
  char buf[48];
  double a = std::fabs(seconds);
  if (a >= 1) std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  else if (a >= 1e-3) std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  else std::snprintf(buf, sizeof buf, "%.2f us", seconds * 1e6);
  return buf;
}

std::string format_bytes_binary(double bytes) {
  static constexpr std::array<const char*, 5> kNames{"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (bytes >= 1024 && i < 4) {
    bytes /= 1024;
    ++i;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f %s", bytes, kNames[i]);
  return buf;
}

}  // namespace perfmodel
