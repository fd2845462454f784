"""A fifth held-out set, measured at the start of 2026-12-03's second session (lead; issue 10), before any
of its branches (walkdefault, compblock, tinyl2) was merged: production kernels, transformers steps and
torch.compile'd steps at shapes and models no committed set holds.

    python3 validation/scripts/production/run_all.py OUT --shapes heldout20 --groups attention,gemm,ops
    python3 validation/scripts/production/hf_grid.py OUT/hf --plan heldout20

Models: Mistral-NeMo-12B (32 / 8 heads of dim 128 under a width of 5120), Qwen2.5-32B (40 / 8, 64 layers,
q/k/v bias), Yi-1.5-9B (32 / 4: GQA 8, 48 layers; Yi-6B's widths, so steps only), SmolLM2-135M (9 / 3 heads
of dim 64, width 576), none measured before (models/*.yaml), and Qwen2.5-32B's projections at tensor
parallel 2 (GEMMs only). Lengths, batches and M values off every committed grid.
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 32, 8, 14000, 128), (4, 32, 8, 3100, 128), (1, 40, 8, 7500, 128), (6, 40, 8, 1300, 128),
    (1, 9, 3, 70000, 64), (30, 9, 3, 700, 64), (1, 20, 4, 45000, 128), (3, 20, 4, 9500, 128),
    (1, 32, 4, 26000, 128), (12, 32, 4, 2100, 128), (64, 9, 3, 300, 64), (2, 16, 4, 33000, 128),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 32, 8, 45000, 128), (48, 32, 8, 1700, 128), (1, 40, 8, 7000, 128), (24, 40, 8, 3300, 128),
    (3, 9, 3, 40000, 64), (192, 9, 3, 600, 64), (8, 20, 4, 14000, 128), (112, 20, 4, 800, 128),
    (2, 32, 4, 100000, 128), (72, 32, 4, 450, 128), (160, 9, 3, 2600, 64), (5, 16, 4, 25000, 128),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
NEMO = [("nemo_q", 4096, 5120), ("nemo_kv", 1024, 5120), ("nemo_o", 5120, 4096), ("nemo_gate", 14336, 5120),
        ("nemo_down", 5120, 14336), ("nemo_lmhead", 131072, 5120)]
Q32 = [("q32_q", 5120, 5120), ("q32_gate", 27648, 5120), ("q32_down", 5120, 27648), ("q32_lmhead", 152064, 5120)]
SM135 = [("sm135_q", 576, 576), ("sm135_kv", 192, 576), ("sm135_gate", 1536, 576), ("sm135_down", 576, 1536),
         ("sm135_lmhead", 49152, 576)]
Q32_TP2 = [("q32tp2_qkv", 3584, 5120), ("q32tp2_o", 5120, 2560), ("q32tp2_gateup", 27648, 5120),
           ("q32tp2_down", 5120, 13824)]
MS = (2, 9, 28, 130, 450, 1200, 2600, 5000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M in 57 bf16 cases
    out = heldout_common.rotating_gemms(NEMO + Q32 + SM135 + Q32_TP2, MS, (1, 4, 6))
    out += [("fp16", tag, m, n, k) for tag, n, k in (NEMO[4], Q32_TP2[1]) for m in (7, 350, 3100)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (SM135[2], NEMO[1]) for m in (21, 600, 1900)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (NEMO[3], Q32_TP2[0], SM135[4]) for m in (6, 90, 1300, 3700)]
    return out


ROWCOL = [(5, 576), (70, 5120), (450, 27648), (2200, 14336), (11, 14336), (7000, 576), (180, 4096), (900, 1536)]
ROTARY = [(4, 32, 8, 128), (1100, 40, 8, 128), (12, 32, 4, 128), (2600, 9, 3, 64), (60, 9, 3, 64)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((3, 5120), (70, 4096), (3000, 576)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout20): (model, decode (batch, ctx), prefill (batch, ctx))
HF_PLAN = {
    "mistral-nemo-12b": ([(1, 1500), (24, 2200), (64, 700)], [(1, 3500)]),
    "qwen2.5-32b": ([(1, 900), (16, 2800), (48, 600)], [(1, 2000)]),
    "yi1.5-9b": ([(1, 3000), (40, 1000), (96, 2000)], [(3, 1200)]),
    "smollm2-135m": ([(1, 400), (32, 1800), (128, 1100)], [(8, 600)]),
}
