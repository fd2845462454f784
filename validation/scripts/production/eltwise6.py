#!/usr/bin/env python3
"""Device run of the `eltwise6` task (issue 10): Inductor's looped row reductions at few to many rows
per SM, and SiLU*mul's two pointwise candidates.

    python3 validation/scripts/production/eltwise6.py OUT_DIR [--budget S]

1. Held-out / fit cases (harness.py's method and format) -> OUT_DIR/kernels.json: torch.compile
   F.rms_norm, F.layer_norm, torch.softmax at 8192 columns from 33 to 1056 rows (1/4 to 8 rows per
   SM), at 16384, 6144, 3072 and 2049 columns, and F.silu(a)*b at 8 shapes, with the config the
   autotuner kept (`autotuned`, read from the compiled kernels' CachingAutotuner).
2. SiLU*mul's candidates (Inductor's 1-D pointwise: XBLOCK 1024 / 4 warps and XBLOCK 512 / 8 warps)
   each launched alone from the generated source and timed with harness.py's method
   -> OUT_DIR/configs.json (`pointwise`, not a result suite).
Which cases are fitted and which held out: fit_inductor.py's docstring.
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/eltwise6_inductor")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops  # noqa: E402
import eltwise5  # noqa: E402
import harness  # noqa: E402

REDUCTIONS = ("rmsnorm", "layernorm", "softmax_fused")
# rows per SM 1/4 .. 8 at 8192 columns (4 blocks of 2048), and other widths at few rows per SM
COMPILED6 = [(33, 8192), (132, 8192), (264, 8192), (528, 8192), (1056, 8192), (16, 16384), (264, 16384),
             (66, 6144), (96, 3072), (132, 2049)]
SILU6 = [(1536, 18944), (3000, 8192), (500, 8192), (8000, 8192), (4096, 18944), (768, 14336), (2000, 12288),
         (10000, 4096)]


def time_pointwise(src_all, rows, cols, max_seconds, log):
    """Each candidate of the generated SiLU*mul kernel launched alone."""
    name, src = eltwise5.kernel_of(src_all)
    k = eltwise5.load_kernel(name, src, f"silu_{rows}x{cols}")
    ints = eltwise5.ints_of_call(src_all, name)
    ref = eager_ops.OPS["silu_mul"][1]
    mk = lambda: [torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16) for _ in range(2)] + \
        [torch.empty(rows, cols, device="cuda", dtype=torch.bfloat16)]
    out = {"name": f"compile_silu_mul_bf16_{rows}x{cols}", "rows": rows, "cols": cols, "triton_kernel": name,
           "candidates": []}
    for c in k.configs:
        cfg = eltwise5.config_dict(c)
        grid = ((ints[0] + cfg["XBLOCK"] - 1) // cfg["XBLOCK"], 1, 1)

        def fn(*s, consts=dict(c.kwargs), grid=grid, c=c):
            k.fn[grid](*s, *ints, **consts, num_warps=c.num_warps, num_stages=c.num_stages)

        rec = {"config": cfg}
        try:
            s = mk()
            fn(*s)
            torch.cuda.synchronize()
            rel, _ = harness.rel_error(s[-1].float(), ref(*[t.float() for t in s[:-1]]))
            rec["max_rel_error"], rec["correct"] = rel, bool(rel <= 2e-2)
            del s
            rec.update(harness.time_case(mk, fn, 2 * 3 * rows * cols, max_seconds))
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        torch.cuda.empty_cache()
        out["candidates"].append(rec)
        log(f"  {out['name']} {cfg}: {(rec.get('measured_s') or 0) * 1e6:.2f} us {rec.get('error', '')}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=150.0)
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
    configs = {"meta": meta, "pointwise": []}

    def save():
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs)}
        for obj, fname in ((result, "kernels.json"), (code, "inductor_code.json"), (configs, "configs.json")):
            with open(f"{a.out}/{fname}.tmp", "w") as f:
                json.dump(obj, f, indent=1)
            os.replace(f"{a.out}/{fname}.tmp", f"{a.out}/{fname}")

    def generate():
        for rows, cols in SILU6:
            yield "silu_mul", rows, cols
        for rows, cols in COMPILED6:
            for kernel in REDUCTIONS:
                yield kernel, rows, cols

    from torch._inductor.utils import run_and_get_code
    for kernel, rows, cols in generate():
        if time.perf_counter() - t0 > a.budget:
            log("budget spent: cases stop here")
            break
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
            if kernel == "silu_mul":
                configs["pointwise"].append(time_pointwise(" ".join(sources), rows, cols, 0.12, log))
        except Exception:
            log(f"{kernel} {rows}x{cols} raised:\n{traceback.format_exc()}")
        save()
    save()
    log(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
