"""A sixth held-out set, measured at the start of 2026-12-03's third session (lead; issue 10), before any of
its branches (graphroles, castcopy, walkstep, shortk) was merged: production kernels, transformers steps and
torch.compile'd steps at shapes and models no committed set holds.

    python3 validation/scripts/production/run_all.py OUT --shapes heldout21 --groups attention,gemm,ops
    python3 validation/scripts/production/hf_grid.py OUT/hf --plan heldout21

Models: Mistral-Small-24B (32 / 8 heads of dim 128 under a width of 5120, MLP 32768), Yi-34B (56 / 8: GQA 7,
width 7168, 60 layers), GPT-2 XL (25 heads of dim 64, width 1600, LayerNorm + GELU, biases), none measured
before (models/*.yaml), and Mistral-Large-2's projections and attention at tensor parallel 8 (12 / 1 heads
a GPU) and 4 (24 / 2). Lengths, batches and M values off every committed grid.
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 32, 8, 20000, 128), (5, 32, 8, 2500, 128), (1, 56, 8, 9000, 128), (8, 56, 8, 1100, 128),
    (1, 25, 25, 1000, 64), (16, 25, 25, 900, 64), (1, 12, 1, 30000, 128), (4, 12, 1, 6000, 128),
    (1, 24, 2, 50000, 128), (2, 24, 2, 12000, 128), (48, 56, 8, 400, 128), (1, 32, 8, 110000, 128),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 32, 8, 60000, 128), (40, 32, 8, 2000, 128), (1, 56, 8, 12000, 128), (20, 56, 8, 3500, 128),
    (64, 25, 25, 1000, 64), (256, 25, 25, 300, 64), (2, 12, 1, 90000, 128), (128, 12, 1, 1500, 128),
    (6, 24, 2, 30000, 128), (96, 24, 2, 900, 128), (1, 56, 8, 120000, 128), (220, 32, 8, 700, 128),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
MS24 = [("ms24_q", 4096, 5120), ("ms24_kv", 1024, 5120), ("ms24_o", 5120, 4096), ("ms24_gate", 32768, 5120),
        ("ms24_down", 5120, 32768), ("ms24_lmhead", 131072, 5120)]
YI34 = [("yi34_q", 7168, 7168), ("yi34_kv", 1024, 7168), ("yi34_gate", 20480, 7168), ("yi34_down", 7168, 20480),
        ("yi34_lmhead", 64000, 7168)]
GXL = [("gxl_qkv", 4800, 1600), ("gxl_o", 1600, 1600), ("gxl_fc", 6400, 1600), ("gxl_proj", 1600, 6400),
       ("gxl_lmhead", 50257, 1600)]
ML_TP8 = [("ml8_qkv", 1792, 12288), ("ml8_o", 12288, 1536), ("ml8_gateup", 7168, 12288), ("ml8_down", 12288, 3584)]
MS = (3, 17, 64, 200, 700, 1500, 3300, 7000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M in 60 bf16 cases
    out = heldout_common.rotating_gemms(MS24 + YI34 + GXL + ML_TP8, MS, (2, 5, 7))
    out += [("fp16", tag, m, n, k) for tag, n, k in (MS24[4], YI34[0]) for m in (5, 500, 2800)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (GXL[1], ML_TP8[1]) for m in (13, 300, 2300)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (MS24[3], YI34[1], GXL[2], ML_TP8[0]) for m in (4, 120, 1700)]
    return out


ROWCOL = [(3, 5120), (90, 7168), (1024, 1600), (2500, 6400), (13, 32768), (600, 20480), (4000, 1600), (150, 12288)]
ROTARY = [(5, 32, 8, 128), (1500, 56, 8, 128), (20, 12, 1, 128), (700, 24, 2, 128)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((5, 5120), (90, 7168), (2000, 5120)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout21): (model, decode (batch, ctx), prefill (batch, ctx))
HF_PLAN = {
    "mistral-small-24b": ([(1, 2500), (20, 1200), (80, 600)], [(1, 4500)]),
    "yi-34b": ([(1, 1800), (12, 3000), (56, 800)], [(2, 1500)]),
    "gpt2-xl": ([(1, 700), (8, 300), (48, 500), (128, 900)], [(8, 1000)]),
}
