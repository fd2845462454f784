"""A tenth held-out set, planned in 2026-12-03's seventh session (lead; issue 10) after branch compdef (the compiled
profile's GEMM block and lowering by default) and before any further change: production kernels, transformers steps
and torch.compile'd steps at shapes no committed set holds. Nothing is fitted on it.

    bash validation/results/h200-heldout25/h25.sh     # run_all.py --shapes heldout25; hf_grid.py --plan heldout25; compiled steps

Kernels at the shapes of models never measured here: Phi-3-medium (40 / 10 heads, width 5120, MLP 17920, a 32064-row
LM head), InternLM2.5-20B (48 / 8 heads, width 6144, MLP 16384, a 92544-row LM head), Gemma-2-27B (32 / 16 heads of
dim 128, width 4608, MLP 36864, a 256000-row LM head), Llama-3.1-70B at tensor parallel 4 (16 / 2 heads a GPU, width
8192, MLP 7168 a GPU) and DeepSeek-Coder-33B's attention (56 / 8 heads). The transformers steps are Yi-6B and Qwen3-4B
at new batches and contexts; the compiled steps cut Yi-6B and Mistral-NeMo-12B to 3 layers (never compiled before).
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 40, 10, 11000, 128), (5, 40, 10, 2300, 128), (1, 48, 8, 8500, 128), (12, 48, 8, 900, 128),
    (1, 32, 16, 19000, 128), (3, 32, 16, 3700, 128), (2, 16, 2, 14000, 128), (30, 16, 2, 700, 128),
    (1, 56, 8, 30000, 128), (7, 56, 8, 1500, 128), (64, 40, 10, 300, 128), (1, 16, 2, 60000, 128),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token: CTA counts across one to three resident waves
DECODE = [
    (1, 40, 10, 45000, 128), (26, 40, 10, 2200, 128), (1, 48, 8, 70000, 128), (37, 48, 8, 1700, 128),
    (3, 32, 16, 20000, 128), (19, 32, 16, 3300, 128), (6, 16, 2, 33000, 128), (150, 16, 2, 1100, 128),
    (2, 56, 8, 25000, 128), (44, 56, 8, 900, 128), (230, 40, 10, 500, 128), (9, 16, 2, 9000, 128),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
PHI3M = [("phi3m_qkv", 7680, 5120), ("phi3m_o", 5120, 5120), ("phi3m_gateup", 35840, 5120), ("phi3m_down", 5120, 17920),
         ("phi3m_lmhead", 32064, 5120)]
IL20 = [("il20_qkv", 8192, 6144), ("il20_o", 6144, 6144), ("il20_gate", 16384, 6144), ("il20_down", 6144, 16384),
        ("il20_lmhead", 92544, 6144)]
G27 = [("g27_q", 4096, 4608), ("g27_kv", 2048, 4608), ("g27_o", 4608, 4096), ("g27_gate", 36864, 4608),
       ("g27_down", 4608, 36864)]
L70_TP4 = [("l70t4_qkv", 2560, 8192), ("l70t4_o", 8192, 2048), ("l70t4_gateup", 14336, 8192), ("l70t4_down", 8192, 7168)]
MS = (3, 12, 70, 260, 900, 2600, 5200, 12000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M
    out = heldout_common.rotating_gemms(PHI3M + IL20 + G27 + L70_TP4, MS, (1, 4, 6))
    out += [("fp16", tag, m, n, k) for tag, n, k in (IL20[2], G27[4]) for m in (5, 330, 2900)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (PHI3M[1], L70_TP4[0]) for m in (17, 500, 3300)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (PHI3M[2], IL20[3], G27[0], L70_TP4[3]) for m in (4, 300, 4100)]
    return out


ROWCOL = [(5, 5120), (70, 6144), (1200, 4608), (2500, 17920), (40, 36864), (600, 16384), (6000, 4608), (200, 8192)]
ROTARY = [(11, 40, 10, 128), (700, 48, 8, 128), (90, 32, 16, 128), (1600, 16, 2, 128)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((4, 6144), (150, 4608), (2600, 5120)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout25): (batch, ctx) decode points, prefill points; none repeats a
# committed set's point (h200-heldout18's Yi-6B, h200-heldout22's Qwen3-4B)
HF_PLAN = {
    "yi-6b": ([(1, 3300), (20, 1100), (72, 500)], [(2, 1700)]),
    "qwen3-4b": ([(1, 2600), (12, 1500), (96, 700)], [(3, 900)]),
}
