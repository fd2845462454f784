"""torch._grouped_mm with routing set by hand, to separate the mechanisms of its rate (issue 11,
eager profile; lib/src/cost/grouped_mm_cost.cpp): the K a CTA walks at few CTAs (1 or 2 experts
of N 4096: 32 or 64 tiles of 64 x 128) and the rows per expert at a full card (8 experts, N 4096,
K 4096: 256 tiles). Same check and timing as run_moe.py's grouped_mm cases (harness.run_case).
"""
import torch

import harness

# (name, experts touched, rows per touched expert, N, K); the weight tensor always has 8 experts.
SWEEP = [(f"k{K}_g{g}", g, 1, 4096, K) for g in (1, 2) for K in (2048, 4096, 8192, 14336)] + \
        [(f"rows{r}_g8", 8, r, 4096, 4096) for r in (2, 16, 64, 65, 128)]
E = 8


def case(tag, g, r, N, K):
    counts = [r] * g + [0] * (E - g)
    offs = torch.tensor(counts, device="cuda").cumsum(0).to(torch.int32)
    rows = g * r
    set_bytes = 2 * (g * N * K + rows * K)
    copies = 1 if set_bytes >= 2 * harness.L2_BYTES else -(-2 * harness.L2_BYTES // set_bytes)
    pool = [torch.randn(E, N, K, device="cuda", dtype=torch.bfloat16) * K ** -0.5 for _ in range(copies)]
    made = [0]

    def make_set():
        made[0] += 1
        return (torch.randn(rows, K, device="cuda", dtype=torch.bfloat16), pool[made[0] % copies])

    def fn(x, w):
        return torch._grouped_mm(x, w.transpose(-2, -1), offs=offs)

    def check(s):
        x, w = s
        ref = torch.cat([x[e * r:(e + 1) * r].float() @ w[e].float().t() for e in range(g)])
        return harness.rel_error(fn(x, w).float(), ref)
    c = dict(name=f"grouped_mm_sweep_{tag}", kernel="grouped_gemm", dtype="bf16", implementation="torch._grouped_mm",
             m=rows, n=N, k=K, batch=E, experts=E, experts_touched=g, rows_per_expert=r,
             flops=2 * rows * N * K, bytes=set_bytes + 2 * rows * N)
    out = harness.run_case(c, make_set, fn, check, set_bytes, 0.3)
    out["weight_copies"] = copies
    del pool
    return out
