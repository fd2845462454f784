#!/usr/bin/env python3
"""quant5's run on one H200 (issue 12, results in validation/results/h200-quant5): held-out shapes
for the INT8 torch._int_mm tile rule and the block-scaled FP8 split-K rule (quant_gemm_cost.cpp).

    python3 validation/scripts/quant/run_quant5.py OUT_DIR [--budget S]

Shapes not in h200-quant / h200-quant2 (Qwen2.5-32B, Llama-3.2-3B, Qwen2.5-72B's gate/up and
down) at M = 1, 32, 48, 96, 192, 512, 2048 (48, 96, 192: row counts the earlier runs never had),
`torch._int_mm` alone and block-scaled `torch._scaled_mm` (quant_w8a8.py's cases, the production
harness). Beside each case's kernel names, the launch grid of each kernel (a Chrome trace of one
call: the block kernel's split count is its grid's z, or the CTAs over the tiles). OUT_DIR/quant5.json
is rewritten after every case; the run stops at --budget seconds.
"""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import quant_gemm  # noqa: E402
import quant_w8a8  # noqa: E402

SHAPES = {
    "qwen2.5-32b": (("qkv", 7168, 5120), ("o", 5120, 5120), ("gateup", 55296, 5120), ("down", 5120, 27648)),
    "llama3.2-3b": (("qkv", 5120, 3072), ("o", 3072, 3072), ("gateup", 16384, 3072), ("down", 3072, 8192)),
    "qwen2.5-72b": (("gateup", 59136, 8192), ("down", 8192, 29568)),
}
MS = (1, 32, 48, 96, 192, 512, 2048)
GRIDS = {}  # case name -> {"kernel_grids": [[name, grid, block], ...]}


def kernel_grids(fn, args):
    """[(name, grid)] of the kernels one call launches, from the profiler's Chrome trace."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(*args)
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    os.remove(path)
    out = []
    for e in trace.get("traceEvents", []):
        if e.get("cat") == "kernel":
            a = e.get("args", {})
            out.append([e.get("name", ""), a.get("grid"), a.get("block")])
    return out


def plan():
    out = []
    for model, shapes in SHAPES.items():
        for tag, n, k in shapes:
            for m in MS:
                out += [("int8", model, tag, n, k, m, False), ("block", model, tag, n, k, m)]
    return out


def make(it):
    if it[0] == "block":
        built = quant_w8a8.block_fp8_case(*it[1:])
    else:
        built = quant_w8a8.int8_case(*it[1:])
    case, make_set, fn, check, set_bytes, tol = built

    def check_and_grids(s):
        # run_one copied the case before this runs: the grids go to GRIDS, merged in at save().
        try:
            GRIDS[case["name"]] = {"kernel_grids": kernel_grids(fn, s)}
        except Exception as e:  # the grid is a record, not a condition of the case
            GRIDS[case["name"]] = {"kernel_grids_error": f"{type(e).__name__}: {str(e)[:200]}"}
        return check(s)
    return case, make_set, fn, check_and_grids, set_bytes, tol


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=100.0)
    ap.add_argument("--case-seconds", type=float, default=0.05)
    a = ap.parse_args()
    log, meta, t0 = quant_gemm.start_run(a.out, "run.log", a.case_seconds)
    log(f"meta {json.dumps(meta)}")
    res = {"schema_version": 1, "meta": meta, "cases": []}

    def save():
        for c in res["cases"]:
            c.update(GRIDS.get(c.get("name"), {}))
        with open(f"{a.out}/quant5.json.tmp", "w") as f:
            json.dump(res, f, indent=1)
        os.replace(f"{a.out}/quant5.json.tmp", f"{a.out}/quant5.json")
    items = plan()
    log(f"{len(items)} cases")
    quant_gemm.measure_items(items, make, res["cases"], log, save, t0 + a.budget, a.case_seconds)
    save()
    log("done")


if __name__ == "__main__":
    main()
