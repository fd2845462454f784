#!/usr/bin/env python3
"""h200-moe7: the three kernel misses branch moe6 and quant6 left open (issues 11 and 12), one call.

    python3 validation/scripts/moe/run_moe7.py OUT_DIR [--budget S]

(a) `pair`: torch._grouped_mm's 64 x 128 pingpong kernel (mean rows over the weight's experts
    <= 128) with the rows of each expert set per expert: Qwen3-30B-A3B's gate_up (128 x 1536 x
    2048) and down (128 x 2048 x 768) at equal rows 8-128 (the partial pairs moe6 left +12-20 %),
    and MIXTURES at fixed weights: experts alternating 128 and 64 rows, 128 and 96, 96-128 spread
    evenly (every expert one full-ish pair), 128 and 160 (one pair and two), and a router's
    binomial rows at a mean of 128. Whether a mixture runs at the per-expert average of its
    experts' balanced times, or at the partial rate throughout, says how a step's rows are priced.
(b) `fmoe`: vllm_style_moe.py's GEMM in its w2 form at T = 32 (8 experts, 64 routed rows, vLLM's
    default 64 x 64 x 32 tile) over N at K = 4096 and 14336: 256-1536 CTAs, i.e. 1.9-11.6 per SM
    against 8 slots, the curve of the per-CTA term over the slots in use that moe6 took as linear.
(c) `kv`: triton_decode.py's split kernel reading bf16 or fp8 K/V at few CTAs (batch 1, 32 heads,
    GQA 4, head dim 128), with the split count forced so that each CTA walks 64-4096 keys (1-64
    BLOCK_N tiles), at num_stages 3 (as run) and 1: the time per tile of one CTA's chain, bf16
    against fp8. The compiled kernels' TTGIR and a PTX census (async copies, conversions) of both
    cache dtypes go to OUT_DIR/ir_*.txt and hf.json's `ir`.
Every case is checked against fp32/fp64 first (harness.run_case); timing is harness.time_case
(CUDA graph, rotating sets > 2x L2). Writes OUT_DIR/hf.json after every case.
"""
import argparse
import datetime
import math
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, os.path.join(HERE, "..", "quant"))
import torch  # noqa: E402
import triton  # noqa: E402

import harness  # noqa: E402
import run_moe6  # noqa: E402
import triton_decode  # noqa: E402
from run_moe5 import kernel_family, run_parts  # noqa: E402

OUT = None


