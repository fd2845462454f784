#!/usr/bin/env python3
"""fp8row12's probe of the row-scaled FP8 kernel's half-empty last row tile (issue 12, results in
validation/results/h200-fp8row12): how does the padded K step of a partial second row tile grow
with the rows it holds and with the CTAs walking it (the full first row tile's CTAs beside them)?

    python3 validation/scripts/quant/run_fp8row12.py OUT_DIR [--budget S]

torch._scaled_mm row-wise (quant_gemm.gemm_case "fp8_row") over rows 128..256 (136 is padded to
144 by the harness, as cuBLASLt wants) at N = 8192 (64 columns), 4096 (32), 6144 (48) with
K = 8192 and N = 8192 at K = 28672: quant_gemm.py's harness (correctness first, CUDA-graph replay,
rotating buffers, median) with MIN_SAMPLES raised to 10; each case's kernel grid is read from
torch.profiler's trace (the kernel's "grid" argument).
"""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "production"))
sys.path.insert(0, HERE)

ROWS = (128, 136, 160, 192, 224, 240, 256)
TIMED = ([("o70", 8192, 8192, m) for m in ROWS]
         + [("n4096", 4096, 8192, m) for m in ROWS]
         + [("down70", 8192, 28672, m) for m in ROWS[1:]]
         + [("n6144", 6144, 8192, m) for m in (128, 160, 192, 240)])


def grids(fn, args):
    """(name, grid, block) of each GPU kernel one call launches, from the profiler's chrome trace."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(*args)
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    prof.export_chrome_trace(path)
    with open(path) as f:
        ev = json.load(f)["traceEvents"]
    os.unlink(path)
    return [(e["name"], e.get("args", {}).get("grid"), e.get("args", {}).get("block"))
            for e in ev if e.get("cat") == "kernel"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--case-seconds", type=float, default=0.06)
    a = ap.parse_args()
    import harness
    import quant_gemm
    log, meta, t0 = quant_gemm.start_run(a.out, "run.log", a.case_seconds)
    harness.MIN_SAMPLES = 10
    meta["harness"] = meta["harness"].replace("MIN_SAMPLES=5", "MIN_SAMPLES=10")
    res = {"schema_version": 1, "meta": meta, "cases": []}

    def save():
        with open(f"{a.out}/fp8row12.json.tmp", "w") as f:
            json.dump(res, f, indent=1)
        os.replace(f"{a.out}/fp8row12.json.tmp", f"{a.out}/fp8row12.json")

    def make(it):
        case, make_set, fn, check, set_bytes, tol = quant_gemm.gemm_case(*it)
        try:
            s = make_set()
            case["kernel_grids"] = grids(fn, s)
            del s
        except Exception as e:  # the grid is a side reading: the timing goes on without it
            case["kernel_grids_error"] = f"{type(e).__name__}: {str(e)[:200]}"
        return case, make_set, fn, check, set_bytes, tol
    items = [("sweep", tag, n, k, m, "fp8_row") for tag, n, k, m in TIMED]
    quant_gemm.measure_items(items, make, res["cases"], log, save, t0 + a.budget, a.case_seconds)
    log("done")


if __name__ == "__main__":
    main()
