"""What the held-out sets (heldout17.py, heldout18.py) share: GEMM shapes rotated over a set's M values,
and the row ops eager and torch.compile'd at a set's widths."""


def rotating_gemms(shapes, ms, picks):
    """Every (tag, N, K) at len(picks) of the M values, rotating with the shape's index, so a set spans M."""
    out = []
    for i, (tag, n, k) in enumerate(shapes):
        out += [("bf16", tag, ms[(i + j) % len(ms)], n, k) for j in picks]
    return out


def row_op_cases(rowcol, rotary, hf_rmsnorm):
    """RMSNorm, LayerNorm, softmax, SiLU*mul at (rows, cols) and transformers' rotary at (tokens, heads,
    kv heads, head dim), eager and torch.compile'd (static shapes); transformers' LlamaRMSNorm as it runs."""
    import torch
    import eager_ops as eo
    for impl in ("torch.eager", "torch.compile"):
        for kernel in ("rmsnorm", "layernorm", "softmax_fused", "silu_mul"):
            for rows, cols in rowcol:
                cf = torch.compile(eo.OPS[kernel][0], dynamic=False) if impl == "torch.compile" else None
                yield eo._rowcol_case(kernel, rows, cols, impl, compiled_fn=cf)
        for t, h, kvh, d in rotary:
            cf = torch.compile(eo.hf_rotary, dynamic=False) if impl == "torch.compile" else None
            yield eo._rotary_case(t, impl, compiled_fn=cf, h=h, kvh=kvh, d=d)
    for rows, cols in hf_rmsnorm:
        c = eo._rowcol_case("rmsnorm", rows, cols, "hf.eager", compiled_fn=eo.hf_rmsnorm)
        c[0]["name"] = f"hf_eager_rmsnorm_bf16_{rows}x{cols}"
        yield c
