// The fused profile's decode attention (cuDNN's GQA-packed kernel, attention_decode_cudnn.cpp)
// priced with a given split decision instead of the engine's own choice: for comparing with a
// harness that ran a kernel with its own split plan (tests/test_quant_kv_accuracy.cpp, the Triton
// stand-in: split kernel + combine, or the split kernel alone), like with like.
#pragma once

#include "perfmodel/kernel.hpp"
#include "perfmodel/price.hpp"

namespace perfmodel {

// split: the keys spread over all SMs and the partial rows merged by a second kernel; else each
// (sequence, KV head) CTA walks its whole cache in one kernel.
KernelTimes engine_decode_cost_as(const Op& op, const Roofs& r, bool split);

}  // namespace perfmodel
