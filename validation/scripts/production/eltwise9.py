#!/usr/bin/env python3
"""Device run of the `eltwise9` task (issue 10): does Inductor's XBLOCK 2 pair the rows of a looped
reduction of at most 2048 columns on the SM's issue?

    python3 validation/scripts/production/eltwise9.py OUT_DIR [--budget S]

Inductor's contiguous reduction config is XBLOCK 2 while the row's size hint is at most 2048
(torch/_inductor/runtime/triton_heuristics.py, _reduction_configs), so a CTA holds two rows and an
SM's further rows come in pairs. Hypothesis (stream_cost.cpp, inductor_issue_s): 264 x 2048 costs
132 x 2048's issue (one CTA of 2 rows an SM either way; one row a CTA would add a row), and one CTA
past a whole number per SM adds two rows' issue to its SM (1058 vs 1056 rows; one row a CTA: one).
torch.compile F.layer_norm and torch.softmax at those shapes (harness.py's method and format, with
the config the autotuner kept) -> OUT_DIR/kernels.json, the generated code -> inductor_code.json.
Nothing here is fitted on: every case is held out.
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/eltwise9_inductor")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops  # noqa: E402
import eltwise5  # noqa: E402
import harness  # noqa: E402

REDUCTIONS = ("layernorm", "softmax_fused")
SHAPES = [(132, 2048), (264, 2048), (266, 2048), (1056, 2048), (1058, 2048), (264, 1536), (266, 1536)]


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
    for rows, cols in SHAPES:
        for kernel in REDUCTIONS:
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
