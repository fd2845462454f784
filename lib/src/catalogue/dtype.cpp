#include "perfmodel/dtype.hpp"

#include <array>

namespace perfmodel {

namespace {
constexpr std::array<std::string_view, 10> kDTypeNames{"fp64", "fp32", "tf32", "bf16",  "fp16",
                                                       "fp8",  "int8", "int4", "nvfp4", "mxfp4"};
constexpr std::array<std::string_view, kPrecisionCount> kPrecisionNames{
    "fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp16", "fp16_acc16", "fp8", "int8", "fp4"};
}  // namespace

double bytes_of(DType t) {
  switch (t) {
    case DType::fp64: return 8;
    case DType::fp32:
    case DType::tf32: return 4;
    case DType::bf16:
    case DType::fp16: return 2;
    case DType::fp8:
    case DType::int8: return 1;
    case DType::int4:
    case DType::nvfp4:
    case DType::mxfp4: return 0.5;
  }
  return 0;
}

std::string_view to_string(DType t) { return kDTypeNames[static_cast<size_t>(t)]; }

std::optional<DType> dtype_from_string(std::string_view s) {
  for (size_t i = 0; i < kDTypeNames.size(); ++i)
    if (kDTypeNames[i] == s) return static_cast<DType>(i);
  if (s == "float32") return DType::fp32;
  if (s == "bfloat16") return DType::bf16;
  if (s == "float16") return DType::fp16;
  if (s == "float64") return DType::fp64;
  return std::nullopt;
}

std::string dtype_names() {
  std::string s;
  for (auto n : kDTypeNames) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

std::string_view to_string(Precision p) { return kPrecisionNames[static_cast<size_t>(p)]; }

std::optional<Precision> precision_from_string(std::string_view s) {
  for (size_t i = 0; i < kPrecisionNames.size(); ++i)
    if (kPrecisionNames[i] == s) return static_cast<Precision>(i);
  return std::nullopt;
}

bool is_tensor(Precision p) {
  return p != Precision::fp32 && p != Precision::fp64;
}

Precision matmul_precision(DType t, bool allow_tf32) {
  switch (t) {
    case DType::fp64: return Precision::fp64_tensor;
    case DType::fp32: return allow_tf32 ? Precision::tf32 : Precision::fp32;
    case DType::tf32: return Precision::tf32;
    case DType::bf16: return Precision::bf16;
    case DType::fp16: return Precision::fp16;
    case DType::fp8: return Precision::fp8;
    case DType::int8: return Precision::int8;
    case DType::int4: return Precision::int8;  // no int4 MMA on current cards; W4A16 runs at the act's peak (quant.cpp)
    case DType::nvfp4:
    case DType::mxfp4: return Precision::fp4;
  }
  return Precision::fp32;
}

Precision vector_precision(DType t) {
  return t == DType::fp64 ? Precision::fp64 : Precision::fp32;
}

}  // namespace perfmodel
