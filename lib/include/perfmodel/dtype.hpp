#pragma once
// Storage types of weights, activations and the KV cache, and the peak (precision x unit) that a
// matrix product in that type runs at.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfmodel {

// int4, nvfp4 and mxfp4 are packed two to a byte; their scales are counted by quant.hpp.
enum class DType { fp64, fp32, tf32, bf16, fp16, fp8, int8, int4, nvfp4, mxfp4 };

// Bytes per stored element. TF32 is stored as FP32; the 4-bit types take half a byte.
double bytes_of(DType t);
std::string_view to_string(DType t);
std::optional<DType> dtype_from_string(std::string_view s);
std::string dtype_names();  // "fp64, fp32, ..." for error messages

// A datasheet peak: which unit runs the FLOPs at which precision. The keys are those of
// hardware/*.yaml `peaks:` (docs/catalogue-schema.md).
// fp4: Blackwell's FP4 tensor cores (NVFP4 / MXFP4), the `fp4` peak key.
enum class Precision { fp64, fp64_tensor, fp32, tf32, bf16, fp16, fp16_acc16, fp8, int8, fp4 };
inline constexpr int kPrecisionCount = 10;
std::string_view to_string(Precision p);
std::optional<Precision> precision_from_string(std::string_view s);
bool is_tensor(Precision p);

// The peak a matrix product in `t` uses (seed 004 错误三: compare a measurement with the peak of
// the same precision and unit). FP32 runs on CUDA cores unless TF32 is allowed.
Precision matmul_precision(DType t, bool allow_tf32);
// The peak that elementwise arithmetic in `t` uses: always CUDA cores (seed 000: "поэлементное
// сложение идёт на CUDA-ядрах").
Precision vector_precision(DType t);

}  // namespace perfmodel
