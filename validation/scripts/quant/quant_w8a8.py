"""W8A8 linears not in quant_gemm.py (issue 12): 128x128 block-scaled FP8 `torch._scaled_mm`
(DeepSeek-V3: 1x128 activation groups, 128x128 weight blocks) and INT8 `torch._int_mm`, alone and
with the per-token x per-channel scale epilogue as PyTorch eager runs it (torchao's
int_scaled_matmul: the int32 product cast to fp32, times the row scales, times the column scales,
cast to bf16). Each function returns quant_gemm.gemm_case's tuple
(case, make_set, fn, check, set_bytes, tol), so quant_gemm.run_one times it with the harness.
"""
import torch

import harness
from quant_gemm import FP8, FP8_MAX, TOL

BLOCK = 128


def block_fp8_case(model, tag, n, k, m):
    """_scaled_mm e4m3 x e4m3 -> bf16 with a (M x K/128) activation scale (column-major, as the
    library asks) and a (N/128 x K/128) weight scale passed transposed; rows padded to 16."""
    dev = "cuda"
    w = torch.randn(n, k, device=dev) * 0.02
    wb = w.reshape(n // BLOCK, BLOCK, k // BLOCK, BLOCK)
    sw = wb.abs().amax((1, 3)) / FP8_MAX  # N/128 x K/128
    wq = (wb / sw[:, None, :, None]).reshape(n, k).to(FP8)
    w_deq = (wq.float().reshape(n // BLOCK, BLOCK, k // BLOCK, BLOCK) * sw[:, None, :, None]).reshape(n, k)
    mp = -(-m // 16) * 16
    case = dict(model=model, shape=tag, m=m, n=n, k=k, flops=2 * m * n * k, group_size=BLOCK, act_quant="",
                name=f"scaled_mm_fp8_block_{model}_{tag}_m{m}", kernel="gemm_scaled", dtype="fp8", scaling="block",
                implementation="torch._scaled_mm", weight_bytes=n * k + 4 * (n // BLOCK) * (k // BLOCK), m_padded=mp)

    def make_set():
        x = torch.randn(mp, k, device=dev).reshape(mp, k // BLOCK, BLOCK)
        sa = x.abs().amax(-1) / FP8_MAX  # mp x K/128
        xq = (x / sa[:, :, None]).reshape(mp, k).to(FP8)
        return xq, wq.clone(), sa.t().contiguous().t(), sw.clone()

    def fn(x, Wq, sa, sb):
        return torch._scaled_mm(x, Wq.t(), scale_a=sa, scale_b=sb.t(), out_dtype=torch.bfloat16)

    def check(s):
        y = fn(*s)
        rows = torch.unique(torch.randint(0, m, (16,), device=dev))
        xa = (s[0][rows].double().reshape(-1, k // BLOCK, BLOCK) * s[2][rows].double()[:, :, None]).reshape(-1, k)
        return harness.rel_error(y[rows], xa @ w_deq.double().t())
    set_bytes = mp * k + 4 * mp * (k // BLOCK) + case["weight_bytes"] + 2 * mp * n
    case["bytes"] = set_bytes
    return case, make_set, fn, check, set_bytes, TOL["fp8"]


def int8_case(model, tag, n, k, m, epilogue):
    """torch._int_mm (int8 x int8 -> int32, cuBLASLt) on rows padded to > 16 (its requirement:
    32 for M <= 32, else a multiple of 16); `epilogue`: then the eager per-token x per-channel
    scaling to bf16 (four more kernels)."""
    dev = "cuda"
    w = torch.randn(n, k, device=dev) * 0.02
    sb = (w.abs().amax(1) / 127).clamp(min=1e-8)  # per output channel
    wq = (w / sb[:, None]).round().clamp(-127, 127).to(torch.int8)
    mp = 32 if m <= 32 else -(-m // 16) * 16
    what = "int_mm_scaled" if epilogue else "int_mm"
    case = dict(model=model, shape=tag, m=m, n=n, k=k, flops=2 * m * n * k, group_size=0, act_quant="",
                name=f"{what}_int8_{model}_{tag}_m{m}", kernel="gemm_scaled", dtype="int8",
                scaling="row" if epilogue else "none",
                implementation="torch._int_mm" + ("+eager scales" if epilogue else ""),
                weight_bytes=n * k + (4 * n if epilogue else 0), m_padded=mp)

    def make_set():
        x = torch.randn(mp, k, device=dev)
        sa = (x.abs().amax(1, keepdim=True) / 127).clamp(min=1e-8)
        xq = (x / sa).round().clamp(-127, 127).to(torch.int8)
        return (xq, wq.clone(), sa, sb.clone()[None, :]) if epilogue else (xq, wq.clone())

    if epilogue:
        def fn(x, Wq, sa, sb):
            return (torch._int_mm(x, Wq.t()).to(torch.float32) * sa * sb).to(torch.bfloat16)
    else:
        def fn(x, Wq):
            return torch._int_mm(x, Wq.t())

    def check(s):
        y = fn(*s)
        rows = torch.unique(torch.randint(0, m, (16,), device=dev))
        ref = s[0][rows].double() @ wq.double().t()
        if epilogue:
            ref = ref * s[2][rows].double() * s[3].double()
        return harness.rel_error(y[rows], ref)
    out_bytes = (2 if epilogue else 4) * mp * n
    set_bytes = mp * k + case["weight_bytes"] + out_bytes + (4 * mp if epilogue else 0)
    case["bytes"] = set_bytes
    return case, make_set, fn, check, set_bytes, TOL["int8"]
