"""Kernel categories of the fused step (fused_step.py, compare_fused_step.py), by kernel name; no
torch import, so the comparison runs where PyTorch is not installed. First match wins. Inductor
names its kernels after the ops it fused (triton_{poi,per,red}_fused_...); cuDNN's SDPA kernel names
contain "sm90", so attention is matched before the GEMMs."""

FUSED_CATEGORIES = [
    ("attention", ("flash", "fmha", "sdpa", "cudnn", "attention")),
    ("gemm", ("gemm", "gemv", "nvjet", "cutlass", "xmma", "sm90_", "splitkreduce", "cublas")),
    ("norm", ("rms_norm", "rsqrt", "mean")),
    ("act", ("silu",)),
    ("rope_kv", ("index_put", "cat", "cos", "sin", "triton")),
    ("embedding", ("embedding", "index", "gather")),  # F.embedding: indexSelect*Index or vectorized_gather_kernel
]


def fused_category(name):
    n = name.lower()
    for cat, keys in FUSED_CATEGORIES:
        if any(k in n for k in keys):
            return cat
    return "other"
