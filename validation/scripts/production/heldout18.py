"""A third held-out set, measured at the start of 2026-12-02's third session (lead; issues 10-12),
before any of its branches was merged: production kernels and transformers steps at shapes and
models no committed set holds, so `perfmodel accuracy` and compare_hf.py on it check what nothing
was fitted on.

    python3 validation/scripts/production/run_all.py OUT --shapes heldout18 --groups attention,gemm,ops
    python3 validation/scripts/production/hf_grid.py OUT/hf --plan heldout18

Models: Qwen2.5-1.5B (12 / 2 heads: GQA 6), SmolLM2-1.7B (32 / 32: no GQA, head dim 64), Yi-6B
(32 / 4: GQA 8, vocab 64000), none measured before (models/*.yaml), and Qwen2.5-32B's projections at
tensor parallel 2 and 4 (GEMMs only). Lengths, batches and M values off every committed grid.
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 12, 2, 30000, 128), (4, 12, 2, 3000, 128), (1, 32, 32, 8000, 64), (7, 32, 32, 1000, 64),
    (1, 32, 4, 4096, 128), (3, 32, 4, 2222, 128), (48, 12, 2, 512, 128), (1, 32, 32, 70000, 64),
    (12, 32, 4, 1500, 128), (2, 20, 4, 24000, 128), (16, 32, 32, 700, 64), (1, 10, 2, 45000, 128),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 12, 2, 25000, 128), (96, 12, 2, 1500, 128), (3, 32, 32, 7000, 64), (48, 32, 32, 600, 64),
    (1, 32, 4, 4000, 128), (24, 32, 4, 2000, 128), (200, 12, 2, 700, 128), (12, 32, 32, 3000, 64),
    (7, 20, 4, 40000, 128), (160, 32, 4, 300, 128), (2, 10, 2, 110000, 128), (36, 32, 32, 1200, 64),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
QW15 = [("qw15_q", 1536, 1536), ("qw15_kv", 256, 1536), ("qw15_gate", 8960, 1536), ("qw15_down", 1536, 8960),
        ("qw15_lmhead", 151936, 1536)]
SMOL = [("smol_qkv", 6144, 2048), ("smol_gateup", 16384, 2048), ("smol_lmhead", 49152, 2048)]
YI6 = [("yi6_kv", 512, 4096), ("yi6_qkv", 5120, 4096), ("yi6_gateup", 22016, 4096), ("yi6_lmhead", 64000, 4096)]
QW32_TP = [("qw32tp2_qkv", 3584, 5120), ("qw32tp2_o", 5120, 2560), ("qw32tp2_gateup", 27648, 5120),
           ("qw32tp4_down", 5120, 6912), ("qw32tp4_gateup", 13824, 5120)]
MS = (2, 7, 48, 250, 777, 2222, 5000, 9000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M in 51 bf16 cases
    out = heldout_common.rotating_gemms(QW15 + SMOL + YI6 + QW32_TP, MS, (1, 4, 6))
    out += [("fp16", tag, m, n, k) for tag, n, k in (QW15[2], QW32_TP[3]) for m in (9, 400, 3500)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (SMOL[0], QW32_TP[1]) for m in (20, 640, 1800)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (YI6[2], QW32_TP[0], QW15[3]) for m in (6, 200, 1200, 6000)]
    return out


ROWCOL = [(2, 1536), (65, 2048), (512, 8960), (2500, 4096), (9, 11008), (4000, 2048), (1000, 1536), (333, 5120)]
ROTARY = [(5, 12, 2, 128), (700, 32, 32, 64), (2, 32, 4, 128), (2000, 12, 2, 128), (64, 32, 32, 64)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((3, 1536), (150, 4096), (3000, 2048)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout18): (model, decode (batch, ctx), prefill (batch, ctx))
HF_PLAN = {
    "qwen2.5-1.5b": ([(1, 1000), (24, 4000), (96, 1500)], [(1, 6000)]),
    "smollm2-1.7b": ([(1, 3000), (16, 2000), (64, 600)], [(2, 2500)]),
    "yi-6b": ([(1, 3500), (8, 2000), (48, 800)], [(1, 3000)]),
}
