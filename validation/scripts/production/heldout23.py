"""An eighth held-out set, measured in 2026-12-03's fifth session (lead; issue 10) after its merges (decodeocc,
graphsplit, maskocc, compres, gemmtile2) and before any further change: production kernels, transformers steps and
torch.compile'd steps at shapes no committed set holds. Nothing is fitted on it.

    python3 validation/scripts/production/run_all.py OUT --shapes heldout23 --groups attention,gemm,ops
    python3 validation/scripts/production/hf_grid.py OUT/hf --plan heldout23

Kernels at the shapes of models never measured here: Llama-3-70B and Llama-2-70B (64 / 8 heads, width 8192, MLP
28672) whole and at tensor parallel 8, Llama-3.1-405B at TP 8 (128 / 8 heads, width 16384), Gemma-2-9B (16 / 8
heads of dim 256, width 3584, a 256000-row LM head) and Mixtral-8x22B's experts (width 6144, 16384). The
transformers steps are of models measured before (Llama-3.2-3B, Qwen2.5-14B) at new batches and contexts; the
compiled steps cut Llama-3-70B and Llama-2-70B to 3 layers (validation/results/h200-heldout23/compiled/run23c.sh).
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 64, 8, 11000, 128), (5, 64, 8, 1900, 128), (1, 16, 8, 9000, 256), (7, 16, 8, 1500, 256),
    (1, 128, 8, 5000, 128), (2, 48, 8, 17000, 128), (30, 8, 1, 900, 128), (1, 8, 1, 100000, 128),
    (11, 48, 8, 2300, 128), (1, 32, 4, 60000, 128), (50, 16, 8, 400, 256), (4, 64, 8, 6500, 128),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token: CTA counts across one and two resident waves
DECODE = [
    (1, 64, 8, 70000, 128), (34, 64, 8, 3100, 128), (1, 16, 8, 30000, 256), (44, 16, 8, 1300, 256),
    (37, 8, 1, 2900, 128), (70, 8, 1, 800, 128), (150, 8, 1, 1500, 128), (3, 128, 8, 20000, 128),
    (45, 48, 8, 1200, 128), (9, 32, 4, 50000, 128), (230, 16, 8, 300, 256), (66, 64, 8, 700, 128),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
L70 = [("l70_q", 8192, 8192), ("l70_kv", 1024, 8192), ("l70_gate", 28672, 8192), ("l70_down", 8192, 28672),
       ("l70_lmhead", 128256, 8192)]
L70_TP8 = [("l70t8_qkv", 1280, 8192), ("l70t8_o", 8192, 1024), ("l70t8_gateup", 7168, 8192), ("l70t8_down", 8192, 3584)]
L405_TP8 = [("l405t8_qkv", 2304, 16384), ("l405t8_o", 16384, 2048), ("l405t8_gateup", 13312, 16384),
            ("l405t8_down", 16384, 6656)]
G9 = [("g9_q", 4096, 3584), ("g9_kv", 2048, 3584), ("g9_o", 3584, 4096), ("g9_gate", 14336, 3584),
      ("g9_down", 3584, 14336), ("g9_lmhead", 256000, 3584)]
M22 = [("m22_w1", 16384, 6144), ("m22_w2", 6144, 16384)]
MS = (3, 13, 56, 200, 700, 1500, 3300, 8000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M in 63 bf16 cases
    out = heldout_common.rotating_gemms(L70 + L70_TP8 + L405_TP8 + G9 + M22, MS, (1, 4, 6))
    out += [("fp16", tag, m, n, k) for tag, n, k in (L70[2], G9[4]) for m in (5, 350, 2900)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (L70_TP8[1], G9[0]) for m in (11, 450, 1800)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (L70[0], L405_TP8[2], G9[3], M22[1]) for m in (4, 300, 2500)]
    return out


ROWCOL = [(5, 8192), (80, 16384), (700, 3584), (2500, 28672), (33, 6144), (400, 14336), (6000, 8192), (150, 3584)]
ROTARY = [(9, 64, 8, 128), (1100, 16, 8, 256), (40, 48, 8, 128), (700, 128, 8, 128)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((5, 8192), (70, 16384), (1500, 3584)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout23): models measured before, at new points
HF_PLAN = {
    "llama3.2-3b": ([(1, 3300), (36, 1400), (120, 500)], [(3, 1700)]),
    "qwen2.5-14b": ([(1, 1900), (20, 2600), (72, 700)], [(1, 6000)]),
}
