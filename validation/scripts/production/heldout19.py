"""A fourth held-out set, measured at the start of 2026-12-03's session (lead; issue 10), before any of
its branches was merged: production kernels and transformers steps at shapes and models no committed
set holds, so `perfmodel accuracy` and compare_hf.py on it check what nothing was fitted on.

    python3 validation/scripts/production/run_all.py OUT --shapes heldout19 --groups attention,gemm,ops
    python3 validation/scripts/production/hf_grid.py OUT/hf --plan heldout19

Models: Falcon3-7B (12 / 4 heads of dim 256: GQA 3), CodeLlama-34B (64 / 8: GQA 8, 48 layers),
SmolLM2-360M (15 / 5 heads of dim 64: GQA 3, width 960), none measured before (models/*.yaml), and
CodeLlama-34B's projections at tensor parallel 4 (GEMMs only). Lengths, batches and M values off every
committed grid.
"""
import heldout_common

# (batch, heads, kv_heads, seq, head_dim), causal prefill
PREFILL = [
    (1, 12, 4, 20000, 256), (5, 12, 4, 1800, 256), (1, 64, 8, 9000, 128), (3, 64, 8, 2600, 128),
    (1, 15, 5, 50000, 64), (20, 15, 5, 900, 64), (1, 16, 2, 36000, 128), (6, 16, 2, 5000, 128),
    (40, 12, 4, 400, 256), (2, 64, 8, 12000, 128), (9, 15, 5, 7000, 64), (1, 12, 4, 60000, 256),
]
# (batch, heads, kv_heads, kv_len, head_dim), one query token
DECODE = [
    (1, 12, 4, 30000, 256), (64, 12, 4, 1300, 256), (1, 64, 8, 9000, 128), (20, 64, 8, 2500, 128),
    (2, 15, 5, 60000, 64), (128, 15, 5, 900, 64), (6, 16, 2, 18000, 128), (90, 16, 2, 1100, 128),
    (10, 12, 4, 5500, 256), (40, 64, 8, 500, 128), (256, 15, 5, 350, 64), (3, 16, 2, 80000, 128),
]
BACKENDS = ("cudnn", "flash")

# (tag, N, K) as nn.Linear stores the weight
FAL3 = [("fal3_q", 3072, 3072), ("fal3_kv", 1024, 3072), ("fal3_gate", 23040, 3072), ("fal3_down", 3072, 23040),
        ("fal3_lmhead", 131072, 3072)]
CL34 = [("cl34_q", 8192, 8192), ("cl34_kv", 1024, 8192), ("cl34_down", 8192, 22016), ("cl34_lmhead", 32000, 8192)]
SM360 = [("sm360_q", 960, 960), ("sm360_gate", 2560, 960), ("sm360_down", 960, 2560), ("sm360_lmhead", 49152, 960)]
CL34_TP4 = [("cl34tp4_qkv", 2560, 8192), ("cl34tp4_o", 8192, 2048), ("cl34tp4_gateup", 11008, 8192),
            ("cl34tp4_down", 8192, 5504)]
MS = (3, 11, 40, 180, 600, 1500, 3300, 7000)


def gemm_shapes():
    # every shape at three of the eight M values, rotating, so the set spans M in 51 bf16 cases
    out = heldout_common.rotating_gemms(FAL3 + CL34 + SM360 + CL34_TP4, MS, (0, 3, 5))
    out += [("fp16", tag, m, n, k) for tag, n, k in (FAL3[3], CL34_TP4[2]) for m in (5, 300, 2800)]
    out += [("tf32", tag, m, n, k) for tag, n, k in (SM360[1], CL34_TP4[0]) for m in (13, 450, 2400)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (FAL3[2], CL34_TP4[1], CL34[0]) for m in (4, 120, 900, 4500)]
    return out


ROWCOL = [(3, 960), (40, 3072), (600, 23040), (1800, 8192), (7, 22016), (5000, 960), (256, 3072), (1100, 2560)]
ROTARY = [(3, 12, 4, 256), (900, 12, 4, 256), (8, 64, 8, 128), (1500, 15, 5, 64), (40, 15, 5, 64)]  # tokens, h, kv, d


def ops_cases():
    """Row ops eager and torch.compile'd (static shapes) at the new models' widths."""
    return heldout_common.row_op_cases(ROWCOL, ROTARY, ((2, 3072), (90, 8192), (2500, 960)))  # the last: LlamaRMSNorm as it runs


# transformers eager steps (hf_grid.py --plan heldout19): (model, decode (batch, ctx), prefill (batch, ctx))
HF_PLAN = {
    "falcon3-7b": ([(1, 2500), (32, 1200), (80, 3000)], [(1, 5000)]),
    "codellama-34b": ([(1, 1800), (12, 3000), (40, 900)], [(2, 1500)]),
    "smollm2-360m": ([(1, 700), (48, 2500), (128, 400)], [(4, 1000)]),
}
