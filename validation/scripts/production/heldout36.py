"""A held-out set planned at the 2026-12-06 twenty-sixth session (lead; issue 10) after that session's cuDNN decode
changes (the merge's rows, the x256 stream, the x256 merge), before it ran: production kernels, transformers steps and
torch.compile'd steps at shapes no committed set holds, on whichever card is lent. Nothing is fitted on it.

    bash validation/results/heldout36/h36.sh     # run_all.py --shapes heldout36; hf_grid.py --plan heldout36; compiled

Kernels at the shapes of models never measured here (from their Hugging Face config.json): StarCoder2-7B (36 / 4 heads
of dim 128, a GQA group of 9; width 4608, MLP 18432, a 49152-row LM head), Phi-4-mini (24 / 8 heads, width 3072, MLP
8192, a 200064-row LM head), Gemma-3-4B (8 / 4 heads of dim 256, width 2560, MLP 10240, a 262208-row LM head),
Qwen2.5-72B at tensor parallel 8 (8 / 1 heads a GPU, MLP 3696 a GPU, a 19008-row LM head shard) and Baichuan2-13B
(40 / 40 heads, width 5120, MLP 13696, a 125696-row LM head); the attention of DeepSeek-Coder-33B (56 / 8 heads, a
group of 7) and of Phi-3-small-like head dim 96 (32 / 8). The transformers steps are Mistral-7B and Qwen2.5-14B at new
batches and contexts; the compiled steps cut Llama-3-8B, Qwen2.5-7B and SmolLM2-1.7B to 4 layers (each compiled once
before, at other points).
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 36, 4, 14000, 128), (7, 36, 4, 1600, 128), (1, 24, 8, 20000, 128), (12, 24, 8, 900, 128),
    (1, 8, 4, 30000, 256), (6, 8, 4, 2500, 256), (1, 8, 1, 50000, 128), (16, 8, 1, 1300, 128),
    (2, 40, 40, 5000, 128), (1, 56, 8, 11000, 128), (3, 32, 8, 6000, 96), (24, 32, 8, 800, 96),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 36, 4, 45000, 128), (90, 36, 4, 2600, 128), (3, 24, 8, 70000, 128), (160, 24, 8, 1800, 128),
    (1, 8, 4, 90000, 256), (64, 8, 4, 5000, 256), (2, 8, 1, 110000, 128), (230, 8, 1, 3500, 128),
    (6, 40, 40, 9000, 128), (44, 56, 8, 3300, 128), (1, 32, 8, 24000, 96), (130, 32, 8, 1400, 96),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
STARCODER7 = [("sc7_qkv", 5632, 4608), ("sc7_o", 4608, 4608), ("sc7_fc1", 18432, 4608), ("sc7_fc2", 4608, 18432),
              ("sc7_lmhead", 49152, 4608)]
PHI4MINI = [("p4m_qkv", 5120, 3072), ("p4m_o", 3072, 3072), ("p4m_gateup", 16384, 3072), ("p4m_down", 3072, 8192),
            ("p4m_lmhead", 200064, 3072)]
GEMMA3_4B = [("g34_qkv", 4096, 2560), ("g34_o", 2560, 2048), ("g34_gateup", 20480, 2560), ("g34_down", 2560, 10240),
             ("g34_lmhead", 262208, 2560)]
Q72_TP8 = [("q72t8_qkv", 1280, 8192), ("q72t8_o", 8192, 1024), ("q72t8_gateup", 7392, 8192), ("q72t8_down", 8192, 3696),
           ("q72t8_lmhead", 19008, 8192)]
BAICHUAN13 = [("bc13_qkv", 15360, 5120), ("bc13_o", 5120, 5120), ("bc13_gateup", 27392, 5120),
              ("bc13_down", 5120, 13696), ("bc13_lmhead", 125696, 5120)]
MS = (3, 11, 70, 260, 1100, 2900, 7000, 12000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M
    out = heldout_common.rotating_gemms(STARCODER7 + PHI4MINI + GEMMA3_4B + Q72_TP8 + BAICHUAN13, MS, (1, 4, 6))
    out += [("fp16", tag, m, n, k) for tag, n, k in (STARCODER7[2], BAICHUAN13[3]) for m in (6, 520, 4100)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (PHI4MINI[1], Q72_TP8[2]) for m in (23, 800, 3100)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (STARCODER7[0], PHI4MINI[2], GEMMA3_4B[3], Q72_TP8[3])
            for m in (9, 350, 5200)]
    return out


ROWCOL = [(5, 4608), (200, 18432), (3000, 3072), (40, 8192), (700, 10240), (5000, 2560), (300, 13696), (9, 49152)]
ROTARY = [(7, 36, 4, 128), (900, 24, 8, 128), (1500, 8, 4, 256), (150, 40, 40, 128)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    # the last: transformers' LlamaRMSNorm as it runs
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((3, 3072), (500, 4608), (2500, 2560)))


# transformers eager steps (hf_grid.py --plan heldout36): (batch, ctx) decode points, prefill points; none repeats a
# committed set's point
HF_PLAN = {
    "mistral-7b": ([(1, 6300), (22, 2100), (96, 600)], [(3, 2300)]),
    "qwen2.5-14b": ([(1, 3900), (11, 3300), (48, 1000)], [(1, 5700)]),
}
