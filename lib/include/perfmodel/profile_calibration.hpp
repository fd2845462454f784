#pragma once
// What an implementation profile's own kernels cost on one card (issue 10; docs/calibration.md,
// "profiles"). The card's roofs (bandwidths, L2, GEMM peaks, launch floor, power) are the card's;
// attention rates and latencies, per-call floors and small-kernel costs belong to the kernels a
// profile runs and are fitted on those kernels (validation/results/h200-production). make_roofs
// (roofs.cpp) lays a profile's values over the card's, in one place; every field is optional
// ("not measured": the card's value, or the datasheet default, stays).
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/measured.hpp"

namespace perfmodel {

// Production decode attention (FlashAttention-2/3 and FlashInfer split-KV kernels): the query
// heads of a GQA group are packed into one tile, so the KV cache is streamed once per KV head and
// a CTA belongs to one (sequence, KV head). Few such CTAs: the KV is cut into splits (a split kernel
// and a combine); enough of them: one kernel walks the whole cache per CTA (docs/model.md,
// "production decode").
struct ProductionDecode {
  double call_floor_s = -1;    // the smallest call (split kernel + combine), negative: not measured
  double stream_bandwidth = 0;  // split kernel: the KV read rate, B/s
  double combine_per_split_s = 0;  // the combine merges the splits one after another (FA2 combine kernel)
  // One CTA slot's own KV rate, B/s: its loads in flight over the memory latency (Little's law), a property of the SM and
  // the die, not of the card's DRAM. 0: stream_bandwidth over the two slots an SM of the card it was measured on (a full
  // wave's CTAs just reach the measured stream); calibration_transfer keeps that figure when it scales the stream.
  double cta_stream_bandwidth = 0;
  // Non-split kernel: per 128-key tile of one (sequence, KV head) CTA, on one SM, at head dim 128;
  // the share of it that does not scale with the head dim (softmax, as for prefill tiles).
  double nonsplit_tile_s = 0;
  double nonsplit_softmax_share = 0;
  double nonsplit_floor_s = -1;  // one kernel, no combine
  // false: the kernel never splits the KV (PyTorch's memory-efficient / CUTLASS FMHA kernel, what
  // SDPA runs with an attention mask): a CTA per (sequence, head) walks the whole cache.
  bool split_kv = true;
  bool measured() const { return call_floor_s >= 0 && stream_bandwidth > 0; }
};

// cuDNN's decode SDPA (cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_*_16x128x<d>: a
// 16-row query tile, 128-key K/V tiles), what PyTorch's SDPA runs with an attention mask on sm90
// when the cuDNN backend is eligible (transformers' StaticCache under torch.compile,
// validation/results/h200-compiled). A CTA per (sequence, KV head, 16 query rows) streams its
// cache; when those CTAs leave at least half of the SMs idle cuDNN spreads the key tiles over all
// SMs and a second kernel (cudnn::fusion::lean_reduction_kernel) merges the partial rows
// (attention_decode_cudnn.cpp; docs/model.md, "cuDNN decode"). Negative or 0: not measured.
struct CudnnDecode {
  double kernel_floor_s = -1;       // the SDPA kernel's fixed time
  double reduction_floor_s = -1;    // the split path's merge kernel (lean_reduction), whole
  double stream_bandwidth = 0;      // K/V read rate with every SM streaming, B/s
  // A CTA's least time per wave at head dim 128 (scaled by head dim / 128, the bytes of its K/V
  // tiles): a walk of one or two 128-key tiles cannot fill the double-buffered pipeline, so it waits
  // on its first tile's latency-bound fetch (validation/results/h200-cudnn-decode).
  Measured cta_latency_s;
  // 1 (branch compres, opt-in): the masked call (the compiled profile's) priced by the resident rule, two
  // CTAs an SM, with the dirty L2 tail of repeat_kv's expanded K / V written back under it
  // (attention_decode_cudnn.cpp; validation/results/h200-maskocc/README.md). Absent or 0: one CTA an SM.
  Measured masked_resident;
  bool measured() const { return kernel_floor_s >= 0 && reduction_floor_s >= 0 && stream_bandwidth > 0; }
};

// FlashAttention-2's prefill kernel (PyTorch SDPA's `flash` backend, pytorch_flash::flash_fwd_kernel: the code
// flash-attn 2 ships, what transformers' attn_implementation="flash_attention_2" runs) on its own tiles, two CTAs
// an SM (attention_prefill_flash2.cpp; validation/scripts/production/fit_flash2.py). Unset: not measured.
struct Flash2Prefill {
  Measured mma_peak;     // FLOP/s of its mma.sync tiles over the whole card, both CTAs of an SM together
  Measured softmax_s;    // per score element of a key tile, on top of its MMAs (exp, max, sum, rescale)
  Measured mask_s;       // per score element of a key tile that runs the masking branch, on top
  Measured smem_share;   // of a tile's shared-memory reads (every warp reads K and V at 128 B a clock) not hidden
  Measured cta_fixed_s;  // once per CTA: its Q tile in, its O tile out
  Measured call_floor_s;  // once per call
  // How many times its paired pace a CTA runs when the grid leaves every CTA alone on an SM (no more CTAs than SMs;
  // h200-lonecta). Optional: 1.
  Measured lone_pace;
  // How many times its compiled dim's call a head dim short of it costs (48, 80, 112, 160, 224 run the 64, 96, 128,
  // 192, 256 kernels with Is_even_K false: predicated loads, padded columns cleared; fit_flash2_uneven.py on
  // h200-oddsplit). Optional: 1.
  Measured uneven_dim;
  // Its split decode's combine (flash_fwd_splitkv_combine_kernel) walks the splits one after another, a load of each
  // split's partial rows then its scaled sum: an L2 round trip a split, the same on every grid (validation/results/
  // h100-lonesplit, each kernel's device time). Optional: the decode block's combine_per_split.
  Measured combine_per_split_s;
  // The split decode's call outside its two kernels, a CTA of the split kernel's grid (the split kernel's CTAs retired
  // and their partial rows written before the combine starts; h100-lonesplit's replayed calls less their kernels'
  // device times). Optional: none.
  Measured split_gap_per_cta_s;
  // The combine's walk a split where the partial rows it reads were pushed out of L2 by the split kernel's later waves
  // (h100-combinewave: 0.41-0.45 us a split past four waves). Optional: none (every walk from L2).
  Measured combine_dram_per_split_s;
  bool measured() const { return mma_peak && softmax_s && mask_s && smem_share && cta_fixed_s && call_floor_s; }
};

// PyTorch's own kernels as eager runs them (aten_kernel_cost.cpp; docs/model.md, "PyTorch's
// kernels"). Row kernels run one CTA per row walking the row in a dependent loop, so a row's time
// grows with its columns (a chain), and rows beyond the resident CTAs run in waves; a
// TensorIterator kernel over a broadcast or strided operand takes the generic (non-vectorized)
// path, issue-bound on per-element offset arithmetic. Negative or 0: not measured.
struct AtenKernels {
  // F.rms_norm / F.layer_norm: vectorized_layer_norm_kernel, one 128-thread CTA per row.
  double norm_floor_s = -1;
  double rmsnorm_chain_s = -1;    // one row's chain per 1024 columns, data from DRAM
  double layernorm_chain_s = -1;
  int norm_ctas_per_sm = 8;
  // Branch normwaves (aten_kernel_cost.cpp, norm_kernel): a wave's chain grows past half the resident
  // CTAs an SM by this share at a full wave; a later partial wave runs this share of a first one.
  // < 0: whole waves of the chain alone, one read of the row (fit_aten.py's form).
  double norm_wave_ramp = -1;
  double norm_tail_wave = -1;
  // Branch normissue (aten_kernel_cost.cpp, norm_kernel): the SM's warp instructions a clock for the
  // kernel's issue (Nsight Compute, validation/results/h200-normissue), and the exponent of the
  // p-norm that joins the three limits a call meets at once (waves of the chain, the issue, the
  // stream). 0 (absent): the normwaves or fit_aten.py form.
  double norm_issue_ipc = 0;
  double norm_overlap = 0;
  // torch.softmax: persistent warp softmax (<= 2048 columns of 2-byte data: a warp per row),
  // cunn_SoftMaxForwardReg (row in registers, < 10 per thread of a 1024-thread CTA) and
  // cunn_SoftMaxForwardSmem (row in shared memory): per-row time per 1024 columns; the block
  // kernels issue-bound (one row per SM at a time), warps latency-bound (64 rows per SM).
  double softmax_floor_s = -1;
  double softmax_warp_chain_s = -1;
  double softmax_reg_chain_s = -1;
  double softmax_smem_chain_s = -1;
  // The warp softmax over many rows is issue-bound, not latency-bound: elements per second over
  // all SMs of the power-of-two padded row (softmax_warp_forward's WARP_ITERATIONS x 32), for rows
  // of at most 1024 columns (<= 32 values a thread) and for wider ones (64 a thread); 0: the chain
  // alone.
  double softmax_warp_rate = 0;
  double softmax_warp_wide_rate = 0;
  // Branch softmaxocc (aten_kernel_cost.cpp, softmax): the block kernels over many rows are issue-bound
  // at the SM's warp instructions a clock with two 1024-thread CTAs resident and with one (Nsight
  // Compute, validation/results/h200-softmaxocc). 0 (absent): the chain alone.
  double softmax_block_ipc = 0;
  double softmax_block_lone_ipc = 0;
  // TensorIterator's generic path (elementwise_kernel<128, 4>, CatArrayBatchedCopy): elements per
  // second over all SMs, and its floor per kernel.
  double strided_rate = 0;
  double strided_floor_s = -1;
  // torch.cat of a strided source (CatArrayBatchedCopy; DynamicCache's cat of the whole K/V cache,
  // rotate_half's cat): elements per second; 0: the strided rate.
  double cat_rate = 0;
  // An fp8 -> bf16 copy over a strided tensor (the eager FP8-KV path's .to(bf16) of K and V:
  // ATen's unrolled LoadWithCast kernel), elements per second; 0: the strided rate.
  double cast_rate = 0;
  // An int8 -> bf16 copy (a W8A16 weight's .to(bf16) as torchao runs it on a GPU: ATen's unrolled
  // elementwise kernel, its loads one byte an element), elements per second; 0: cast_rate.
  double int8_cast_rate = 0;
  // The same generic kernel over the MoE experts' large [routed rows, width] tensors (a per-row
  // broadcast operand or a chunk view: transformers' grouped_mm experts): operand elements
  // (each element of each operand, output included) per second; 0: the strided rate.
  double generic_operand_rate = 0;
  // torch._grouped_mm (CUTLASS sm90 grouped GEMM, 64 x 128 tiles, persistent: at most one CTA
  // per SM; grouped_mm_cost.cpp): the call's floor (prepare_grouped_gemm_data, the GEMM
  // kernel's launch and its CTAs' first pipeline fill), one CTA's unloaded weight-stream rate
  // and the kernel's DRAM stream shared by its CTAs.
  double grouped_mm_floor_s = -1;
  double grouped_mm_cta_rate = 0;  // B/s
  double grouped_mm_stream = 0;    // B/s
  // The share of the GEMM peak a tile's MMAs reach in each of GroupMM.cu's two kernels (64 x 128
  // pingpong, 128 x 256 cooperative; h200-moe5); 1 when not measured.
  double grouped_mm_pingpong_mma_share = 1;
  double grouped_mm_cooperative_mma_share = 1;
  // The pingpong kernel's DRAM stream when every expert's rows fill its 2 x 1 cluster pairs
  // (h200-moe6: 96-128 balanced rows stream at ~3.7 TB/s, 64 and fewer at the partial-pair rate
  // of the two terms above); 0 when not measured.
  double grouped_mm_full_pair_stream = 0;  // B/s
  // Branch moe14 (opt-in): the share in [0, 1] of the wave-sharing law for a partial pair's per-CTA
  // term (a CTA's first tile pays it all, later ones c_eff / W of it; grouped_mm_cost.cpp); 0 (absent)
  // keeps moe9's law, the per-CTA term on every wave.
  double grouped_mm_wave_sharing = 0;
  // Branch moe15 (opt-in, with the law above): the unhidden tile switch (epilogue + scheduler step) a
  // CTA tile pays at K 768, scaled 768 / K (grouped_mm_cost.cpp); 0 (absent) = none.
  double grouped_mm_tile_switch_s = 0;
  bool grouped_mm_measured() const {
    return grouped_mm_floor_s >= 0 && grouped_mm_cta_rate > 0 && grouped_mm_stream > 0;
  }
  bool rows_measured() const { return norm_floor_s >= 0 && rmsnorm_chain_s > 0 && layernorm_chain_s > 0; }
  bool softmax_measured() const {
    return softmax_floor_s >= 0 && softmax_warp_chain_s > 0 && softmax_reg_chain_s > 0 && softmax_smem_chain_s > 0;
  }
  bool strided_measured() const { return strided_rate > 0 && strided_floor_s >= 0; }
};

// Inductor's row reductions (torch.compile; the fused profile's stand-in for a serving engine's
// fused norms and softmax; inductor_row_cost in stream_cost.cpp). A row of more than 1024 columns
// is a looped reduction (triton_red_*: XBLOCK 1, R0_BLOCK 2048, 16 warps, one CTA per row), which
// walks the row twice in 2048-column blocks, the last block masked but issued in full; its
// per-element work (Welford's division, the online softmax's exps and divide) is issue-bound on
// the SM. Elements per second over all SMs, of the padded row; 0: not measured (the generic
// stream model alone). validation/results/h200-eltwise4/inductor_code.json holds the generated code.
struct InductorKernels {
  double rmsnorm_rate = 0;
  double layernorm_rate = 0;
  double softmax_rate = 0;
  // The looped reduction's walk (stream_cost.cpp, inductor_walk_s): a row's fixed chain and each
  // 2048-column block's dependent time, per op (num_stages 1: a block's loads wait on the last).
  double looped_row_s = 0;
  double rmsnorm_block_s = 0;
  double layernorm_block_s = 0;
  double softmax_block_s = 0;
  // The autotuner's other candidate (branch eltwise7, stream_cost.cpp): the whole row in one block
  // of 4096 (16 warps), up to 4096 columns: the round trips it saves against the 2048-column walk
  // of two blocks. 0: not priced (the walk alone).
  double whole_row_saved_s = 0;
  // The least columns the walk is priced at (branch eltwise14): 0, every looped reduction; 4097 in
  // validation/results/h200-eltwise14's opt-in, rows of three blocks or more only, where the walk is
  // the candidate the autotuner keeps (below, which one ran is the compile's history: the default's
  // sweeps).
  double walk_from_cols = 0;
  // rms_norm's resident-row groups (branch inductorsmall, inductor_rms_queue.cpp): at many rows an SM
  // the looped rms_norm holds 4 CTAs an SM and each group of resident rows takes a chain of round
  // trips, a fixed part and a part a loaded block. 0: not priced (the stream alone).
  double rmsnorm_group_s = 0;
  double rmsnorm_group_block_s = 0;
  // Branch rotary: a measured torch.compile rotary call's kernels keep the call's L2 share (the
  // harness's rotated set, to_op_on) in compiled_form; 0 (absent): priced DRAM-fed, as before.
  // Branch rotary's opt-in (validation/results/h200-rotary/h200.calibration.rotaryl2.yaml); 1 in
  // hardware/h200.calibration.yaml since branch tinyl2, the share being that of the inputs the
  // harness rotates (lib/src/step/inductor_pointwise_l2.hpp).
  double rotary_call_l2 = 0;
  // Branch splitodd (inductor_split.cpp): the warp instructions a clock that a split reduction's
  // partial issues on one SM: one 16-warp CTA alone (latency-bound: fitted) and the SM's sustained
  // issue once enough CTAs share it (Nsight Compute, h200-splitodd). 0: the partial only streams.
  double split_ipc_cta = 0;
  double split_ipc_sm = 0;
  bool walk_measured() const { return looped_row_s > 0; }
  bool measured() const { return rmsnorm_rate > 0 || layernorm_rate > 0 || softmax_rate > 0 || walk_measured(); }
};

// cuBLASLt as PyTorch calls it (F.linear, torch._scaled_mm: nvjet kernels, split-K with a
// splitKreduce kernel; gemm_cost.cpp): the GEMM's fixed cost beyond the launch floor, the
// reduction kernel a split-K plan adds, one CTA's K loop per 1024 of K (Little's law) and the share of
// the read rate a full grid streams at, and the fp8 rate of its kernels. validation/scripts/production/fit_gemm.py fits them on
// h200-production's even GEMM cases; not measured: the card's gemm_* keys.
struct ProductionGemm {
  Measured fixed_s;
  Measured split_k_reduce_s;
  Measured cta_walk_per_1024_k_s;
  Measured stream_efficiency;
  Measured fp8_peak;  // FLOP/s: cuBLASLt's fp8 kernels (optional; else the card's gemm_peak.fp8)
  // Optional: the share of one CTA's K-loop pace that does not scale with the tile's operand
  // rows (PlanCosts::cta_walk_latency_share); present, the skinny tiles are priced too.
  Measured cta_walk_latency_share;
  // Optional (branch block11): cuBLASLt's split-K rule, the least K depth of a split (a tile whose
  // grid leaves SMs idle is split min(SMs / grid, K / depth) ways, or not below 2); present, a
  // split-K plan's reduction is split_k_reduce plus its partials at the read rate (gemm_cost.cpp).
  Measured split_k_min_slice;
  // Optional (branch fp8tf32): cuBLAS's sm90 xmma tf32 kernels' own fixed time past `fixed` (fitted on
  // nvjet's kernels): their fp32 pipeline fill and epilogue (gemm_cost.cpp adds it to an xmma plan).
  Measured xmma_tf32_fixed_s;
  // Optional (branch tf32split): cuBLAS's CUTLASS sm80 split-K tf32 kernel's own fixed time past `fixed`
  // and the reduce (cutlass_tf32_split.hpp); absent, the H200 fit compiled in (cutlass_tf32_split_fixed_s).
  Measured cutlass_tf32_fixed_s;
  // Optional (branch nvjettile, opt-in: validation/results/h200-nvjettile): 1 offers nvjet's one-wave tiles
  // (gemm_tiling.hpp nvjet_fill_tiles) to the plan choice; absent or 0, the fixed tile set.
  Measured nvjet_fill_tiles;
  // 1: each nvjet tile after an SM's first pays one memory latency refilling its stage ring
  // (gemm_tiling.hpp PlanCosts::tile_refill_s; branch smallk); absent or 0, not priced.
  Measured tile_refill;
  // Optional (branch shortk): the bf16 and fp16 MMA level of cuBLASLt's nvjet kernels over the card's
  // gemm_peak (the 8192^3 measurement, priced without the refill), refitted with tile_refill on; absent, 1.
  Measured peak_scale;
  // Optional (branch shortk): 1, the last wave's C write runs after its mainloop (PlanCosts::epilogue_tail_of).
  Measured epilogue_tail;
  // Optional (branch gemmtile): 1, a split-K plan's GEMM kernel writes its fp32 partials (M x N x 4 B a split)
  // after its K loop, into L2 (PlanCosts::split_partials_write_of); absent or 0, only the reduce's reads are priced.
  Measured split_partials;
  // Optional (branch gemmtile2): 1, cuBLASLt's nvjet grids of whole waves where the block gives its split rule: the
  // one-wave fill tiles sized for grids of up to kNvjetWaveTilesMaxWaves waves too, no stream-K hybrid, and the
  // TNN step-8 pace cap on one-wave grids only (gemm_tiling.hpp PlanCosts::nvjet_wave_tiles); absent or 0, not.
  Measured nvjet_wave_tiles;
  bool measured() const { return fixed_s && split_k_reduce_s && cta_walk_per_1024_k_s && stream_efficiency; }
};

// vLLM's fused_moe Triton grouped GEMM (the fused profile's grouped_gemm; fused_moe_cost.cpp):
// its floor per launch, one CTA's weight stream alone (Little's law over its pipeline stages),
// the card's stream its resident CTAs share, and the share of the bf16 GEMM peak its 64 x 64
// tiles reach when compute-bound. validation/scripts/moe/fit_fused_moe.py fits them on part of
// validation/results/h200-moe-fused2; not measured: the dense GEMM model (gemm_cost).
struct FusedMoeGemm {
  Measured floor_s;
  Measured cta_rate;        // B/s
  Measured stream;          // B/s
  // The stream when a K step loads half a 128-byte line of each weight row (BLOCK_K 32 in bf16:
  // h200-moe5, the same kernel at BLOCK_K 64 streams 1.6x faster); absent: `stream`.
  Measured half_line_stream;  // B/s
  Measured mma_efficiency;  // of the card's gemm peak at the op's precision
  // At half lines, the rate the L2 serves the tiles' loads: every CTA K step's BLOCK_M x BLOCK_K rows of A (the
  // padded rows too) and BLOCK_K x BLOCK_N weights (h100-prefillncu: the L2 84-94 % busy at the prefills, the SMs
  // 25-29 %); absent: no L2 term.
  Measured l2_tile_rate;  // B/s
  // Optional: the exponent joining the weight stream and the real tile loads (h100-moeh100e); absent: the larger of
  // the stream and the padded tile loads alone.
  Measured l2_stream_norm;
  bool measured() const { return floor_s && cta_rate && stream && mma_efficiency; }
};

struct ProfileCalibration {
  std::string name;       // fused | eager | compiled
  std::string fitted_on;  // what the values come from (the implementations and the case split)
  // Prefill attention: the tile model of flash_prefill_cost.cpp, refitted on the profile's kernel.
  Measured attention_peak;           // FLOP/s at head dim 128
  Measured attention_softmax_share;  // of a K/V tile's time at head dim 128, not scaling with it
  Measured attention_cta_fixed_s;
  Measured attention_call_floor_s;   // the kernel's floor per call
  ProductionDecode decode;
  Flash2Prefill flash2;  // eager: FlashAttention-2 prefill (attention_prefill_flash2)
  ProductionGemm gemm;
  FusedMoeGemm fused_moe;  // fused: vLLM's fused_moe grouped GEMM
  // PyTorch eager as transformers runs it: the host time per kernel launched (Python module
  // calls, dispatcher, launch); not measured: the card's eager_dispatch.
  Measured host_per_kernel_s;
  // The host time of one eager step outside its ops (transformers' forward around the decoder layers: the mask,
  // cache positions, the output; validation/results/h200-hostlease), measured by `calibrate --profile eager` from
  // two probe depths; not measured: 0 (the committed host_per_kernel was fitted with none).
  Measured host_per_step_s;
  // Branch hostmod2: the host's time per top-level ATen op transformers dispatches (launching or
  // not) and per nn.Module call; when host_per_aten is set it replaces host_per_kernel and the
  // card's eager_view (price.cpp).
  Measured host_per_aten_s, host_per_module_s;
  // Branch hostaten: the host's time per top-level ATen op that launches no kernel (a view,
  // reshape, transpose, expand: dispatch and a TensorImpl, no TensorIterator / launch); when set,
  // host_per_aten prices only the ATen ops that launch (price.cpp, eager_host_time).
  Measured host_per_aten_view_s;
  AtenKernels aten;  // eager: PyTorch's own kernels
  InductorKernels inductor;  // compiled (and the fused profile's stand-in): Inductor's row reductions
  CudnnDecode cudnn_decode;  // compiled: cuDNN's decode SDPA (attention_decode_cudnn)
  // compiled: host time of one call of the compiled step before its CUDA graph starts (dynamo's
  // guards, the cudagraph tree's checks and input copies), during which the GPU idles; 0: none.
  double graph_call_host_s = 0;
  // compiled (branch hostreplay): the host time before the replay per static graph input (the
  // ops' graph_inputs), on top of graph_call_host; 0: flat (validation/results/h200-hostreplay).
  double graph_call_host_per_input_s = 0;
  double graph_kernel_gap_s = 0;  // compiled: GPU idle time between kernels of the graph replay
  // fused: the host's cudaGraphLaunch per kernel node of the step's graph (host time, as
  // graph_call_host; validation/results/h200-fused-step-alone); 0: none.
  double graph_launch_per_node_s = 0;
  // A graph profile's small kernels priced alone: the GPU idle that a single-call harness replay
  // holds after one kernel (validation/results/h200-gemm-chain, 0.46 us), which the floors fitted
  // on harness times carry and the step's graph_kernel_gap adds again; 0: priced as fitted.
  double harness_idle_s = 0;
};

// The named profile of `profiles`, or none.
const ProfileCalibration* find_profile(const std::vector<ProfileCalibration>& profiles, const std::string& name);

}  // namespace perfmodel
