#pragma once
#include <vector>
// The cost families the kernel definitions point at (lib/src/kernels/): each gives a kernel's
// compute, memory and fixed times; price() (price.cpp) combines them. docs/model.md derives each.
#include <optional>

#include "perfmodel/kernel.hpp"
#include "perfmodel/price.hpp"
#include "perfmodel/production_decode.hpp"

namespace perfmodel {

// Memory-bound kernels and chains of them (elementwise, norms, softmax, rotary, KV append,
// embedding): streams, dependent sweeps, the issue roof and a thread's chain (stream_cost.cpp).
KernelTimes stream_cost(const Op& op, const Roofs& r, const Tile* force_tile);
// PyTorch's own kernels as eager runs them, when the eager profile measured them
// (aten_kernel_cost.cpp): F.rms_norm / F.layer_norm / torch.softmax row kernels and
// TensorIterator's generic path. Empty: the op is not one of them, or unmeasured.
std::optional<KernelTimes> aten_kernel_cost(const Op& op, const Roofs& r);
// Tensor-core GEMMs: tiles, waves, split-K / stream-K (gemm_cost.cpp).
KernelTimes gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile);
// cuBLAS's fallback when a row is not 16-byte aligned (TMA cannot load it): GEMV, small-N and
// align1 CUTLASS kernels (gemm_unaligned_cost.cpp).
bool unaligned_gemm_rows(const Op& op);
KernelTimes unaligned_gemm_cost(const Op& op, const Roofs& r);
// torch._grouped_mm's persistent CUTLASS kernel, when the eager profile measured it
// (grouped_mm_cost.cpp): tiles over at most one CTA per SM, each CTA's weight stream; else gemm_cost.
struct GroupedMmTiles {
  int64_t tiles = 0, ctas = 0, waves = 0, rows_per_tile = 0, cols_per_tile = 0;
  int64_t tile_m = 64, tile_n = 128;  // the kernel's tile
  double row_tiles = 1;               // expected M tiles per touched expert (cluster pairs)
  double full_pair_share = 0;         // the share of the tiles in full pairs (exact rows only)
  bool cooperative = false;           // GroupMM.cu's 128 x 256 cooperative kernel
};
GroupedMmTiles grouped_mm_tiles(const Op& op, int64_t sm_count);
KernelTimes grouped_gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile);
// vLLM's fused_moe Triton grouped GEMM, when the profile measured it (fused_moe_cost.cpp).
KernelTimes fused_moe_gemm_cost(const Op& op, const Roofs& r);
// Quantized GEMMs (quant_gemm_cost.cpp): weight-only dequantizing GEMMs, and W8A8 / W4A4 with
// their scales.
KernelTimes weight_only_gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile);
KernelTimes scaled_gemm_cost(const Op& op, const Roofs& r, const Tile* force_tile);
// Flash prefill attention: its CTA schedule over the SMs (flash_prefill_cost.cpp).
KernelTimes flash_prefill_cost(const Op& op, const Roofs& r, const Tile* force_tile);
// Flash-decoding: split kernel and combine (flash_decode_cost.cpp).
KernelTimes flash_decode_cost(const Op& op, const Roofs& r, const Tile* force_tile);

// The conversion of an fp8 KV cache's elements in registers (kv_cache_cost.cpp): 0 for any other
// cache, so bf16 decode prices are unchanged.
double kv_convert_s(const Op& op, const Roofs& r);
// ... on the busiest SM's chain of `chain_keys` keys of one KV head, at one SM's issue rate (0
// likewise).
double kv_convert_chain_s(const Op& op, const Roofs& r, double chain_keys);

// A serving engine's GQA-packed decode (FlashAttention-3, FlashInfer, XQA) priced as cuDNN's decode
// kernel with the engine's split choice (attention_decode_cudnn.cpp): the fused profile's decode
// where the profile measured cuDNN's kernel.
KernelTimes engine_decode_cost(const Op& op, const Roofs& r);

// Production decode attention (production_decode_cost.cpp): the split rule of FlashAttention's
// split-KV kernels with GQA query heads packed into one tile, and the call's cost.
KernelTimes production_decode_cost(const Op& op, const Roofs& r);
// The same with a given kernel's constants (FlashAttention-2's decode, attention_decode_flash2); source_key names
// where they come from (a Roofs::sources key, which --explain prints beside each fixed term).
KernelTimes production_decode_cost(const Op& op, const Roofs& r, const ProductionDecode& d, const char* source_key);

// The effective peak of `p` (throws a clear "card has no <p> peak" when the card has none).
double effective_peak(const Roofs& r, Precision p);
// Reads and writes at their own DRAM rates, or (stream_one_bus) over one bus, the minority direction
// paying the turnaround (stream_rate.hpp).
double stream_memory_s(const Op& op, const Roofs& r);
// A floor fitted on single-call harness times (graph replay / launches: the kernel plus the GPU
// idle after it), as the kernel alone where the profile prices kernels alone (Roofs::
// harness_idle_s: a graph profile, whose step adds graph_kernel_gap per launch); else as fitted.
double kernel_alone_s(double harness_floor_s, const Roofs& r);
// The share of a re-run working set still in L2 (op.l2_hit) streams at the L2 rate.
double with_l2_hit(const Op& op, const Roofs& r, double memory_s);

// Time bands (time_bands.cpp): an op's p10-p90 band at `time_s`, and a combined step's.
TimeBand op_time_band(const Op& op, double time_s, const Roofs& r);
TimeBand step_time_band(const std::vector<const Op*>& ops, const StepCost& s, const Roofs& r);

}  // namespace perfmodel
