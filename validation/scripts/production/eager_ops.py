"""PyTorch's own ops as users call them (bf16), eager and under torch.compile (Inductor):
F.rms_norm, F.layer_norm, torch.softmax, F.silu(a) * b (two kernels and an intermediate in eager),
Hugging Face's rotary (`q*cos + rotate_half(q)*sin` on q and k, apply_rotary_pos_emb in
modeling_llama.py) and Hugging Face's LlamaRMSNorm (fp32 upcast, pow/mean/rsqrt/mul, several
kernels: what transformers' eager decode actually runs for a norm).
"""
import torch
import torch.nn.functional as F

BF16 = torch.bfloat16
# rows 1 to 16k x cols 2k to 14k: decode rows (1-256) and prefill rows, model widths 2048-14336.
ROWCOL = [(1, 4096), (16, 4096), (128, 4096), (1024, 4096), (4096, 4096), (16384, 4096),
          (256, 2048), (2048, 8192), (8192, 14336), (32, 14336)]
ROTARY_TOKENS = (1, 32, 256, 2048, 8192, 16384)  # Llama-3-8B heads 32 / kv 8 / dim 128
COMPILED = {"rmsnorm", "layernorm", "softmax_fused", "silu_mul", "rotary"}


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def hf_rotary(q, k, cos, sin):  # transformers' apply_rotary_pos_emb, unsqueeze_dim=1
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def hf_rmsnorm(x, w, eps=1e-6):  # transformers' LlamaRMSNorm.forward
    dtype = x.dtype
    h = x.to(torch.float32)
    var = h.pow(2).mean(-1, keepdim=True)
    h = h * torch.rsqrt(var + eps)
    return w * h.to(dtype)


OPS = {  # kernel name -> (eager fn, fp32 reference, number of (rows, cols) inputs, has weight, has bias)
    "rmsnorm": (lambda x, w: F.rms_norm(x, (x.shape[-1],), w, 1e-6),
                lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w),
    "layernorm": (lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, 1e-5),
                  lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)),
    "softmax_fused": (lambda x: torch.softmax(x, -1), lambda x: torch.softmax(x, -1)),
    "silu_mul": (lambda a, b: F.silu(a) * b, lambda a, b: F.silu(a) * b),
}


def _rowcol_case(kernel, rows, cols, impl, compiled_fn=None):
    eager, ref = OPS[kernel]
    if kernel == "rmsnorm":
        mk = lambda: (torch.randn(rows, cols, device="cuda", dtype=BF16), torch.rand(cols, device="cuda", dtype=BF16) + 0.5)
        nbytes = 2 * (2 * rows * cols + cols)
    elif kernel == "layernorm":
        mk = lambda: (torch.randn(rows, cols, device="cuda", dtype=BF16), torch.rand(cols, device="cuda", dtype=BF16) + 0.5,
                      torch.randn(cols, device="cuda", dtype=BF16))
        nbytes = 2 * (2 * rows * cols + 2 * cols)
    elif kernel == "softmax_fused":
        # uniform scores, as the C++ backend's softmax cases: the max|err| / rms(ref) check is
        # meaningless on a peaked softmax (rms(ref) tiny next to the largest probability)
        mk = lambda: (torch.rand(rows, cols, device="cuda", dtype=BF16) * 2 - 1,)
        nbytes = 2 * 2 * rows * cols
    else:
        mk = lambda: (torch.randn(rows, cols, device="cuda", dtype=BF16), torch.randn(rows, cols, device="cuda", dtype=BF16))
        nbytes = 2 * 3 * rows * cols
    return _finish(kernel, impl, dict(rows=rows, cols=cols), f"{rows}x{cols}", mk, compiled_fn or eager, ref, nbytes,
                   flops=rows * cols * {"rmsnorm": 4, "layernorm": 7, "softmax_fused": 5, "silu_mul": 4}[kernel])


