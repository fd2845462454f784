// units.hpp: unit strings parsed at the edge into SI doubles (docs/catalogue-schema.md), and the
// formatters the printers use.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "perfmodel/units.hpp"
#include "test_support.hpp"

using perfmodel::Dimension;
using perfmodel::parse_quantity;

namespace {

double parse_ok(const std::string& text, Dimension dim) {
  std::string why;
  auto v = parse_quantity(text, dim, &why);
  INFO("parsing '" << text << "': " << why);
  REQUIRE(v.has_value());
  CHECK(why.empty());
  return *v;
}

std::string parse_error(const std::string& text, Dimension dim) {
  std::string why;
  auto v = parse_quantity(text, dim, &why);
  INFO("parsing '" << text << "'");
  CHECK_FALSE(v.has_value());
  CHECK_FALSE(why.empty());  // a message, always
  return why;
}

}  // namespace

TEST_CASE("unit strings of the schema parse into SI values") {
  // Decimal prefixes are powers of 1000, binary ones powers of 1024 (units.hpp).
  CHECK(parse_ok("4.8 TB/s", Dimension::bytes_per_s) == test::approx(4.8e12).epsilon(1e-12));
  CHECK(parse_ok("2039 GB/s", Dimension::bytes_per_s) == test::approx(2039e9).epsilon(1e-12));
  // 80 GiB = 80 x 2^30 = 85,899,345,920 B exactly (binary prefix; an integer in a double).
  CHECK(parse_ok("80 GiB", Dimension::bytes) == 85899345920.0);
  CHECK(parse_ok("141 GB", Dimension::bytes) == test::approx(141e9).epsilon(1e-12));
  CHECK(parse_ok("100 KiB", Dimension::bytes) == 102400.0);
  CHECK(parse_ok("40 MiB", Dimension::bytes) == 41943040.0);
  CHECK(parse_ok("989 TFLOP/s", Dimension::flop_per_s) == test::approx(989e12).epsilon(1e-12));
  CHECK(parse_ok("1979 TOP/s", Dimension::flop_per_s) == test::approx(1979e12).epsilon(1e-12));
  CHECK(parse_ok("1830 MHz", Dimension::hertz) == test::approx(1.83e9).epsilon(1e-12));
  CHECK(parse_ok("5120 bit", Dimension::bits) == 5120.0);
  CHECK(parse_ok("5.23 Gbps", Dimension::bits_per_s) == test::approx(5.23e9).epsilon(1e-12));
  CHECK(parse_ok("4 us", Dimension::seconds) == test::approx(4e-6).epsilon(1e-12));
  CHECK(parse_ok("2.5 ms", Dimension::seconds) == test::approx(2.5e-3).epsilon(1e-12));
  CHECK(parse_ok("3 s", Dimension::seconds) == 3.0);
}

TEST_CASE("unit strings tolerate surrounding space and exponents") {
  CHECK(parse_ok("  716.8 GB/s  ", Dimension::bytes_per_s) == test::approx(716.8e9).epsilon(1e-12));
  CHECK(parse_ok("1e3 GB", Dimension::bytes) == test::approx(1e12).epsilon(1e-12));
  CHECK(parse_ok("2.5e-3 s", Dimension::seconds) == test::approx(2.5e-3).epsilon(1e-12));
}

TEST_CASE("malformed unit strings are rejected with a message") {
  // No number at all.
  CHECK(test::contains(parse_error("fast", Dimension::bytes_per_s), "number"));
  // A number without a unit.
  CHECK(test::contains(parse_error("12", Dimension::bytes), "no unit"));
  // A unit nobody knows.
  CHECK(test::contains(parse_error("12 parsecs", Dimension::bytes), "unknown unit"));
  // Sizes must be positive.
  CHECK(test::contains(parse_error("-3 GB", Dimension::bytes), "positive"));
  CHECK(test::contains(parse_error("0 GB", Dimension::bytes), "positive"));
  // Right syntax, wrong dimension: a capacity where a bandwidth is expected. The message names
  // what it got and what was expected.
  const std::string why = parse_error("4 GB", Dimension::bytes_per_s);
  CHECK(test::contains(why, "bytes"));
  CHECK(test::contains(why, "expected bandwidth"));
  // And the reverse, and other crossings.
  parse_error("4.8 TB/s", Dimension::bytes);
  parse_error("1830 MHz", Dimension::seconds);
  parse_error("5.23 Gbps", Dimension::bytes_per_s);
  // Binary prefixes only on capacities, sub-unit prefixes only on time.
  parse_error("3 GiB/s", Dimension::bytes_per_s);
  parse_error("3 mB", Dimension::bytes);
  parse_error("", Dimension::bytes);
}

TEST_CASE("zero is accepted only where the caller allows it") {
  std::string why;
  auto v = parse_quantity("0 KiB", Dimension::bytes, &why, /*allow_zero=*/true);
  REQUIRE(v.has_value());
  CHECK(*v == 0.0);
  CHECK_FALSE(parse_quantity("-1 KiB", Dimension::bytes, &why, true).has_value());
}

TEST_CASE("a null message pointer is allowed") {
  CHECK_FALSE(parse_quantity("fast", Dimension::bytes, nullptr).has_value());
  CHECK(parse_quantity("1 GB", Dimension::bytes, nullptr).value() == test::approx(1e9));
}

TEST_CASE("formatters") {
  // Llama-2-7B bf16 weights: 13,476,831,232 B / 2^30 = 12.551 GiB (reference B.3: "12.55 GiB").
  CHECK(perfmodel::format_bytes_binary(13476831232.0) == "12.55 GiB");
  CHECK(perfmodel::format_bytes_binary(512.0) == "512.00 B");
  // 22,528 B / 1024 = 22.0 KiB (TinyLlama KV per token).
  CHECK(perfmodel::format_bytes_binary(22528.0) == "22.00 KiB");
  // format_time: seconds as s / ms / us.
  CHECK(perfmodel::format_time(2.0) == "2.000 s");
  CHECK(perfmodel::format_time(4.56e-3) == "4.560 ms");
  CHECK(perfmodel::format_time(12.3e-6) == "12.30 us");
  // format_si with 3 significant digits: 136.02 -> "136", 2039 GB/s -> "2.04 TB/s".
  CHECK(perfmodel::format_si(2039e9, "B/s") == "2.04 TB/s");
  CHECK(perfmodel::format_si(97.5e12, "FLOP/s") == "97.5 TFLOP/s");
  CHECK(perfmodel::format_si(2.5e-6, "s") == "2.5 us");
}

TEST_CASE("format_si matches its documented example (3 significant digits, no trailing zeros)") {
  CHECK(perfmodel::format_si(4.8e12, "B/s") == "4.8 TB/s");
}
