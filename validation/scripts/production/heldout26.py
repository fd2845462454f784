"""An eleventh held-out set, planned at the start of 2026-12-03's eighth session (lead; issue 10) before any change
of the session: production kernels, transformers steps and torch.compile'd steps at shapes no committed set holds.
Nothing is fitted on it.

    bash validation/results/h200-heldout26/h26.sh     # run_all.py --shapes heldout26; hf_grid.py --plan heldout26; compiled steps

Kernels at the shapes of models never measured here (from their Hugging Face config.json): Granite-3.1-8B (32 / 8
heads, width 4096, MLP 12800, an unaligned 49155-row LM head), Granite-3.1-2B's attention (32 / 8 heads of dim 64),
OLMo-2-13B (40 / 40 heads, width 5120, MLP 13824, a 100352-row LM head), Gemma-3-12B (16 / 8 heads of dim 256, width
3840, MLP 15360, a 262208-row LM head), Qwen3-32B at tensor parallel 2 (32 / 4 heads a GPU, width 5120, MLP 12800 a
GPU) and Command-R-35B's attention at tensor parallel 4 (16 / 16 heads). The transformers steps are Qwen3-8B and
Llama-3.2-1B at new batches and contexts; the compiled steps cut Llama-3.2-3B, Qwen2.5-14B and Llama-2-13B to 3-4
layers (never compiled here before).
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 32, 8, 13000, 128), (6, 32, 8, 2100, 128), (1, 40, 40, 9000, 128), (9, 40, 40, 1300, 128),
    (1, 16, 8, 24000, 256), (4, 16, 8, 3100, 256), (2, 32, 4, 12000, 128), (40, 32, 4, 500, 128),
    (1, 16, 16, 50000, 128), (11, 16, 16, 1900, 128), (1, 32, 8, 40000, 64), (20, 32, 8, 800, 64),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token: CTA counts across one to three resident waves
DECODE = [
    (1, 32, 8, 55000, 128), (29, 32, 8, 2600, 128), (2, 40, 40, 18000, 128), (33, 40, 40, 1200, 128),
    (1, 16, 8, 80000, 256), (21, 16, 8, 4100, 256), (5, 32, 4, 27000, 128), (170, 32, 4, 900, 128),
    (3, 16, 16, 30000, 128), (60, 16, 16, 1400, 128), (7, 32, 8, 12000, 64), (250, 32, 8, 600, 64),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
GR8 = [("gr8_qkv", 6144, 4096), ("gr8_o", 4096, 4096), ("gr8_gateup", 25600, 4096), ("gr8_down", 4096, 12800),
       ("gr8_lmhead", 49155, 4096)]
OLMO13 = [("olmo13_qkv", 15360, 5120), ("olmo13_o", 5120, 5120), ("olmo13_gateup", 27648, 5120),
          ("olmo13_down", 5120, 13824), ("olmo13_lmhead", 100352, 5120)]
G3_12 = [("g3_qkv", 8192, 3840), ("g3_o", 3840, 4096), ("g3_gateup", 30720, 3840), ("g3_down", 3840, 15360),
         ("g3_lmhead", 262208, 3840)]
Q32_TP2 = [("q32t2_qkv", 5120, 5120), ("q32t2_o", 5120, 4096), ("q32t2_gateup", 25600, 5120), ("q32t2_down", 5120, 12800)]
MS = (2, 9, 60, 310, 1100, 3000, 6500, 14000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M
    out = heldout_common.rotating_gemms(GR8 + OLMO13 + G3_12 + Q32_TP2, MS, (1, 4, 6))
    out += [("fp16", tag, m, n, k) for tag, n, k in (GR8[2], OLMO13[3]) for m in (6, 420, 3500)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (G3_12[1], Q32_TP2[0]) for m in (13, 700, 2700)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (GR8[3], OLMO13[2], G3_12[0], Q32_TP2[2]) for m in (7, 260, 5000)]
    return out


ROWCOL = [(6, 3840), (90, 12800), (1500, 5120), (2200, 15360), (35, 27648), (700, 13824), (7000, 3840), (260, 8192)]
ROTARY = [(9, 32, 8, 128), (800, 40, 40, 128), (70, 16, 8, 256), (1300, 32, 8, 64)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((5, 3840), (200, 5120), (3000, 4096)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout26): (batch, ctx) decode points, prefill points; none repeats a
# committed set's point
HF_PLAN = {
    "qwen3-8b": ([(1, 4700), (14, 2100), (64, 900)], [(2, 2500)]),
    "llama3.2-1b": ([(1, 7000), (48, 1300), (128, 400)], [(6, 1100)]),
}
