// A decode attention over an fp8 KV cache (issue 12; docs/model.md, "FP8 KV cache").
//
// Production FP8-KV decode kernels (vLLM's TRITON_ATTN and FlashInfer decode, TensorRT-LLM's
// XQA) load K and V as e4m3 bytes and convert each element to bf16 in registers before the MMA:
// the cache streams half of bf16's bytes (the op's bytes_read already counts one byte per
// element), and the conversion is work every element pays. h200-quant3 measured it on a Triton
// split-KV kernel reading either cache: its fp8 form converges to ~2.3e12 K/V elements/s at
// large batch x context whatever the group (bf16 form: ~4.4 TB/s, the same ~2.2e12 elements/s),
// so fp8 saves 0-20 % there, not the half its bytes promise; at small contexts both sit on the
// call's floors. The calibration's `quant: fp8_kv_convert_per_element` (fit_kv_fp8.py) carries
// that cost as warp instructions per element at the card's issue rate; a third bound beside the
// kernel's compute and its stream.
//
// That card-wide share is not what small shapes pay: there the Triton kernel's fp8 form is up to
// 29 % SLOWER than its bf16 form (h200-quant3: 1.0-2.4 us more over 512-2048 keys with 8-64
// CTAs). Each CTA converts its own tiles on its own SM, before each tile's MMAs can start, so the
// conversion runs where the CTAs are: with few CTAs most SMs idle and the time is the busiest
// SM's chain of keys at one SM's issue rate (kv_convert_chain_s; its keys are the kernel plan's),
// not the card's share. A second, free per-element latency on that chain, fitted beside the
// card-wide key on the fit half, lands on one SM's issue time for the same count (0.0560 ns
// against 0.0568; fit_kv_fp8.py --free-latency): one key carries both. fit_kv_fp8.py fits it on
// the fit half's fp8 / bf16 time ratios, so that it does not absorb the base decode model's error
// on those shapes (0.382; on absolute fp8 times it would be 0.414).
#include <algorithm>

#include "kernel_costs.hpp"

namespace perfmodel {

double kv_convert_s(const Op& op, const Roofs& r) {
  if (op.kv_cache != DType::fp8 || r.issue_rate <= 0) return 0;
  const AttentionShape& a = op.attention;
  const double elements = 2.0 * static_cast<double>(a.batch) * static_cast<double>(a.kv_heads) *
                          static_cast<double>(a.kv_len) * static_cast<double>(a.head_dim);
  return elements * r.quant.fp8_kv_convert_per_element / r.issue_rate;
}

double kv_convert_chain_s(const Op& op, const Roofs& r, double chain_keys) {
  if (op.kv_cache != DType::fp8 || r.issue_rate <= 0) return 0;
  // K and V: 2 x head_dim elements per key of the CTA's KV head, at one SM's share of the issue rate.
  const double sm_issue_rate = r.issue_rate / static_cast<double>(std::max(1, r.card.sm_count));
  return 2.0 * static_cast<double>(op.attention.head_dim) * chain_keys * r.quant.fp8_kv_convert_per_element / sm_issue_rate;
}

}  // namespace perfmodel
