#pragma once
// What quantized GEMM kernels cost on one card beyond their bytes and FLOPs (issue 12): the
// `quant:` section of hardware/<card>.calibration.yaml (docs/calibration.md), fitted by
// validation/scripts/quant/fit_quant.py on half of validation/results/h200-quant and h200-quant2.
#include <string>

namespace perfmodel {

// A weight-only dequantizing GEMM (docs/model.md, "Quantized linears"): its packed-weight stream
// reaches `stream_efficiency` of the DRAM read rate, and the dequantization and MMA issue work,
// repeated for every row of x, costs `issue_per_row_element` warp instructions per row and
// weight element at the card's issue rate. 0 = not measured (the defaults below).
// torch int8pack's own kernel (one thread per output, quant_gemm_cost.cpp int8pack_cost) takes
// two other figures, in SM clock cycles per K step: a thread's dependent chain
// (`thread_step_cycles`) and one warp's share of its SM's load pipe (`warp_step_cycles`); with
// both > 0 they price it instead of the two above.
struct WeightOnlyCost {
  double stream_efficiency = 0;
  double issue_per_row_element = 0;
  double thread_step_cycles = 0;
  double warp_step_cycles = 0;
};

// An INT8 GEMM built for an older tensor-core instruction than the card's own (docs/model.md,
// "INT8 W8A8"): PyTorch's torch._int_mm runs CUTLASS's sm80 kernels (mma.sync) on Hopper, whose
// int8 datasheet rate is wgmma's. Every 128-deep K step of a CTA's tile costs its MMA at the SM's
// datasheet int8 rate plus the fill of its real A rows and its B columns into shared memory at
// `fill_rate` (bytes/s of one SM's L2-to-SM path), both shared by the CTAs resident on the SM; a
// CTA alone on its SM also waits `latency_s` of load latency per (stages - 1) steps; the weight
// stream reaches `stream_efficiency` of the read rate (quant_gemm_cost.cpp). 0 = not measured:
// the card's int8 GEMMs are priced at its (calibrated or datasheet) int8 peak.
struct MmaSyncGemmCost {
  double fill_rate = 0;
  double latency_s = 0;
  double stream_efficiency = 0;
  bool measured() const { return fill_rate > 0 && latency_s > 0 && stream_efficiency > 0; }
};

// cuBLASLt's row-scaled ("ovscale") FP8 kernel on Hopper, one 128x128 tile per CTA: one wave's
// CTAs walk their padded K loop at `cta_mma_efficiency` of an SM's datasheet fp8 rate after a
// `one_wave_prologue_s` outside it, its weight stream reaches `stream_efficiency` of the read rate,
// and every CTA's K step with rows of its 128-row A tile padded costs `padded_row_step_s` (at
// 128 padded rows) per CTA walking at once, up to `padded_step_cap_s` a step (quant_gemm_cost.cpp
// padded_row_time). 0 = absent (no cap: the step grows with every CTA).
struct RowScaledFp8Cost {
  double cta_mma_efficiency = 0;
  double stream_efficiency = 0;
  double padded_row_step_s = 0;
  double one_wave_prologue_s = 0;
  double padded_step_cap_s = 0;
  // With the cap (waves priced one after another, fp8cap10): one SM's weight stream alone, beside
  // the card's rate (B/s; h200-fp8cap10: 3.3 TB/s at 64 CTAs, 3.7-3.9 at 96-132). Needs the cap.
  double sm_stream_bps = 0;
  // Past 128 rows (fp8row11): the A + B tile bytes L2 hands the SMs a second, nominal bytes
  // (B/s; h200-fp8row11: 10.6 TB/s, 1.7x the card's L2 copy rate). Needs the cap.
  double l2_tile_bps = 0;
  // A partial last row tile (fp8row12): each full tile's CTA walking beside the padded ones counts
  // this share of one of them in the padded step's law (h200-fp8row12: 0.36). 0 = only the padded
  // tile's own CTAs (fp8row11's law).
  double padded_full_walker = 0;
};

// cuBLASLt's block-scaled FP8 kernel on Hopper (1x128 activation x 128x128 weight scales, the
// DeepSeek-V3 recipe; "..._128x128_128x6_..._Ablk128_Bvec128"): the same 128x128 tile, but no
// padded-row term (h200-quant2: M = 16 as fast as M = 128). One wave walks its K loop at
// `cta_mma_efficiency` of an SM's datasheet fp8 rate after `one_wave_prologue_s`; the weight stream
// reaches `stream_efficiency` of the read rate. 0 = absent (the row-scaled kernel's keys price it).
struct BlockScaledFp8Cost {
  double cta_mma_efficiency = 0;
  double stream_efficiency = 0;
  double one_wave_prologue_s = 0;
  bool measured() const { return cta_mma_efficiency > 0 && stream_efficiency > 0; }
};

// cuBLASLt's tensor-wise FP8 kernels on Hopper (torch._scaled_mm with one scale each:
// "nvjet_sm90_qqtst_<tile>_..."): their tile menu (64x8 to 384x16 at 16 rows, 112x128, 144x128,
// 128x160 at many) is sized to the rows and to fill the SMs, so neither padded rows nor wave
// quantization bound them. The MMA runs at `mma_efficiency` of the datasheet fp8 rate (what the
// power cap sustains), the weight stream at `stream_efficiency` of the read rate, the two
// overlapping in part, after `prologue_s` (quant_gemm_cost.cpp tensor_fp8_cost). 0 = absent: the
// card's tile plan at its calibrated fp8 peak.
struct TensorScaledFp8Cost {
  double mma_efficiency = 0;
  double stream_efficiency = 0;
  double prologue_s = 0;
  // One SM's operand fill (branch fp8tf32): the A and B bytes a CTA's K walk takes into shared
  // memory a second, priced on the least a step of the grid's output share can take (a square
  // tile of M N / SMs); the walk is a floor under the MMA and the stream. 0 = not priced.
  double sm_fill_bps = 0;
  bool measured() const { return mma_efficiency > 0 && stream_efficiency > 0; }
};

struct QuantCalibration {
  WeightOnlyCost int4;  // tinygemm W4A16 (torch._weight_int4pack_mm)
  WeightOnlyCost int8;  // torch._weight_int8pack_mm W8A16
  MmaSyncGemmCost int8_mma_sync;  // torch._int_mm's sm80 kernel (eager and compiled profiles)
  RowScaledFp8Cost fp8_row;       // torch._scaled_mm / cuBLASLt row-scaled FP8
  BlockScaledFp8Cost fp8_block;   // torch._scaled_mm / cuBLASLt 128x128 block-scaled FP8
  TensorScaledFp8Cost fp8_tensor;  // torch._scaled_mm / cuBLASLt tensor-wise FP8 (nvjet)
  // An fp8 (e4m3) KV cache read by a decode attention that converts each K and V element to
  // bf16 in registers before its MMAs: warp instructions per element at the card's issue rate
  // (kv_cache_cost.cpp). 0 = not measured (QuantDefaults).
  double fp8_kv_convert_per_element = 0;
  std::string source;             // the measurements and the fit the section comes from
};

// Documented defaults for cards without a measurement: the H200 fit of PyTorch's kernels
// (validation/results/h200-quant/README.md), carried in units that scale with the card's DRAM
// read rate and issue rate.
struct QuantDefaults {
  static constexpr WeightOnlyCost int4{0.335, 0.0617};
  static constexpr WeightOnlyCost int8{0.030, 2.0, 75.9, 18.63};
  // A card without a measurement of the row-scaled kernel: its datasheet rates (full SM fp8 rate,
  // full read rate).
  static constexpr RowScaledFp8Cost fp8_row{1.0, 1.0};
  // The conversion alone: cvt.rn.f16x2.e4m3x2 then f16x2 -> bf16x2 through fp32, about 2 thread
  // instructions per element (PTX ISA, cvt), 1/16 of a warp instruction.
  static constexpr double fp8_kv_convert_per_element = 2.0 / 32.0;
};

}  // namespace perfmodel
