#pragma once
// What is being run (ARCHITECTURE.md: Workload): phase, batch, context, dtypes, implementation.
#include <cstdint>
#include <string>

#include "perfmodel/dtype.hpp"
#include "perfmodel/fused_moe_tiles.hpp"
#include "perfmodel/parallel.hpp"
#include "perfmodel/quant.hpp"

namespace perfmodel {

enum class Phase { prefill, decode };

// Implementation profile (docs/profiles.md):
//  fused: what serving engines do — fused norm, activation, rotary and KV write, flash
//         attention, the step replayed as one CUDA graph (no host gaps).
//  eager: PyTorch eager as HF transformers runs it — every elementwise op its own kernel,
//         RMSNorm in fp32 through several kernels, unfused attention, host launch per op.
enum class Impl { fused, eager, compiled };

struct Workload {
  Phase phase = Phase::decode;
  int64_t batch = 1;
  // decode: tokens in the KV cache that the new token attends to (the new one included);
  // prefill: prompt length.
  int64_t ctx = 2048;
  DType weight_dtype = DType::bf16;
  DType act_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  QuantScheme quant;  // quantized linears (issue 12, quant.hpp): unquantized by default
  Impl impl = Impl::fused;
  bool allow_tf32 = false;       // fp32 matmuls on tensor cores
  bool lm_head_all_positions = false;  // prefill: logits for every position (training-style)
  // MoE routing skew: the experts' popularity falls as rank^-skew (Zipf); 0 = uniform routing
  // (ops::experts_touched).
  double routing_skew = 0;
  // The fused profile's fused_moe configs by tokens (a vLLM tuned file, `--moe-config`): vLLM runs the entry nearest
  // the step's tokens; empty: vLLM's default config (fused_moe_tiles.hpp).
  FusedMoeTiles fused_moe_tiles;
  std::string fused_moe_tiles_file;  // where they were read (echoed in the JSON's workload)
  // Eager: false (the default): a contiguous DynamicCache, as a generate() loop leaves it (what users run;
  // h200-moe-contiguous, h200-hf-grid and later); true: its keys and values are strided views (cache.crop()
  // between steps, how h200-production and h200-moe measured), so its torch.cat takes the generic kernel, up to
  // ~6x the contiguous cat's time at long contexts.
  bool eager_cache_cropped = false;
  // Eager: the attention transformers' modules call. false: attn_implementation="sdpa" (PyTorch's SDPA picks cuDNN
  // on sm90, as measured); true: "flash_attention_2" (flash-attn 2's kernels, the same code as SDPA's flash backend:
  // attention_prefill_flash2 / attention_decode_flash2).
  bool eager_flash_attention_2 = false;
  // Seconds the GPU rests (idle or spinning one thread, at idle power) before each step: the
  // board's power cap acts on the power averaged over steps and rests alike (power.hpp), so a
  // harness that rests between replays (fused_replay_probe.py's 3 ms spin before each spin-first
  // replay) runs a compute-bound step at a higher clock than a serving loop, which rests 0 s.
  double gpu_rest_s = 0;
  // Over how many GPUs, and how (parallel.hpp). `batch` is one replica's sequences; build_step
  // builds one GPU's step (one pipeline stage) for them, evaluate() one per micro-batch.
  Parallelism parallel;

  int64_t new_tokens_per_seq() const { return phase == Phase::decode ? 1 : ctx; }
  int64_t tokens() const { return batch * new_tokens_per_seq(); }
};

std::string to_string(Phase p);
std::string to_string(Impl i);

}  // namespace perfmodel
