// Inductor's prefill rotary + KV write inside the fused steps (branch rope10, issue 10;
// validation/results/h200-rope10). fused_step.py's rope_kv is compiled with dynamic shapes at
// decode sizes (the sweep's decode points come first), so its three Triton kernels carry the block
// Inductor's pointwise heuristic picks for a size hint of 8 tokens: XBLOCK 256 or 128 (its two
// autotune candidates), 4 warps, 1-2 elements a thread; the prefill steps reuse that graph. The
// kernels then run T x heads x head_dim / XBLOCK CTAs of one short dependent chain each (the
// position, the gathered cos/sin row, the store): measured on the H200 the time is the CTA count
// x 0.74-0.80 ns whether XBLOCK is 128 or 256 (Llama-3-8B / Qwen2.5-7B / TinyLlama q at 2048-4096
// tokens, alone and inside the step alike), i.e. waves of SMs x 16 resident 128-thread CTAs, each
// wave one CTA's chain (1.6 us: the DRAM round trip and the rotary thread chain, the card's own
// pass_latency + thread_chain.rotary). The same function compiled at prefill sizes (XBLOCK 1024)
// streams at 2.4 TB/s instead (validation/results/h200-gemm7): the compile history, not the step,
// sets the time.
#include "inductor_waves.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace perfmodel {

namespace {

// Inductor's triton_config gives a block of >= 128 elements at least 4 warps.
constexpr int kBlockWarps = 4;

// The Triton kernels an op stands for, by their elements: the rotary op is q's rotation and k's
// (k's kernel also writes k to the cache); the KV write op is v's cache write.
std::vector<double> kernel_elements(const Op& op) {
  const double t = static_cast<double>(op.rows), d = static_cast<double>(op.attention.head_dim);
  if (op.kernel == KernelId::rotary)
    return {t * static_cast<double>(op.attention.heads) * d, t * static_cast<double>(op.attention.kv_heads) * d};
  if (op.kernel == KernelId::kv_append) return {t * static_cast<double>(op.attention.kv_heads) * d};
  return {t * static_cast<double>(op.cols)};
}

}  // namespace

std::optional<double> inductor_block_waves_s(const Op& op, const Roofs& r, double wave_s) {
  // Only where the fused profile prices its stand-in: the card's own roofs price the validation
  // backend's steps, whose rotary is its own kernel (validation/results/h200), not Inductor's.
  if (op.inductor_block <= 0 || r.profile != "fused" || op.rows <= 0 || r.card.sm_count <= 0) return std::nullopt;
  const double threads = static_cast<double>(kBlockWarps * r.card.limits.warp_size);
  const double resident = std::max(1.0, std::floor(static_cast<double>(r.card.limits.max_threads_per_sm) / threads));
  const double slots = resident * static_cast<double>(r.card.sm_count);
  const double block = static_cast<double>(op.inductor_block);
  double waves = 0;
  for (const double e : kernel_elements(op)) {
    // The autotuner times the block and its half at the compile's size (8 tokens), where the two
    // tie; which one a compile keeps is not modelled (h200-rope10: 5 of 9 kernels kept the half,
    // the sweep's fit the same picks): the mean of their waves.
    waves += 0.5 * (std::ceil(e / block / slots) + std::ceil(e / (block / 2) / slots));
  }
  return std::max(0.0, waves - 1) * wave_s;
}

}  // namespace perfmodel
