"""A fifteenth held-out set, planned at the 2026-12-04 thirteenth session (lead; issue 10) after its FP8 attention change
(which no H200 kernel here exercises) and before anything else changed: production kernels, transformers steps and
torch.compile'd steps at shapes no committed set holds. Nothing is fitted on it.

    bash validation/results/h200-heldout31/h31.sh     # run_all.py --shapes heldout31; hf_grid.py --plan heldout31; compiled steps

Kernels at the shapes of models never measured here (from their Hugging Face config.json): Falcon-40B (128 / 8 heads of
dim 64, width 8192, a 32768-wide GELU MLP, a 65024-row LM head), GPT-J-6B (16 / 16 heads of dim 256, width 4096, MLP
16384, a 50400-row LM head), Falcon-7B (71 query heads on one KV head of dim 64, width 4544, MLP 18176), Llama-3.1-70B
at tensor parallel 8 (8 / 1 heads a GPU, MLP 3584 a GPU, a 16032-row LM head shard), and the attention of
StableLM-2-12B (32 / 8 heads of dim 160) and DBRX (48 / 8 heads of dim 128). The transformers steps are Yi-1.5-9B and
Codestral-22B at new batches and contexts; the compiled steps cut Qwen3-4B, Yi-1.5-9B and Codestral-22B to 3-4 layers
(each compiled once before, at other points).
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 128, 8, 12000, 64), (6, 128, 8, 1500, 64), (1, 71, 1, 20000, 64), (9, 71, 1, 1300, 64),
    (1, 16, 16, 9000, 256), (5, 16, 16, 1800, 256), (1, 8, 1, 60000, 128), (20, 8, 1, 1100, 128),
    (1, 32, 8, 7000, 160), (8, 32, 8, 1000, 160), (2, 48, 8, 6500, 128), (30, 48, 8, 700, 128),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 128, 8, 30000, 64), (70, 128, 8, 2200, 64), (2, 71, 1, 40000, 64), (150, 71, 1, 3000, 64),
    (1, 16, 16, 6000, 256), (40, 16, 16, 2000, 256), (1, 8, 1, 120000, 128), (200, 8, 1, 4000, 128),
    (3, 32, 8, 9000, 160), (100, 32, 8, 1500, 160), (5, 48, 8, 25000, 128), (120, 48, 8, 2500, 128),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
FALCON40 = [("f40_qkv", 9216, 8192), ("f40_o", 8192, 8192), ("f40_fc1", 32768, 8192), ("f40_fc2", 8192, 32768),
            ("f40_lmhead", 65024, 8192)]
GPTJ = [("gptj_qkv", 12288, 4096), ("gptj_o", 4096, 4096), ("gptj_fc1", 16384, 4096), ("gptj_fc2", 4096, 16384),
        ("gptj_lmhead", 50400, 4096)]
FALCON7 = [("f7_qkv", 4672, 4544), ("f7_o", 4544, 4544), ("f7_fc1", 18176, 4544), ("f7_fc2", 4544, 18176),
           ("f7_lmhead", 65024, 4544)]
L70_TP8 = [("l70t8_qkv", 1280, 8192), ("l70t8_o", 8192, 1024), ("l70t8_gateup", 7168, 8192), ("l70t8_down", 8192, 3584),
           ("l70t8_lmhead", 16032, 8192)]
MS = (2, 13, 90, 330, 1700, 3300, 8000, 15000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M
    out = heldout_common.rotating_gemms(FALCON40 + GPTJ + FALCON7 + L70_TP8, MS, (2, 5, 7))
    out += [("fp16", tag, m, n, k) for tag, n, k in (GPTJ[2], FALCON7[3]) for m in (5, 450, 3900)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (FALCON40[1], L70_TP8[2]) for m in (31, 700, 2600)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (FALCON40[2], GPTJ[0], FALCON7[1], L70_TP8[3]) for m in (11, 280, 6200)]
    return out


ROWCOL = [(4, 8192), (150, 32768), (2500, 4544), (30, 16384), (900, 18176), (6000, 5120), (450, 13824), (12, 65024)]
ROTARY = [(6, 128, 8, 64), (800, 71, 1, 64), (2000, 16, 16, 256), (120, 32, 8, 160)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((7, 4096), (350, 8192), (2200, 5120)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout31): (batch, ctx) decode points, prefill points; none repeats a
# committed set's point
HF_PLAN = {
    "yi1.5-9b": ([(1, 5600), (18, 2300), (80, 700)], [(2, 2700)]),
    "codestral-22b": ([(1, 3300), (9, 4100), (40, 1200)], [(1, 4500)]),
}
