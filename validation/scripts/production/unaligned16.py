#!/usr/bin/env python3
"""GEMMs whose output row is not a multiple of 16 bytes, as Hugging Face GPT-2 runs them (lead,
2026-12-02; a lead for the next branch, nothing priced from it yet).

    python3 validation/scripts/production/unaligned16.py OUT [--case-seconds S]

h200-heldout16/hf showed GPT-2's tied LM head (vocab 50257: a bf16 output row of 100514 bytes)
running cuBLAS's `cutlass_75_tensorop_bf16_s1688gemm_bf16_64x64_tn_align1` at batch 24, 105 us for a
77 MB weight, where an aligned GEMM streams it in ~22 us. This measures the LM head at M 1-512 with
the real vocab and with the vocab padded to 50304 (a multiple of 64, what vLLM's ParallelLMHead pads
to), and GPT-2's Conv1D projections (torch.addmm(bias, x, W): c_attn 768 -> 2304, c_fc 768 -> 3072,
c_proj 3072 -> 768) against F.linear(x, W) of the same shape, M 1-1800 (the cases named linear_bias_*
carry no bias: a naming slip of the run, kept so the names match the committed kernels.json). Writes OUT/kernels.json in the
production driver's format (kernel names included) and OUT/run.log.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import harness  # noqa: E402

BF16 = torch.bfloat16


def case(name, m, n, k, form):
    """form: 'linear' (F.linear(x, W) with W n x k), 'addmm' (Conv1D: addmm(b, x, W) with W k x n)."""
    nbytes = 2 * (m * k + n * k + m * n + (n if form == "addmm" else 0))
    c = dict(name=name, kernel="gemm", dtype="bf16", implementation="torch.linear" if form == "linear" else "torch.addmm",
             m=m, n=n, k=k, flops=2 * m * n * k, bytes=nbytes)

    def make_set():
        x = torch.randn(m, k, device="cuda", dtype=BF16)
        if form == "linear":
            return x, torch.randn(n, k, device="cuda", dtype=BF16) * 0.02
        return x, torch.randn(k, n, device="cuda", dtype=BF16) * 0.02, torch.randn(n, device="cuda", dtype=BF16)

    def fn(*s):
        return F.linear(s[0], s[1]) if form == "linear" else torch.addmm(s[2], s[0], s[1])

    def check(s):
        rows = torch.unique(torch.randint(0, m, (16,), device="cuda"))
        got = fn(*s)[rows]
        if form == "linear":
            ref = s[0][rows].double() @ s[1].double().t()
        else:
            ref = s[2].double() + s[0][rows].double() @ s[1].double()
        return harness.rel_error(got, ref)
    return c, make_set, fn, check, nbytes


def plan():
    out = []
    for m in (1, 2, 8, 24, 64, 128, 512):
        out.append(case(f"lmhead_v50257_m{m}", m, 50257, 768, "linear"))
        out.append(case(f"lmhead_v50304_m{m}", m, 50304, 768, "linear"))
    for tag, k, n in (("c_attn", 768, 2304), ("c_fc", 768, 3072), ("c_proj_mlp", 3072, 768)):
        for m in (1, 8, 24, 300, 1800):
            out.append(case(f"conv1d_{tag}_m{m}", m, n, k, "addmm"))
            out.append(case(f"linear_bias_{tag}_m{m}", m, n, k, "linear"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--case-seconds", type=float, default=0.4)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    harness.init()
    t0 = time.perf_counter()
    log = open(f"{a.out}/run.log", "a")
    result = {"schema_version": 1, "meta": {"device": harness.device_meta(), "torch": torch.__version__,
                                            "harness": "perfmodel production driver (harness.py)"},
              "summary": {}, "cases": []}
    for c, mk, fn, check, nb in plan():
        r = harness.run_case(c, mk, fn, check, nb, a.case_seconds)
        result["cases"].append(r)
        line = (f"[{time.perf_counter() - t0:6.1f}s] {r['name']}: "
                + (f"{r['measured_s'] * 1e6:.2f} us, {r.get('kernel_names')}" if r["ok"] else f"FAILED {r['error']}"))
        print(line, flush=True)
        log.write(line + "\n")
    cs = result["cases"]
    result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs)}
    json.dump(result, open(f"{a.out}/kernels.json", "w"), indent=1)


if __name__ == "__main__":
    main()