def _rotary_case(tokens, impl, compiled_fn=None, h=32, kvh=8, d=128):
    def mk():  # HF layout after the projection's transpose: (batch=1, heads, tokens, dim)
        q = torch.randn(1, tokens, h, d, device="cuda", dtype=BF16).transpose(1, 2)
        k = torch.randn(1, tokens, kvh, d, device="cuda", dtype=BF16).transpose(1, 2)
        ang = torch.rand(1, tokens, d, device="cuda") * 6.28
        return q, k, ang.cos().to(BF16), ang.sin().to(BF16)
    fn = compiled_fn or hf_rotary
    nbytes = 2 * (2 * tokens * (h + kvh) * d + 2 * tokens * d)
    return _finish("rotary", impl, dict(batch=1, heads=h, kv_heads=kvh, q_len=tokens, kv_len=tokens, head_dim=d),
                   f"t{tokens}_h{h}_kv{kvh}_d{d}", mk, lambda *s: fn(*s), hf_rotary, nbytes,
                   flops=3 * tokens * (h + kvh) * d)


def _finish(kernel, impl, shape, tag, mk, fn, ref, nbytes, flops):
    short = impl.replace("torch.", "").replace("hf.", "hf_")
    case = dict(name=f"{short}_{kernel}_bf16_{tag}", kernel=kernel, dtype="bf16", implementation=impl, flops=flops,
                bytes=nbytes, **shape)

    def check(s):
        from harness import rel_error
        got = fn(*s)
        want = ref(*[t.float() for t in s])
        if isinstance(got, tuple):
            got = torch.cat([g.reshape(-1) for g in got])
            want = torch.cat([w.reshape(-1) for w in want])
        return rel_error(got.float(), want)

    return case, mk, fn, check, nbytes


def cases(impls=("torch.eager", "torch.compile", "hf.eager"), quick=False):
    rowcol = ROWCOL[3:4] if quick else ROWCOL
    rot = ROTARY_TOKENS[2:3] if quick else ROTARY_TOKENS
    for impl in impls:
        if impl == "hf.eager":  # the norm transformers runs, at decode and prefill rows
            for rows, cols in ((1, 4096), (32, 4096), (1024, 4096), (8192, 4096)) if not quick else rowcol:
                c = _rowcol_case("rmsnorm", rows, cols, impl, compiled_fn=hf_rmsnorm)
                c[0]["name"] = f"hf_eager_rmsnorm_bf16_{rows}x{cols}"
                yield c
            continue
        for kernel in ("rmsnorm", "layernorm", "softmax_fused", "silu_mul"):
            for rows, cols in (rowcol if impl == "torch.eager" else rowcol[::2]):
                cf = None
                if impl == "torch.compile":
                    cf = torch.compile(OPS[kernel][0], dynamic=False)
                yield _rowcol_case(kernel, rows, cols, impl, compiled_fn=cf)
        for t in (rot if impl == "torch.eager" else rot[::2]):
            cf = torch.compile(hf_rotary, dynamic=False) if impl == "torch.compile" else None
            yield _rotary_case(t, impl, compiled_fn=cf)


# A second set at shapes the first never had (columns 1024-8192 between and beyond its widths,
# rows 2-12288), measured after the eager mechanisms were chosen: no parameter is fitted on it.
HELDOUT_ROWCOL = [(2, 2048), (8, 8192), (64, 5120), (512, 3584), (2048, 1024), (12288, 2560)]
HELDOUT_ROTARY = (4, 64, 512, 4096)


def heldout_cases():
    for kernel in ("rmsnorm", "layernorm", "softmax_fused", "silu_mul"):
        for rows, cols in HELDOUT_ROWCOL:
            yield _rowcol_case(kernel, rows, cols, "torch.eager")
    for t in HELDOUT_ROTARY:
        yield _rotary_case(t, "torch.eager")
    for rows, cols in ((8, 4096), (256, 4096), (4096, 4096)):
        c = _rowcol_case("rmsnorm", rows, cols, "hf.eager", compiled_fn=hf_rmsnorm)
        c[0]["name"] = f"hf_eager_rmsnorm_bf16_{rows}x{cols}"
        yield c
