"""A second held-out set, measured after the fits of 2026-12-02's second session (lead; issues 10-12):
production kernels and transformers steps at shapes and models no committed set holds, so
`perfmodel accuracy` and compare_hf.py on it check what nothing was fitted on.

    python3 validation/scripts/production/run_all.py OUT --shapes heldout17 --groups attention,gemm,ops
    python3 validation/scripts/production/hf_grid.py OUT/hf --plan heldout17

Models: Llama-3.2-1B (head dim 64, GQA 4), Llama-3.2-3B (24 / 8 heads), Qwen2.5-3B (16 / 2: GQA 8),
Qwen2.5-14B (40 / 8), none measured before (models/*.yaml). Attention through cuDNN's fused SDPA and
PyTorch's flash backend at their head counts, lengths and batches off every committed grid; GEMMs on
their projections and LM heads at M values off the grids (bf16, plus fp16 / tf32 / fp8 samples); row
ops (RMSNorm, LayerNorm, softmax, SiLU*mul, transformers' rotary) eager and torch.compile'd at their
widths (1536-13824 columns) and rows 3-10000.
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 32, 8, 20000, 64), (3, 32, 8, 1234, 64), (1, 24, 8, 50000, 128), (6, 24, 8, 2500, 128),
    (1, 16, 2, 12000, 128), (20, 16, 2, 600, 128), (1, 40, 8, 5000, 128), (2, 40, 8, 9999, 128),
    (64, 32, 8, 384, 64), (1, 16, 2, 100000, 128), (10, 40, 8, 1800, 128), (5, 24, 8, 3333, 128),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (5, 32, 8, 12000, 64), (40, 24, 8, 2500, 128), (1, 16, 2, 60000, 128), (17, 40, 8, 3300, 128),
    (130, 16, 2, 900, 128), (8, 32, 8, 30000, 64), (250, 24, 8, 400, 128), (2, 40, 8, 90000, 128),
    (64, 16, 2, 7000, 128), (1, 32, 8, 1500, 64), (33, 40, 8, 1100, 128), (3, 24, 8, 20000, 128),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
L32_1B = [("l32_1b_q", 2048, 2048), ("l32_1b_kv", 512, 2048), ("l32_1b_gateup", 16384, 2048),
          ("l32_1b_down", 2048, 8192), ("l32_1b_lmhead", 128256, 2048)]
L32_3B = [("l32_3b_qkv", 5120, 3072), ("l32_3b_o", 3072, 3072), ("l32_3b_gate", 8192, 3072), ("l32_3b_down", 3072, 8192)]
QW3B = [("qw3b_kv", 256, 2048), ("qw3b_gateup", 22016, 2048), ("qw3b_down", 2048, 11008), ("qw3b_lmhead", 151936, 2048)]
QW14B = [("qw14b_qkv", 7168, 5120), ("qw14b_o", 5120, 5120), ("qw14b_gate", 13824, 5120), ("qw14b_down", 5120, 13824)]
MS = (1, 3, 16, 100, 333, 1536, 4100, 12000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M in 51 bf16 cases
    out = heldout_common.rotating_gemms(L32_1B + L32_3B + QW3B + QW14B, MS, (0, 3, 6))
    out += [("fp16", tag, m, n, k) for tag, n, k in (L32_3B[1], QW14B[3]) for m in (5, 640, 3000)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (L32_1B[0], QW14B[1]) for m in (12, 500, 2500)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (QW14B[2], L32_3B[0], QW3B[2]) for m in (4, 96, 1000, 7000)]
    return out


ROWCOL = [(3, 3072), (40, 5120), (300, 2048), (1500, 13824), (6000, 3584), (24, 11008), (700, 8192), (10000, 1536)]
ROTARY = [(7, 32, 8, 64), (900, 32, 8, 64), (3, 40, 8, 128), (1200, 40, 8, 128), (3000, 16, 2, 128)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the four models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((5, 2048), (77, 5120), (2000, 3072)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout17): (model, decode (batch, ctx), prefill (batch, ctx))
HF_PLAN = {
    "llama3.2-1b": ([(1, 1500), (20, 3000), (160, 800)], [(1, 5000)]),
    "llama3.2-3b": ([(2, 6000), (40, 1000)], [(3, 1200)]),
    "qwen2.5-3b": ([(1, 700), (12, 12000), (72, 2500)], [(1, 9000)]),
    "qwen2.5-14b": ([(1, 2200), (6, 4500), (28, 1300)], [(2, 1700)]),
}
