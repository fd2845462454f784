"""A twelfth held-out set, planned at the start of 2026-12-04's ninth session (lead; issue 10) before any change
of the session: production kernels, transformers steps and torch.compile'd steps at shapes no committed set holds.
Nothing is fitted on it.

    bash validation/results/h200-heldout27/h27.sh     # run_all.py --shapes heldout27; hf_grid.py --plan heldout27; compiled steps

Kernels at the shapes of models never measured here (from their Hugging Face config.json): StarCoder2-15B (48 / 4
heads, width 6144, MLP 24576, a 49152-row LM head), Gemma-2-2B (8 / 4 heads of dim 256, width 2304, MLP 9216, a
256000-row LM head), Qwen2.5-72B at tensor parallel 4 (16 / 2 heads a GPU, MLP 7392 a GPU), Aya-Expanse-32B at tensor
parallel 2 (32 / 4 heads, width 8192, MLP 12288 a GPU), Phi-4's attention (40 / 10 heads), InternLM2.5-7B's (32 / 8)
and SmolLM2-360M's (15 / 5 heads of dim 64). The row ops include softmax over a 100352-entry vocabulary (sampling).
The transformers steps are SmolLM2-1.7B and Mistral-Small-24B at new batches and contexts; the compiled steps cut
Llama-3-8B, Qwen2.5-7B and Mistral-7B to 3-4 layers (never compiled here before).
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 40, 10, 15000, 128), (5, 40, 10, 2400, 128), (1, 8, 4, 30000, 256), (7, 8, 4, 3500, 256),
    (1, 48, 4, 11000, 128), (14, 48, 4, 900, 128), (1, 16, 2, 60000, 128), (3, 16, 2, 7000, 128),
    (2, 32, 8, 17000, 128), (24, 32, 8, 700, 128), (1, 15, 5, 45000, 64), (30, 15, 5, 1200, 64),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 40, 10, 70000, 128), (37, 40, 10, 1900, 128), (4, 8, 4, 40000, 256), (90, 8, 4, 3000, 256),
    (2, 48, 4, 33000, 128), (130, 48, 4, 1100, 128), (1, 16, 2, 100000, 128), (45, 16, 2, 5000, 128),
    (9, 32, 8, 9000, 128), (200, 32, 8, 800, 128), (6, 15, 5, 20000, 64), (230, 15, 5, 1500, 64),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
SC15 = [("sc15_qkv", 7168, 6144), ("sc15_o", 6144, 6144), ("sc15_fc1", 24576, 6144), ("sc15_fc2", 6144, 24576),
        ("sc15_lmhead", 49152, 6144)]
G2_2B = [("g22_qkv", 4096, 2304), ("g22_o", 2304, 2048), ("g22_gateup", 18432, 2304), ("g22_down", 2304, 9216),
         ("g22_lmhead", 256000, 2304)]
Q72_TP4 = [("q72t4_gateup", 14784, 8192), ("q72t4_down", 8192, 7392)]
AYA32_TP2 = [("aya32t2_qkv", 4608, 8192), ("aya32t2_o", 8192, 4096), ("aya32t2_gateup", 24576, 8192),
             ("aya32t2_down", 8192, 12288)]
MS = (3, 11, 50, 270, 900, 2600, 7000, 15000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M
    out = heldout_common.rotating_gemms(SC15 + G2_2B + Q72_TP4 + AYA32_TP2, MS, (0, 3, 5))
    out += [("fp16", tag, m, n, k) for tag, n, k in (SC15[2], G2_2B[3]) for m in (5, 380, 4100)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (Q72_TP4[1], AYA32_TP2[0]) for m in (17, 600, 3100)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (SC15[3], G2_2B[2], Q72_TP4[0], AYA32_TP2[2]) for m in (9, 330, 5500)]
    return out


ROWCOL = [(3, 5120), (120, 17920), (2500, 2304), (40, 9216), (900, 6144), (200, 24576), (5000, 7392), (64, 100352)]
ROTARY = [(5, 40, 10, 128), (600, 8, 4, 256), (2000, 48, 4, 128), (40, 16, 2, 128)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((3, 6144), (150, 2304), (2500, 8192)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout27): (batch, ctx) decode points, prefill points; none repeats a
# committed set's point
HF_PLAN = {
    "smollm2-1.7b": ([(1, 3700), (26, 1600), (110, 600)], [(5, 1300)]),
    "mistral-small-24b": ([(1, 5200), (10, 2400), (44, 900)], [(1, 3000)]),
}
