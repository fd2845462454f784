"""A fourteenth held-out set, planned at the 2026-12-04 twelfth session's start (lead; issue 10) before anything changed:
production kernels, transformers steps and torch.compile'd steps at shapes no committed set holds. Nothing is fitted
on it.

    bash validation/results/h200-heldout30/h30.sh     # run_all.py --shapes heldout30; hf_grid.py --plan heldout30; compiled steps

Kernels at the shapes of models never measured here (from their Hugging Face config.json): OLMo-2-7B (32 / 32 heads,
width 4096, MLP 11008, a 100352-row LM head), Phi-4 (40 / 10 heads, width 5120, MLP 17920, a 100352-row LM head),
InternLM2.5-20B (48 / 8 heads, width 6144, MLP 16384, a 92544-row LM head), Command-R-35B at tensor parallel 4 (16 / 16
heads a GPU, width 8192, MLP 5632 a GPU), and the attention of Phi-2 (32 / 32 heads of dim 80) and Gemma-2-2B (8 / 4
heads of dim 256). The transformers steps are Llama-3-8B and Qwen2.5-7B at new batches and contexts; the compiled steps
cut Llama-3.2-1B, Qwen2.5-1.5B and SmolLM2-1.7B to 4 layers (never compiled here before).
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 32, 32, 17000, 128), (7, 32, 32, 1900, 128), (1, 40, 10, 24000, 128), (11, 40, 10, 1200, 128),
    (1, 48, 8, 15000, 128), (3, 48, 8, 5200, 128), (1, 16, 16, 40000, 128), (24, 16, 16, 1000, 128),
    (1, 32, 32, 2048, 80), (16, 32, 32, 600, 80), (1, 8, 4, 8192, 256), (12, 8, 4, 900, 256),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 32, 32, 4000, 128), (36, 32, 32, 2500, 128), (2, 40, 10, 15000, 128), (90, 40, 10, 1400, 128),
    (1, 48, 8, 100000, 128), (130, 48, 8, 2000, 128), (4, 16, 16, 50000, 128), (60, 16, 16, 3000, 128),
    (1, 32, 32, 1900, 80), (50, 32, 32, 1000, 80), (3, 8, 4, 7000, 256), (180, 8, 4, 3000, 256),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
OLMO7 = [("olmo7_qkv", 12288, 4096), ("olmo7_o", 4096, 4096), ("olmo7_gateup", 22016, 4096), ("olmo7_down", 4096, 11008),
         ("olmo7_lmhead", 100352, 4096)]
PHI4 = [("phi4_qkv", 7680, 5120), ("phi4_o", 5120, 5120), ("phi4_gateup", 35840, 5120), ("phi4_down", 5120, 17920),
        ("phi4_lmhead", 100352, 5120)]
IL20 = [("il20_qkv", 8192, 6144), ("il20_o", 6144, 6144), ("il20_gateup", 32768, 6144), ("il20_down", 6144, 16384),
        ("il20_lmhead", 92544, 6144)]
CR35_TP4 = [("cr35t4_qkv", 6144, 8192), ("cr35t4_o", 8192, 2048), ("cr35t4_gateup", 11264, 8192),
            ("cr35t4_down", 8192, 5632)]
MS = (3, 17, 75, 260, 1300, 2900, 7000, 14000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M
    out = heldout_common.rotating_gemms(OLMO7 + PHI4 + IL20 + CR35_TP4, MS, (1, 4, 6))
    out += [("fp16", tag, m, n, k) for tag, n, k in (OLMO7[2], CR35_TP4[3]) for m in (6, 520, 4100)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (PHI4[1], IL20[0]) for m in (23, 640, 3300)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (OLMO7[3], PHI4[2], IL20[1], CR35_TP4[0]) for m in (9, 340, 5500)]
    return out


ROWCOL = [(3, 5120), (120, 17920), (2800, 6144), (40, 16384), (1000, 11008), (7000, 2560), (600, 8192), (20, 100352)]
ROTARY = [(5, 40, 10, 128), (700, 48, 8, 128), (3000, 32, 32, 128), (90, 8, 4, 256)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((4, 5120), (300, 6144), (2500, 4096)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout30): (batch, ctx) decode points, prefill points; none repeats a
# committed set's point
HF_PLAN = {
    "llama3-8b": ([(1, 4700), (22, 1600), (96, 500)], [(3, 1800)]),
    "qwen2.5-7b": ([(1, 7300), (12, 3100), (60, 1100)], [(1, 5200)]),
}