def counts_case(label, E, N, K, counts, w):
    """torch._grouped_mm over the given rows per expert (weights [E, N, K] passed transposed). Where
    the mean rows pass 128, zero-row experts are appended (w holds 2 E) until it is 128 or less,
    so that GroupMM.cu keeps the pingpong kernel (moe5's forced_pingpong)."""
    rows = sum(counts)
    groups = max(E, -(-rows // 128))
    counts = list(counts) + [0] * (groups - E)
    E = groups
    w = w[:groups]
    offs = torch.tensor(counts, device="cuda").cumsum(0).to(torch.int32)
    starts = [0] + list(torch.tensor(counts).cumsum(0)[:-1].tolist())

    def make_set():
        return (torch.randn(rows, K, device="cuda", dtype=torch.bfloat16),)

    def fn(x):
        return torch._grouped_mm(x, w.transpose(-2, -1), offs=offs)

    def check(s):  # the first 4 rows of each of 16 experts against fp32
        x, out = s[0], fn(s[0]).float()
        got, ref = [], []
        for e in range(0, E, max(1, E // 16)):
            if counts[e] == 0:
                continue
            sl = slice(starts[e], starts[e] + min(counts[e], 4))
            got.append(out[sl])
            ref.append(x[sl].float() @ w[e].float().t())
        return harness.rel_error(torch.cat(got), torch.cat(ref))
    case = dict(name=f"pair7_{label}", kernel="grouped_gemm", dtype="bf16", implementation="torch._grouped_mm",
                shape=label, experts=E, groups=E, top_k=0, tokens=0, routing="per-expert rows",
                rows_per_expert=counts, experts_touched=sum(1 for c in counts if c), m=rows, n=N, k=K,
                flops=2 * rows * N * K, bytes=2 * (E * N * K + rows * (K + N)))
    res = harness.run_case(case, make_set, fn, check, 2 * (rows * (K + N) + E * N * K), 0.08)
    if res.get("kernel_names"):
        res["kernel_family"], res["mma_tile"] = kernel_family(res["kernel_names"])
        res["kernel_names"] = [n[:120] + ("..." if len(n) > 120 else "") for n in res["kernel_names"]]
    return res


def pair_plan(E):
    binom = torch.distributions.Binomial(E * 128, torch.tensor(1.0 / E))
    torch.manual_seed(7)
    b128 = [int(x) for x in binom.sample((E,)).tolist()]
    return [("r128", [128] * E), ("r64", [64] * E), ("mix128_64", [128, 64] * (E // 2)),
            ("mix128_96", [128, 96] * (E // 2)), ("spread96_128", [96 + (32 * i) // (E - 1) for i in range(E)]),
            ("r160", [160] * E), ("mix128_160", [128, 160] * (E // 2)), ("binom128", b128),
            ("r96", [96] * E), ("r32", [32] * E), ("r16", [16] * E), ("r48", [48] * E), ("r8", [8] * E)]


PAIR_SHAPES = (("qwen3_gate_up", 128, 1536, 2048), ("mixtral_gate_up", 8, 28672, 4096), ("qwen3_down", 128, 2048, 768))


def pair_part(deadline, emit, log):
    for label, E, N, K in PAIR_SHAPES:
        w = torch.randn(2 * E, N, K, device="cuda", dtype=torch.bfloat16) * K ** -0.5
        plan = pair_plan(E)
        if label == "qwen3_down":
            plan = [p for p in plan if p[0] in ("r128", "r64", "r96", "r32", "r8", "mix128_64", "binom128")]
        if label == "mixtral_gate_up":
            plan = [p for p in plan if p[0].startswith(("mix", "spread", "binom", "r160", "r128", "r64"))]
        for tag, counts in plan:
            if time.perf_counter() > deadline:
                log(f"pair {label}: budget")
                break
            try:
                res = counts_case(f"{label}_{tag}", E, N, K, counts, w)
            except Exception as e:
                res = dict(name=f"pair7_{label}_{tag}", ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
            emit("pair_cases", res)
        del w
        torch.cuda.empty_cache()


def fmoe_part(deadline, emit, log):
    run_moe6.FMOE_SHAPES = ((2048, 4096, False), (6144, 4096, False), (8192, 4096, False), (3072, 4096, False),
                            (12288, 4096, False), (2048, 14336, False), (6144, 14336, False), (4096, 4096, False))

    def emit7(part, r):
        r["name"] = r.get("name", "").replace("fmoe6_", "fmoe7_")
        emit(part, r)
    run_moe6.fmoe_part(deadline, emit7, log)


class _StageOverride:
    """Wraps triton_decode._split_kernel so that a launch takes num_stages from `stages` (when set)
    and keeps the compiled kernel it returns."""

    def __init__(self, jit):
        self.jit, self.stages, self.last = jit, None, None

    def __getitem__(self, grid):
        def launch(*args, **kw):
            if self.stages is not None:
                kw["num_stages"] = self.stages
            self.last = self.jit[grid](*args, **kw)
            return self.last
        return launch


def ir_census(compiled):
    asm = compiled.asm
    ptx = asm.get("ptx", "")
    ttgir = asm.get("ttgir", "")
    pats = {"cp.async": r"cp\.async\.(ca|cg)", "cp.async.bulk": r"cp\.async\.bulk", "ld.global": r"ld\.global",
            "cvt": r"\bcvt\.", "wgmma": r"wgmma\.mma_async", "mma.sync": r"\bmma\.sync", "bar.sync": r"bar\.sync"}
    out = {k: len(re.findall(p, ptx)) for k, p in pats.items()}
    out["ttgir_async_copy"] = ttgir.count("async_copy_global_to_local")
    out["ttgir_local_alloc"] = ttgir.count("local_alloc")
    md = compiled.metadata
    out.update(n_regs=getattr(compiled, "n_regs", None), n_spills=getattr(compiled, "n_spills", None),
               shared=getattr(md, "shared", None), num_stages=getattr(md, "num_stages", None),
               num_warps=getattr(md, "num_warps", None))
    return out, ttgir


def kv_part(deadline, emit, log):
    import run_quant3
    wrap = _StageOverride(triton_decode._split_kernel)
    triton_decode._split_kernel = wrap
    real_plan = triton_decode.plan_splits
    sm = torch.cuda.get_device_properties(0).multi_processor_count
    b, group, hd = 1, 4, 128
    ir = {}
    # (ctx, chunk keys a CTA, stages)
    plan = []
    for ctx in (4096, 1024):
        for chunk in (64, 128, 256, 512, 1024, 2048, 4096):
            if chunk <= ctx:
                plan += [(ctx, chunk, 3), (ctx, chunk, 1)]
    for ctx, chunk, stages in plan:
        for kv in ("bf16", "fp8"):
            if time.perf_counter() > deadline:
                log("kv: budget")
                return
            triton_decode.plan_splits = lambda B, H, L, s=sm, c=chunk: (math.ceil(L / c), c)
            wrap.stages = stages
            try:
                case, make_set, fn, check, set_bytes, tol = run_quant3.triton_case(b, ctx, group, hd, kv, sm)
                case["name"] = f"kv7_{kv}_ctx{ctx}_chunk{chunk}_st{stages}"
                case.update(num_stages=stages, ctas=b * (32 // group) * math.ceil(ctx / chunk))
                res = harness.run_case(case, make_set, fn, check, set_bytes, 0.06, want_kernels=False)
                key = f"{kv}_st{stages}"
                if key not in ir and wrap.last is not None:
                    ir[key], ttgir = ir_census(wrap.last)
                    if stages == 3:
                        with open(os.path.join(OUT, f"ir_{kv}.txt"), "w") as f:
                            f.write(ttgir)
                    log(f"ir {key}: {ir[key]}")
                res["ir"] = ir.get(key)
            except Exception as e:
                res = dict(name=f"kv7_{kv}_ctx{ctx}_chunk{chunk}_st{stages}", ok=False,
                           error=f"{type(e).__name__}: {str(e)[:300]}")
            emit("kv_cases", res)
    triton_decode.plan_splits = real_plan


def main():
    global OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=120.0, help="seconds for the whole run")
    a = ap.parse_args()
    OUT = a.out
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    harness.init()
    data = dict(meta=dict(harness.device_meta(), torch=torch.__version__, triton=triton.__version__,
                          started=datetime.datetime.now(datetime.timezone.utc).isoformat()),
                pair_cases=[], fmoe_cases=[], kv_cases=[])

    def describe(part, r):
        return f" {r.get('kernel_family', '')} clk {r.get('sm_clock_mhz_min')}-{r.get('sm_clock_mhz_max')}"
    run_parts(a.out, data, (("kv", kv_part, 0.3), ("fmoe", fmoe_part, 0.2), ("pair", pair_part, 0.5)),
              a.budget, t0, 1.2, describe)


if __name__ == "__main__":
    main()
