#!/usr/bin/env python3
"""Device run of the `walkdefault` task (issue 10): Inductor's looped layer_norm / softmax at fixed rows and
2048-column blocks 4 to 10 (row mask only: 3072 and 1536 rows, whole blocks), to locate the step in the
time beyond the rows' issue that committed ncu rows show between 5 and 6 blocks
(validation/results/h200-walkdefault/busiest_sm_issue.txt; docs/accuracy-notes.md, "Branch walkdefault").

    python3 validation/scripts/production/walkdefault.py OUT_DIR [--budget S]

Hypothesis, stated before the call: at fixed rows an SM, layer_norm's time less its busiest SM's issue at the
compiled rate is ~2 us up to 5 blocks and ~6-7 us from 6 blocks (one lone row's walk exposed). Each shape
compiled alone (dynamic=False), eltwise14.py's method (harness.py: fp32 check first, CUDA-graph replay,
rotating buffers), the config the autotuner kept recorded. Nothing here is fitted on.
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/walkdefault_inductor")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops  # noqa: E402
import eltwise5  # noqa: E402
import harness  # noqa: E402

# (kernel, rows, cols): 3072 rows (23.3 an SM) at 4-10 whole blocks, 1536 rows (11.6) at 4, 6, 8, 10; softmax
# at 3072 rows, 4-10 blocks. Ordered so that a spent budget still leaves the layer_norm sweep.
CASES = ([("layernorm", 3072, 2048 * b) for b in (4, 5, 6, 7, 8, 10)] +
         [("layernorm", 1536, 2048 * b) for b in (4, 6, 8, 10)] +
         [("softmax_fused", 3072, 2048 * b) for b in (4, 5, 6, 7, 8, 10)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=90.0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    logf = open(f"{a.out}/run.log", "a")

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
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs)}
        for obj, fname in ((result, "kernels.json"), (code, "inductor_code.json")):
            with open(f"{a.out}/{fname}.tmp", "w") as f:
                json.dump(obj, f, indent=1)
            os.replace(f"{a.out}/{fname}.tmp", f"{a.out}/{fname}")

    from torch._inductor.utils import run_and_get_code
    for kernel, rows, cols in CASES:
        if True:
            if time.perf_counter() - t0 > a.budget:
                log("budget spent: cases stop here")
                save()
                return
            try:
                case, make_set, fn, check, set_bytes = eager_ops._rowcol_case(
                    kernel, rows, cols, "torch.compile", compiled_fn=torch.compile(eager_ops.OPS[kernel][0], dynamic=False))
                _, sources = run_and_get_code(fn, *make_set())
                torch.cuda.synchronize()
                kept = eltwise5.autotuned(fn)
                code["reductions"].append({"name": case["name"], "kernel": kernel, "rows": rows, "cols": cols,
                                           "sources": sources, "autotuned": kept})
                r = harness.run_case(case, make_set, fn, check, set_bytes, 0.25)
                r["autotuned"] = kept
                result["cases"].append(r)
                log(f"{r['name']}: {(r.get('measured_s') or 0) * 1e6:.2f} us, ok {r['ok']}, kept {kept}")
            except Exception:
                log(f"{kernel} {rows}x{cols} raised:\n{traceback.format_exc()}")
            save()
    save()
    log(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
