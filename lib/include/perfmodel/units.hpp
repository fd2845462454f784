#pragma once
// Unit strings ("4.8 TB/s", "141 GB", "80 GiB", "989 TFLOP/s", "1830 MHz") are parsed here, at
// the edge, into SI doubles: bytes, bytes/s, FLOP/s, Hz, bits, bit/s, seconds.
// Decimal prefixes (k M G T P) are powers of 1000; binary ones (KiB MiB GiB TiB) powers of 1024.
#include <optional>
#include <string>
#include <string_view>

namespace perfmodel {

enum class Dimension { bytes, bytes_per_s, flop_per_s, hertz, bits, bits_per_s, seconds, watts };

std::string_view to_string(Dimension d);

// Parses "<number> <unit>" for the given dimension. Returns nullopt with *why set when the
// string is malformed, the unit belongs to another dimension, or the value is not positive.
std::optional<double> parse_quantity(std::string_view text, Dimension dim, std::string* why,
                                     bool allow_zero = false);

// Human-readable formatting with an SI prefix, e.g. format_si(4.8e12, "B/s") == "4.8 TB/s" (3 significant digits).
std::string format_si(double value, std::string_view unit, int precision = 3);
// Seconds as "12.3 us" / "4.56 ms".
std::string format_time(double seconds);
// Bytes with binary prefixes, e.g. "12.55 GiB".
std::string format_bytes_binary(double bytes);

}  // namespace perfmodel
