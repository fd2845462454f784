#!/usr/bin/env python3
"""Device run of the `eltwise11` task (issue 10): do Inductor's looped reductions of at most 2048
columns (XBLOCK 2, R0_BLOCK 2048, 16 warps: 512 threads a CTA) hold fewer than 4 CTAs an SM?

    python3 validation/scripts/production/eltwise11.py OUT_DIR [--budget S]

Hypothesis: the kernel's registers a thread (the launcher's n_regs) cap the resident CTAs an SM
below the 4 that 2048 threads allow, so past that many CTAs an SM the further CTAs run as a second
wave that waits its own latency chain, not only its issue (h200-eltwise9: 264 -> 1056 x 2048 adds
1.06 / 1.53 us a CTA for layer_norm / softmax where the issue rate prices 0.77 / 1.17). Distinguishing
prediction: a staircase in rows at 1..8 CTAs an SM (264 x k rows of 2048), its rises where k passes
a multiple of the resident CTAs. torch.compile F.layer_norm and torch.softmax (harness.py's method
and format, the autotuner's kept config with its n_regs / n_spills / shared) -> OUT_DIR/kernels.json,
the generated code -> inductor_code.json. Nothing here is fitted on unless the README says so.
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/eltwise11_inductor")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops  # noqa: E402
import harness  # noqa: E402

REDUCTIONS = ("layernorm", "softmax_fused")
SHAPES = [(264 * k, 2048) for k in (1, 2, 3, 4, 5, 6, 8)] + [(8192, 14336), (6144, 11008)]


def kept_launchers():
    """The kept config of each Triton kernel of the last compiled module, with its resources."""
    found = []
    try:
        from torch._inductor.codecache import PyCodeCache
        mods = getattr(PyCodeCache, "modules", None) or list(getattr(PyCodeCache, "cache", {}).values())
        for mod in list(mods)[-4:]:
            for attr in dir(mod):
                obj = getattr(mod, attr, None)
                if attr.startswith("triton_") and hasattr(obj, "launchers"):
                    for l in obj.launchers:
                        c = l.config
                        rec = {"kernel": attr, **{k: v for k, v in c.kwargs.items()}, "num_warps": c.num_warps,
                               "num_stages": c.num_stages}
                        for k in ("n_regs", "n_spills", "shared"):
                            v = getattr(l, k, None)
                            rec[k] = int(v) if isinstance(v, (int, float)) else v
                        if rec not in found:
                            found.append(rec)
    except Exception as e:
        found.append({"error": f"{type(e).__name__}: {e}"[:300]})
    return found


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
                kept = kept_launchers()
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
