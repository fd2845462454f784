"""A seventh held-out set, measured at the start of 2026-12-03's fourth session (lead; issue 10), before any of
its branches (hostgrow, hostorder, graphgap, gemmtile) was merged: production kernels, transformers steps and
torch.compile'd steps at shapes and models no committed set holds.

    python3 validation/scripts/production/run_all.py OUT --shapes heldout22 --groups attention,gemm,ops
    python3 validation/scripts/production/hf_grid.py OUT/hf --plan heldout22

Models: Qwen3-8B and Qwen3-4B (dense Qwen3: 32 / 8 heads of dim 128, an RMSNorm of each head's q and k before
rotary; widths 4096 and 2560, the 4B's q projection wider than its width, tied embeddings), Codestral-22B
(48 / 8 heads: GQA 6, width 6144, 56 layers, MLP 16384), none measured before (models/*.yaml), and Qwen3-8B's
projections at tensor parallel 2 and 4. Lengths, batches and M values off every committed grid.
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 32, 8, 14000, 128), (3, 32, 8, 3300, 128), (1, 48, 8, 7000, 128), (6, 48, 8, 1300, 128),
    (1, 16, 4, 40000, 128), (9, 16, 4, 1800, 128), (1, 8, 2, 70000, 128), (24, 8, 2, 700, 128),
    (2, 48, 8, 26000, 128), (40, 32, 8, 500, 128), (1, 24, 4, 90000, 128), (12, 24, 4, 2600, 128),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 32, 8, 45000, 128), (36, 32, 8, 2600, 128), (1, 48, 8, 20000, 128), (28, 48, 8, 1700, 128),
    (3, 16, 4, 70000, 128), (160, 16, 4, 1100, 128), (1, 8, 2, 110000, 128), (200, 8, 2, 2400, 128),
    (12, 48, 8, 9000, 128), (90, 32, 8, 600, 128), (5, 24, 4, 33000, 128), (240, 24, 4, 350, 128),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
Q3_8 = [("q38_q", 4096, 4096), ("q38_kv", 1024, 4096), ("q38_gate", 12288, 4096), ("q38_down", 4096, 12288),
        ("q38_lmhead", 151936, 4096)]
Q3_4 = [("q34_q", 4096, 2560), ("q34_kv", 1024, 2560), ("q34_o", 2560, 4096), ("q34_gate", 9728, 2560),
        ("q34_down", 2560, 9728)]
CS22 = [("cs22_q", 6144, 6144), ("cs22_kv", 1024, 6144), ("cs22_gate", 16384, 6144), ("cs22_down", 6144, 16384),
        ("cs22_lmhead", 32768, 6144)]
Q38_TP = [("q38t2_gateup", 12288, 4096), ("q38t2_down", 4096, 6144), ("q38t4_qkv", 1536, 4096),
          ("q38t4_o", 4096, 1024), ("q38t4_down", 4096, 3072)]
MS = (2, 11, 48, 160, 600, 1300, 2700, 9000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M in 60 bf16 cases
    out = heldout_common.rotating_gemms(Q3_8 + Q3_4 + CS22 + Q38_TP, MS, (1, 4, 6))
    out += [("fp16", tag, m, n, k) for tag, n, k in (CS22[2], Q3_4[4]) for m in (7, 400, 3500)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (Q3_8[0], Q38_TP[3]) for m in (9, 500, 2000)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (Q3_8[2], CS22[3], Q3_4[0], Q38_TP[1]) for m in (6, 250, 2200)]
    return out


ROWCOL = [(2, 4096), (70, 6144), (900, 2560), (3000, 12288), (19, 16384), (450, 9728), (5000, 4096), (120, 6144)]
ROTARY = [(7, 32, 8, 128), (1300, 48, 8, 128), (30, 16, 4, 128), (900, 8, 2, 128)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((3, 4096), (60, 6144), (1700, 2560)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout22): (model, decode (batch, ctx), prefill (batch, ctx))
HF_PLAN = {
    "qwen3-8b": ([(1, 3000), (24, 1500), (96, 700)], [(1, 5000)]),
    "qwen3-4b": ([(1, 900), (40, 2200), (160, 400)], [(4, 1200)]),
    "codestral-22b": ([(1, 2200), (16, 3500), (64, 900)], [(2, 2500)]),
}
