#!/usr/bin/env python3
"""Device run of the `eltwise4` task (issue 10): what Inductor generates for the row reductions, and
a fourth held-out set of compiled and eager row ops at shapes no earlier set had.

    python3 validation/scripts/production/eltwise4.py OUT_DIR [--budget S]

1. Facts, no timing: for every torch.compile row reduction of h200-production and h200-eltwise3
   (and of the new cases), the generated Triton source (torch._inductor.utils.run_and_get_code:
   persistent or looped reduction, size hints, reduction hint, kernel count) and the config the
   runtime autotuner kept (`*.best_config` in the Inductor cache) -> OUT_DIR/inductor_code.json.
   Inductor's own heuristics sources -> OUT_DIR/inductor_src.tar.gz.
2. Held-out cases (harness.py's method and format) -> OUT_DIR/kernels.json: torch.compile
   F.rms_norm / F.layer_norm / torch.softmax / F.silu(a)*b, eager torch.softmax at many rows
   (the warp softmax) and eager F.silu(a)*b at few rows, with the per-kernel split (torch.profiler).
Nothing in it is fitted on (fit_aten.py / fit_profiles.py read h200-production's even cases only).
"""
import argparse
import datetime
import glob
import json
import os
import sys
import tarfile
import time
import traceback

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/eltwise4_inductor")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops  # noqa: E402
import eltwise3  # noqa: E402
import harness  # noqa: E402

REDUCTIONS = ("rmsnorm", "layernorm", "softmax_fused")
# shapes whose generated code is read (the fit set's and eltwise3's compiled reductions)
CODE_SHAPES = eager_ops.ROWCOL[::2] + eltwise3.COMPILED3
# new compiled shapes: persistent (cols <= 1024) and looped reductions, few and many rows, widths
# between and beyond the earlier sets' (768-18944)
COMPILED4 = [(4, 1024), (2048, 768), (16384, 512), (64, 2560), (1000, 3072), (3072, 7168), (12288, 5120),
             (1536, 18944)]
SILU4 = [(8, 2560), (512, 7168), (12288, 5120), (1536, 18944)]
# eager softmax at many rows (the persistent warp softmax, cols <= 2048) and eager SiLU*mul at few rows
SOFTMAX4 = [(8192, 512), (24576, 1024), (65536, 256), (20000, 2048), (4096, 1536), (50000, 128), (12000, 768),
            (300, 2048)]
SILU_EAGER4 = [(2, 4096), (8, 11008), (40, 1536), (200, 2048), (600, 896), (64, 14336), (2500, 768), (100, 5120)]


def compile_fn(kernel):
    return torch.compile(eager_ops.OPS[kernel][0], dynamic=False)


def best_configs(since):
    out = []
    for p in glob.glob(os.environ["TORCHINDUCTOR_CACHE_DIR"] + "/**/*.best_config", recursive=True):
        if os.path.getmtime(p) >= since:
            try:
                out.append({"file": os.path.basename(p), "config": json.load(open(p))})
            except Exception as e:
                out.append({"file": os.path.basename(p), "error": str(e)})
    return out


def code_of(kernel, rows, cols):
    from torch._inductor.utils import run_and_get_code
    case, make_set, _, _, _ = eager_ops._rowcol_case(kernel, rows, cols, "torch.compile")
    fn = compile_fn(kernel)
    since = time.time() - 1
    _, sources = run_and_get_code(fn, *make_set())
    torch.cuda.synchronize()
    return {"name": case["name"], "kernel": kernel, "rows": rows, "cols": cols, "sources": sources,
            "best_configs": best_configs(since)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=140.0)
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
            "git_sha": os.environ.get("GIT_SHA", ""),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    try:
        import triton
        meta["triton"] = triton.__version__
    except Exception as e:
        meta["versions_error"] = str(e)
    log(f"meta {json.dumps(meta)}")

    # Inductor's heuristics, as installed
    import torch._inductor as ind
    root = os.path.dirname(ind.__file__)
    with tarfile.open(f"{a.out}/inductor_src.tar.gz", "w:gz") as tar:
        for rel in ("choices.py", "config.py", "runtime/triton_heuristics.py", "runtime/hints.py",
                    "codegen/simd.py", "codegen/triton.py", "codegen/simd_kernel_features.py"):
            if os.path.exists(f"{root}/{rel}"):
                tar.add(f"{root}/{rel}", arcname=rel)
    log("inductor sources saved")

    code = {"meta": meta, "reductions": []}  # not "cases": no result file (results.cpp)

    def save_code():
        with open(f"{a.out}/inductor_code.json.tmp", "w") as f:
            json.dump(code, f, indent=1)
        os.replace(f"{a.out}/inductor_code.json.tmp", f"{a.out}/inductor_code.json")

    for kernel in REDUCTIONS:
        for rows, cols in CODE_SHAPES:
            if time.perf_counter() - t0 > a.budget * 0.3:
                break
            try:
                code["reductions"].append(code_of(kernel, rows, cols))
                log(f"code {kernel} {rows}x{cols}: {len(code['reductions'][-1]['best_configs'])} best configs")
            except Exception:
                log(f"code {kernel} {rows}x{cols} raised:\n{traceback.format_exc()}")
    save_code()

    result = {"schema_version": 1, "meta": meta, "summary": {}, "cases": []}

    def save():
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs)}
        with open(f"{a.out}/kernels.json.tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(f"{a.out}/kernels.json.tmp", f"{a.out}/kernels.json")

    def generate():
        for rows, cols in SOFTMAX4:
            yield None, lambda r=rows, c=cols: eager_ops._rowcol_case("softmax_fused", r, c, "torch.eager")
        for rows, cols in SILU_EAGER4:
            yield None, lambda r=rows, c=cols: eager_ops._rowcol_case("silu_mul", r, c, "torch.eager")
        for kernel in REDUCTIONS:
            for rows, cols in COMPILED4:
                yield (kernel, rows, cols), lambda k=kernel, r=rows, c=cols: eager_ops._rowcol_case(
                    k, r, c, "torch.compile", compiled_fn=compile_fn(k))
        for rows, cols in SILU4:
            yield None, lambda r=rows, c=cols: eager_ops._rowcol_case(
                "silu_mul", r, c, "torch.compile", compiled_fn=compile_fn("silu_mul"))

    for facts, make in generate():
        if time.perf_counter() - t0 > a.budget:
            log("budget spent: held-out cases stop here")
            break
        try:
            since = time.time() - 1
            case, make_set, fn, check, set_bytes = make()
            if facts:  # the new compiled reduction's code, from its own first call
                from torch._inductor.utils import run_and_get_code
                _, sources = run_and_get_code(fn, *make_set())
                torch.cuda.synchronize()
                code["reductions"].append({"name": case["name"], "kernel": facts[0], "rows": facts[1], "cols": facts[2],
                                      "sources": sources, "best_configs": best_configs(since), "held_out": True})
                save_code()
            r = harness.run_case(case, make_set, fn, check, set_bytes, 0.25)
            if r["ok"] and r["kernel"] == "silu_mul" and r["implementation"] == "torch.eager":
                r["kernel_times_us"] = eltwise3.kernel_times(fn, make_set, set_bytes)
        except Exception:
            log(f"raised:\n{traceback.format_exc()}")
            continue
        result["cases"].append(r)
        save()
        log(f"{r['name']}: {(r.get('measured_s') or 0) * 1e6:.2f} us, ok {r['ok']}, {r.get('kernels_per_launch')} kernels")

    save()
    save_code()
    log(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
