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
    case OpKind::collective: return "collective";
    case OpKind::other: return "other";
  }
  return "other";
}

}  // namespace perfmodel
