#pragma once
// Edits one key of a profile block in a calibration file's text, every other line (comments included) kept: what
// `calibrate --profile` writes (a refit of a few keys must not rewrite the file a person annotated).
#include <string>

namespace perfmodel::cli {

// `text` with profiles: <profile>: <key>: <value>   # <why> set: replaced where the key is; else added after the
// `after` key when the block has it, else first in the block; the block, and profiles:, added when absent. `key` may
// name a key inside a block of the profile: "cudnn_decode.kernel_floor", "gemm.fixed".
std::string set_profile_key(const std::string& text, const std::string& profile, const std::string& key,
                            const std::string& value, const std::string& why, const std::string& after = "");

// "12.3456 us", "599.06 TFLOP/s", "4391.5 GB/s": the calibration file's unit strings.
std::string us_text(double seconds);
std::string ns_text(double seconds);  // below 0.1 us: "0.03037 ns"
std::string tflops_text(double flops_per_s);
std::string gbps_text(double bytes_per_s);

}  // namespace perfmodel::cli
