#!/usr/bin/env python3
"""Device run of the `inductorrow` task (issue 10): do Inductor's looped softmax (and layer_norm at one
block) issue more warp instructions a padded element on short rows with both masks, as layer_norm does
at 2-3 blocks (h200-rowops17/ncu.csv: 7191 / 8283 a row at 1000 x 3072 / 4000 x 4608, 1.48 / 1.14 x the
reference 1.188 a padded element of 6144 x 11008)?

    python3 validation/scripts/production/inductorrow.py OUT_DIR [--budget S]     # time (harness.py, as eltwise12.py)
    ncu ... python3 validation/scripts/production/inductorrow.py OUT_DIR --ncu    # counters, one launch a shape

Hypothesis, stated before the call: the compiled softmax's rate (fit_inductor.py) was fitted on a mix of
mask classes (4096 x 4096 and 8192 x 14336 with no mask, 1000 x 3072 with both, 12288 x 5120 with the
column mask only, 1056 x 8192 with the row mask only) and its short both-mask rows are priced 11-18 %
under (1000 x 3072, 4000 x 4608) because they issue more a padded element than the unmasked ones, as
layer_norm's do; the count a row (smsp__inst_executed.sum / rows) against the padded width says it.
layer_norm at 1 block (1025-2047 columns; XBLOCK 2: two rows a CTA) is counted to test inductor_masks.cpp's
claim that each row carries half the fixed part (5007 / 2 + 1092 a row). Shapes: the softmax rate's five
fit cases, both masks at 1, 3, 4, 6 blocks and the row mask only at 3 blocks; layer_norm at 1 block.
None is an h200-heldout17 shape. Nothing here is fitted on unless the README says so.
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/inductorrow_inductor")
sys.path.insert(0, os.path.join(os.getcwd(), "validation", "scripts", "production"))
import torch  # noqa: E402

import eager_ops  # noqa: E402
import harness  # noqa: E402
from eltwise11 import kept_launchers  # noqa: E402

CASES = [("softmax_fused", 1000, 3072), ("softmax_fused", 4000, 4608), ("softmax_fused", 5000, 1792),
         ("softmax_fused", 3072, 7168), ("softmax_fused", 6144, 11008), ("softmax_fused", 6144, 6144),
         ("softmax_fused", 12288, 5120), ("softmax_fused", 1056, 8192), ("softmax_fused", 4096, 4096),
         ("softmax_fused", 8192, 14336), ("layernorm", 5000, 1792), ("layernorm", 8000, 1280)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=90.0)
    ap.add_argument("--ncu", action="store_true", help="one launch a shape, for Nsight Compute")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    logf = open(f"{a.out}/run{'_ncu' if a.ncu else ''}.log", "a")

    def log(msg):
        line = f"[{time.perf_counter() - t0:7.1f}s] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    torch.cuda.set_device(0)
    harness.init()
    torch._dynamo.config.cache_size_limit = 256
    meta = {"device": harness.device_meta(), "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    try:
        import triton
        meta["triton"] = triton.__version__
    except Exception as e:
        meta["versions_error"] = str(e)
    log(f"meta {json.dumps(meta)}")
    result = {"schema_version": 1, "meta": meta, "summary": {}, "cases": []}

    def save():
        if a.ncu:
            return
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs)}
        with open(f"{a.out}/kernels.json.tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(f"{a.out}/kernels.json.tmp", f"{a.out}/kernels.json")

    for kernel, rows, cols in CASES:
        if time.perf_counter() - t0 > a.budget:
            log("budget spent: cases stop here")
            break
        try:
            torch._dynamo.reset()
            case, make_set, fn, check, set_bytes = eager_ops._rowcol_case(
                kernel, rows, cols, "torch.compile", compiled_fn=torch.compile(eager_ops.OPS[kernel][0], dynamic=False))
            if a.ncu:
                fn(*make_set())  # compile (the cache from the timed run)
                torch.cuda.synchronize()
                log(f"ncu launch {kernel} {rows}x{cols} kept {kept_launchers()[-1:]}")
                fn(*make_set())
                torch.cuda.synchronize()
                continue
            fn(*make_set())
            torch.cuda.synchronize()
            kept = kept_launchers()
            r = harness.run_case(case, make_set, fn, check, set_bytes, 0.25)
            r["autotuned"] = kept
            result["cases"].append(r)
            log(f"{r['name']}: {(r.get('measured_s') or 0) * 1e6:.2f} us, ok {r['ok']}, kept {kept[-1:]}")
        except Exception:
            log(f"{kernel} {rows}x{cols} raised:\n{traceback.format_exc()}")
        save()
    save()
    log(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
