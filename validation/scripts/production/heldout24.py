"""A ninth held-out set, measured in 2026-12-03's sixth session (lead; issue 10) after branch decodeknee and before any
further change: production kernels, transformers steps and torch.compile'd steps at shapes no committed set holds.
Nothing is fitted on it.

    python3 validation/scripts/production/run_all.py OUT --shapes heldout24 --groups attention,gemm,ops
    python3 validation/scripts/production/hf_grid.py OUT/hf --plan heldout24

Kernels at the shapes of models never measured as kernels here: Qwen2.5-32B (40 / 8 heads, width 5120, MLP 27648, a
152064-row LM head), Falcon3-7B (12 / 4 heads of dim 256, width 3072, MLP 23040), Llama-3.2-1B (32 / 8 heads of dim 64,
width 2048, MLP 8192), Mistral-Large-2 at tensor parallel 8 (96 / 8 heads: 12 / 1 a GPU, width 12288, MLP 28672) and
Qwen3-235B-A22B's attention (64 / 4 heads, width 4096). The transformers steps are Falcon3-7B and Llama-2-13B at new
batches and contexts; the compiled steps cut Qwen2.5-32B and Falcon3-7B to 3 layers
(validation/results/h200-heldout24/compiled/run24c.sh).
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 40, 8, 13000, 128), (6, 40, 8, 2100, 128), (1, 12, 4, 7000, 256), (9, 12, 4, 1700, 256),
    (1, 32, 8, 24000, 64), (40, 32, 8, 600, 64), (2, 12, 1, 9000, 128), (1, 96, 8, 6000, 128),
    (3, 64, 4, 5500, 128), (1, 64, 4, 40000, 128), (25, 12, 4, 500, 256), (14, 40, 8, 1100, 128),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token: CTA counts across one to three resident waves
DECODE = [
    (1, 40, 8, 50000, 128), (29, 40, 8, 2600, 128), (1, 12, 4, 40000, 256), (41, 12, 4, 1500, 256),
    (2, 32, 8, 30000, 64), (90, 32, 8, 900, 64), (3, 12, 1, 60000, 128), (180, 12, 1, 1800, 128),
    (5, 96, 8, 9000, 128), (23, 64, 4, 4200, 128), (120, 12, 4, 400, 256), (200, 32, 8, 1300, 64),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
Q32 = [("q32_q", 5120, 5120), ("q32_kv", 1024, 5120), ("q32_gate", 27648, 5120), ("q32_down", 5120, 27648),
       ("q32_lmhead", 152064, 5120)]
F3 = [("f3_q", 3072, 3072), ("f3_kv", 1024, 3072), ("f3_gate", 23040, 3072), ("f3_down", 3072, 23040)]
L1B = [("l1b_qkv", 3072, 2048), ("l1b_o", 2048, 2048), ("l1b_gateup", 16384, 2048), ("l1b_down", 2048, 8192),
       ("l1b_lmhead", 128256, 2048)]
ML_TP8 = [("mlt8_qkv", 1792, 12288), ("mlt8_o", 12288, 1536), ("mlt8_gateup", 7168, 12288), ("mlt8_down", 12288, 3584)]
MS = (2, 9, 40, 150, 600, 1800, 4500, 10000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M (54 bf16 cases)
    out = heldout_common.rotating_gemms(Q32 + F3 + L1B + ML_TP8, MS, (0, 3, 5))
    out += [("fp16", tag, m, n, k) for tag, n, k in (Q32[2], F3[3]) for m in (7, 420, 3100)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (L1B[2], ML_TP8[1]) for m in (13, 380, 2200)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (Q32[0], F3[2], ML_TP8[3], L1B[3]) for m in (6, 260, 3600)]
    return out


ROWCOL = [(3, 5120), (60, 3072), (900, 2048), (3000, 27648), (25, 12288), (450, 23040), (7000, 5120), (130, 8192)]
ROTARY = [(7, 40, 8, 128), (900, 12, 4, 256), (60, 32, 8, 64), (1300, 64, 4, 128)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((3, 5120), (90, 3072), (2000, 2048)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout24): (batch, ctx) decode points, prefill points. Falcon3-7B b1
# ctx2500 repeats h200-heldout19's point (an oversight when the plan was written; its README reads the repeat).
HF_PLAN = {
    "falcon3-7b": ([(1, 2500), (24, 1200), (90, 400)], [(2, 1500)]),
    "llama2-13b": ([(1, 3000), (16, 1800), (48, 600)], [(1, 3500)]),
}
