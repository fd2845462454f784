"""A held-out set of production kernels measured after every fit (lead, 2026-12-02; issue 10's
targets): attention and GEMM shapes that no committed set holds, spanning the issue's envelope, so
`perfmodel accuracy` on it is a check nothing was fitted on.

    python3 validation/scripts/production/run_all.py OUT --shapes heldout16 --groups attention,gemm

Attention through cuDNN's fused SDPA and the flash backend (the efficient backend is not a
production path); shapes chosen off the grids of attention.py: head dims 64 / 128 / 256, GQA
groups 1-8 including 2, 5 and 6, sequence lengths that are not powers of two, 64k and 128k prefill,
batch up to 256. GEMMs: F.linear / torch._scaled_mm on the projections of models the project has
not measured (Phi-3-mini, Mistral-Nemo-12B, Gemma-2-9B, Llama-3-70B under tensor parallelism of 2),
M from 1 to 16384 at values that are not powers of two, bf16 / fp16 / tf32 / fp8.
"""

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 32, 8, 65536, 128), (1, 32, 8, 131072, 128), (1, 32, 8, 3000, 128), (3, 32, 8, 1500, 128),
    (1, 40, 8, 8192, 128), (2, 24, 4, 2048, 128), (1, 24, 12, 6144, 128), (128, 32, 8, 256, 128),
    (48, 28, 4, 768, 128), (4, 16, 16, 2048, 64), (1, 32, 4, 8192, 64), (256, 16, 4, 256, 64),
    (2, 8, 4, 4096, 256), (1, 16, 16, 8192, 256), (6, 16, 8, 1000, 256),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (2, 32, 8, 100000, 128), (4, 40, 8, 6000, 128), (24, 28, 4, 3000, 128), (96, 32, 8, 2048, 128),
    (200, 32, 8, 700, 128), (1, 64, 8, 32768, 128), (160, 8, 1, 1024, 128), (64, 24, 24, 2500, 128),
    (48, 32, 4, 1500, 64), (12, 16, 8, 9000, 256), (3, 16, 8, 40000, 256), (1, 32, 8, 777, 128),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
PHI3 = [("phi3_qkv", 9216, 3072), ("phi3_gateup", 16384, 3072), ("phi3_down", 3072, 8192)]
NEMO = [("nemo_q", 4096, 5120), ("nemo_kv", 1024, 5120), ("nemo_gateup", 28672, 5120), ("nemo_down", 5120, 14336)]
GEMMA2 = [("g2_q", 4096, 3584), ("g2_o", 3584, 4096), ("g2_gateup", 28672, 3584), ("g2_down", 3584, 14336)]
L70_TP2 = [("l70tp2_qkv", 5120, 8192), ("l70tp2_gateup", 28672, 8192), ("l70tp2_down", 8192, 14336)]
MS = (1, 8, 48, 200, 777, 2048, 6000, 16384)


def gemm_shapes():
    out = []
    for i, (tag, n, k) in enumerate(PHI3 + NEMO + GEMMA2 + L70_TP2):
        # every shape at four of the eight M values, rotating, so the set spans M without 112 cases
        ms = [MS[(i + j) % len(MS)] for j in (0, 2, 4, 6)]
        out += [("bf16", tag, m, n, k) for m in ms]
    out += [("fp16", tag, m, n, k) for tag, n, k in (NEMO[0], GEMMA2[3]) for m in (8, 777, 6000)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (PHI3[0], NEMO[3]) for m in (8, 777, 6000)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (NEMO[2], L70_TP2[2], PHI3[1]) for m in (8, 200, 2048, 16384)]
    return out

# Hugging Face transformers eager steps (hf_grid.py --plan heldout16): models never measured as
# transformers steps here, at batch / context points off the grids. (model, decode (batch, ctx),
# prefill (batch, ctx)); contexts inside each model's positions (Mistral's inside its 4096 window).
HF_PLAN = {
    "mistral-7b": ([(1, 3000), (8, 4000), (48, 1500), (100, 700)], [(1, 3000)]),
    "llama2-13b": ([(1, 1000), (12, 3000), (32, 2000)], [(1, 1500)]),
    "qwen2.5-0.5b": ([(1, 500), (3, 8000), (24, 5000), (128, 1200)], [(4, 2000)]),
    "tinyllama-1.1b": ([(2, 2000), (96, 600)], [(1, 700)]),
    "gpt2": ([(24, 300)], [(2, 900)]),
}
