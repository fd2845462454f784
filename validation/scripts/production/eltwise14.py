#!/usr/bin/env python3
"""Device run of the `eltwise14` task (issue 10): held-out shapes for Inductor's looped reduction's
walk past two 2048-column blocks.

    python3 validation/scripts/production/eltwise14.py OUT_DIR [--budget S]

Hypothesis (branch eltwise14, stream_cost.cpp inductor_walk_s with walk_from_cols 4097): past 4096
columns the autotuner keeps the 2048-column walk (num_stages 1: a CTA's blocks one after another),
so a call takes the floor, a row's walk (looped_row + blocks x <op>_block, fitted by fit_inductor.py
on branch eltwise6's cases) and the further rows' issue or the stream. torch.compile F.layer_norm,
torch.softmax and F.rms_norm (rms_norm has no walk: data for the next step) at 10 shapes of 5120 to
12288 columns, 24 to 3000 rows (0.2 to 23 rows an SM; none split: Inductor splits fewer than 264
rows of more than 8192 columns), each compiled alone (dynamic=False, so each keeps its own tuning),
harness.py's method and format with the config the autotuner kept -> OUT_DIR/kernels.json, the
generated code -> inductor_code.json. Nothing here is fitted on: every case is held out.
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/eltwise14_inductor")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops  # noqa: E402
import eltwise5  # noqa: E402
import harness  # noqa: E402

REDUCTIONS = ("layernorm", "softmax_fused", "rmsnorm")
SHAPES = [(24, 5120), (50, 7168), (100, 6144), (200, 5120), (264, 12288), (300, 7168), (600, 6144), (900, 5120),
          (1500, 10240), (3000, 6144)]


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
