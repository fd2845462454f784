"""A thirteenth held-out set, planned in 2026-12-04's tenth session (lead; issue 10) after branch normissue landed
(ebddc63) and before anything else changed: production kernels, transformers steps and torch.compile'd steps at
shapes no committed set holds. Its eager norms are the first shapes measured after that law; nothing is fitted on it.

    bash validation/results/h200-heldout29/h29.sh     # run_all.py --shapes heldout29; hf_grid.py --plan heldout29; compiled steps

Kernels at the shapes of models never measured here (from their Hugging Face config.json): GLM-4-9B (32 / 2 heads,
width 4096, MLP 13696, a 151552-row LM head), Gemma-3-27B (32 / 16 heads, width 5376, MLP 21504, a 262208-row LM head),
Llama-3.1-Nemotron-70B at tensor parallel 8 (8 / 1 heads a GPU, MLP 3584 a GPU), Qwen2.5-Coder-32B at tensor parallel 4
(10 / 2 heads a GPU, MLP 6912 a GPU), and the attention of Falcon3-7B (12 / 4 heads of dim 256) and
Qwen2.5-0.5B (14 / 2 heads of dim 64). The transformers steps are Mistral-NeMo-12B and Qwen2.5-1.5B at new
batches and contexts; the compiled steps cut Llama-2-7B, Qwen2.5-3B and TinyLlama-1.1B to 3-4 layers (never compiled
here before).
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 32, 2, 21000, 128), (6, 32, 2, 2100, 128), (1, 32, 16, 13000, 128), (9, 32, 16, 1500, 128),
    (1, 8, 1, 70000, 128), (4, 8, 1, 9000, 128), (2, 10, 2, 26000, 128), (20, 10, 2, 1300, 128),
    (1, 12, 4, 36000, 256), (5, 12, 4, 4500, 256), (1, 14, 2, 50000, 64), (40, 14, 2, 800, 64),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 32, 2, 90000, 128), (70, 32, 2, 2300, 128), (3, 32, 16, 26000, 128), (48, 32, 16, 1700, 128),
    (1, 8, 1, 120000, 128), (160, 8, 1, 4200, 128), (5, 10, 2, 45000, 128), (110, 10, 2, 2600, 128),
    (2, 12, 4, 60000, 256), (75, 12, 4, 2200, 256), (8, 14, 2, 30000, 64), (250, 14, 2, 1300, 64),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
GLM9 = [("glm9_qkv", 4608, 4096), ("glm9_o", 4096, 4096), ("glm9_gateup", 27392, 4096), ("glm9_down", 4096, 13696),
        ("glm9_lmhead", 151552, 4096)]
G3_27 = [("g327_qkv", 8192, 5376), ("g327_o", 5376, 4096), ("g327_gateup", 43008, 5376), ("g327_down", 5376, 21504),
         ("g327_lmhead", 262208, 5376)]
NEMO70_TP8 = [("nem70t8_qkv", 1280, 8192), ("nem70t8_o", 8192, 1024), ("nem70t8_gateup", 7168, 8192),
              ("nem70t8_down", 8192, 3584)]
QC32_TP4 = [("qc32t4_qkv", 1792, 5120), ("qc32t4_o", 5120, 1280), ("qc32t4_gateup", 13824, 5120),
            ("qc32t4_down", 5120, 6912)]
MS = (2, 13, 60, 310, 1100, 3300, 8000, 13000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M
    out = heldout_common.rotating_gemms(GLM9 + G3_27 + NEMO70_TP8 + QC32_TP4, MS, (0, 3, 5))
    out += [("fp16", tag, m, n, k) for tag, n, k in (GLM9[2], QC32_TP4[3]) for m in (4, 450, 3800)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (NEMO70_TP8[1], G3_27[0]) for m in (19, 700, 2900)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (GLM9[3], G3_27[2], NEMO70_TP8[2], QC32_TP4[0]) for m in (7, 290, 6100)]
    return out


ROWCOL = [(2, 5376), (150, 13696), (3300, 5376), (48, 21504), (1200, 6912), (9000, 1280), (700, 10752), (24, 151552)]
ROTARY = [(7, 32, 2, 128), (900, 32, 16, 128), (2600, 8, 1, 128), (60, 12, 4, 256)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((5, 5376), (220, 4096), (3100, 5376)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout29): (batch, ctx) decode points, prefill points; none repeats a
# committed set's point
HF_PLAN = {
    "mistral-nemo-12b": ([(1, 6100), (14, 2700), (52, 1000)], [(2, 2200)]),
    "qwen2.5-1.5b": ([(1, 2900), (34, 1900), (140, 700)], [(6, 1500)]),
}
