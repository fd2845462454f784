#!/usr/bin/env python3
"""Device run of the `eltwise12` task (issue 10): why does Inductor's looped layer_norm at
8192 x 14336 run ~45 % faster per 2048-column block than at 6144 x 11008 (and every other large
looped layer_norm measured, ~660 G padded elements/s against ~960)?

    python3 validation/scripts/production/eltwise12.py OUT_DIR [--budget S]     # time (harness.py)
    ncu ... python3 validation/scripts/production/eltwise12.py OUT_DIR --ncu    # counters, one launch a shape

Two candidate mechanisms, each with its own distinguishing counter (Nsight Compute, one launch a
shape, caches flushed before it as harness.py's rotating buffers leave them):
  issue:  the kernel issues fewer instructions a padded element at 8192 x 14336
          (smsp__inst_executed.sum / (rows x padded cols) lower there than at the slow shapes);
  L2:     the second walk's re-read (evict_first, of what the first walk loaded evict_last) hits L2
          there and misses at the slow shapes (dram__bytes_read.sum ~ 1x the input there, ~2x at
          the slow shapes).
The rows x cols sweep crosses 8192 / 6144 / 4096 rows with 14336 / 11008 / 12288 / 4096 columns, so
whichever counter moves says whether rows or columns carry it. Nothing here is fitted on unless
the README says so.
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/eltwise12_inductor")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops  # noqa: E402
import harness  # noqa: E402
from eltwise11 import kept_launchers  # noqa: E402

SHAPES = [(8192, 14336), (6144, 11008), (8192, 11008), (6144, 14336), (4096, 14336), (8192, 12288), (4096, 4096)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=60.0)
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
    code = {"meta": meta, "reductions": []}

    def save():
        if a.ncu:
            return
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs)}
        for obj, fname in ((result, "kernels.json"), (code, "inductor_code.json")):
            with open(f"{a.out}/{fname}.tmp", "w") as f:
                json.dump(obj, f, indent=1)
            os.replace(f"{a.out}/{fname}.tmp", f"{a.out}/{fname}")

    from torch._inductor.utils import run_and_get_code
    kernel = "layernorm"
    for rows, cols in SHAPES:
        if time.perf_counter() - t0 > a.budget:
            log("budget spent: cases stop here")
            break
        try:
            case, make_set, fn, check, set_bytes = eager_ops._rowcol_case(
                kernel, rows, cols, "torch.compile", compiled_fn=torch.compile(eager_ops.OPS[kernel][0], dynamic=False))
            if a.ncu:
                args = make_set()
                fn(*args)  # compile (the cache from the timed run: no autotune launches)
                torch.cuda.synchronize()
                log(f"ncu launch {rows}x{cols}")
                fn(*make_set())
                torch.cuda.synchronize()
                continue
            _, sources = run_and_get_code(fn, *make_set())
            torch.cuda.synchronize()
            kept = kept_launchers()
            code["reductions"].append({"name": case["name"], "kernel": kernel, "rows": rows, "cols": cols,
                                       "sources": sources, "autotuned": kept})
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
