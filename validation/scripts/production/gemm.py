"""GEMMs as users run them: F.linear (y = x W^T; PyTorch's cuBLAS/cuBLASLt path) in bf16, fp16 and
tf32 (fp32 storage, torch.backends.cuda.matmul.allow_tf32), and fp8 e4m3 through torch._scaled_mm
with tensor-wise scales and a bf16 output, on the projection shapes of Llama-3-8B and Qwen2-7B
(models/llama3-8b.yaml, models/qwen2.5-7b.yaml: hidden 4096 / 3584, kv heads 8 / 4, intermediate
14336 / 18944, vocab 128256 / 152064), M = 1 to 16384 tokens.
"""
import torch
import torch.nn.functional as F

# (tag, N, K): the weight is N x K as nn.Linear stores it.
LLAMA3 = [("l3_q", 4096, 4096), ("l3_kv", 1024, 4096), ("l3_gateup", 28672, 4096), ("l3_down", 4096, 14336),
          ("l3_lmhead", 128256, 4096)]
QWEN2 = [("q2_q", 3584, 3584), ("q2_kv", 512, 3584), ("q2_gateup", 37888, 3584), ("q2_down", 3584, 18944)]
MS = (1, 16, 128, 1024, 4096, 16384)

DT = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32}


def plan(quick=False):
    """(dtype, tag, m, n, k) for ~60 cases."""
    out = []
    if quick:
        return [("bf16", "l3_q", 1024, 4096, 4096), ("fp8", "l3_q", 1024, 4096, 4096)]
    for tag, n, k in LLAMA3[:4] + QWEN2:
        for m in MS:
            if tag in ("q2_kv", "l3_kv") and m in (16, 4096):
                continue
            out.append(("bf16", tag, m, n, k))
    out += [("bf16", "l3_lmhead", m, 128256, 4096) for m in (1, 128, 1024)]
    for dt in ("fp16", "tf32"):
        out += [(dt, tag, m, n, k) for tag, n, k in (LLAMA3[0], LLAMA3[3]) for m in (16, 1024, 8192)]
    out += [("fp8", tag, m, n, k) for tag, n, k in (LLAMA3[0], LLAMA3[2], LLAMA3[3]) for m in (16, 128, 1024, 8192)]
    return out


def cases(quick=False, shapes=None):
    """shapes: (dtype, tag, m, n, k) tuples in place of plan()'s."""
    for dt, tag, m, n, k in (plan(quick) if shapes is None else shapes[:2 if quick else None]):
        yield _case(dt, tag, m, n, k)


def _case(dt, tag, m, n, k):
    name = f"{'scaled_mm' if dt == 'fp8' else 'linear'}_{dt}_{tag}_m{m}_n{n}_k{k}"
    esize = {"bf16": 2, "fp16": 2, "tf32": 4, "fp8": 1}[dt]
    out_size = 2 if dt == "fp8" else esize
    nbytes = esize * (m * k + n * k) + out_size * m * n
    impl = "torch.scaled_mm" if dt == "fp8" else "torch.linear"
    case = dict(name=name, kernel="gemm", dtype=dt, implementation=impl, m=m, n=n, k=k, flops=2 * m * n * k,
                bytes=nbytes)
    if dt == "fp8":
        def make_set():
            x = (torch.randn(m, k, device="cuda") * 0.5).to(torch.float8_e4m3fn)
            w = (torch.randn(n, k, device="cuda") * 0.5).to(torch.float8_e4m3fn)
            return x, w, torch.tensor(0.9, device="cuda"), torch.tensor(1.1, device="cuda")

        def fn(x, w, sa, sb):  # b must be column-major: W^T of a row-major N x K weight
            return torch._scaled_mm(x, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)

        def ref(x, w, sa, sb, rows):
            return (x[rows].float() * sa) @ (w.float() * sb).t()
    else:
        t = DT[dt]

        def make_set():
            return (torch.randn(m, k, device="cuda", dtype=t), torch.randn(n, k, device="cuda", dtype=t) * 0.02)

        def fn(x, w):
            return F.linear(x, w)

        def ref(x, w, rows):
            return x[rows].double() @ w.double().t()

    def check(s):
        from harness import rel_error
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
        try:
            y = fn(*s)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = prev
        rows = torch.unique(torch.randint(0, m, (16,), device="cuda"))
        return rel_error(y[rows], ref(*s, rows))

    def timed(*s):
        return fn(*s)

    return case, make_set, timed, check, nbytes
