#include "perfmodel/op.hpp"

namespace perfmodel {

std::string to_string(OpKind k) {
  switch (k) {
    case OpKind::gemm: return "gemm";
    case OpKind::attention: return "attention";
    case OpKind::elementwise: return "elementwise";
    case OpKind::norm: return "norm";
    case OpKind::kv_cache: return "kv_cache";
    case OpKind::embedding: return "embedding";
    case OpKind::copy: return "copy";
    case OpKind::other: return "other";
  }
  return "other";
}

std::string to_string(KernelId k) {
  switch (k) {
    case KernelId::gemm: return "gemm";
    case KernelId::copy: return "copy";
    case KernelId::add: return "add";
    case KernelId::gelu_fused: return "gelu_fused";
    case KernelId::gelu_unfused: return "gelu_unfused";
    case KernelId::silu_mul: return "silu_mul";
    case KernelId::gelu_mul: return "gelu_mul";
    case KernelId::mul: return "mul";
    case KernelId::cast: return "cast";
    case KernelId::rmsnorm: return "rmsnorm";
    case KernelId::layernorm: return "layernorm";
    case KernelId::softmax_naive: return "softmax_naive";
    case KernelId::softmax_fused: return "softmax_fused";
    case KernelId::rotary: return "rotary";
    case KernelId::kv_append: return "kv_append";
    case KernelId::embedding: return "embedding";
    case KernelId::attention_decode: return "attention_decode";
    case KernelId::attention_prefill_fused: return "attention_prefill_fused";
    case KernelId::attention_prefill_unfused: return "attention_prefill_unfused";
    case KernelId::other: return "other";
  }
  return "other";
}

}  // namespace perfmodel
