#!/usr/bin/env python3
"""Device run of the `eltwise5` task (issue 10): each autotune candidate of Inductor's row reductions
timed alone, and a fifth held-out set of compiled row ops.

    python3 validation/scripts/production/eltwise5.py OUT_DIR [--budget S] [--code inductor_code.json]

1. Configs (facts for the model, not a result suite): for every torch.compile rmsnorm / layernorm /
   softmax whose generated module validation/results/h200-eltwise4/inductor_code.json holds, the
   Triton kernel is exec'd as Inductor wrote it (its @triton_heuristics decorator builds the
   candidate list, `configs`), and each candidate is launched alone with its block sizes and warps
   and timed with harness.py's method (CUDA-graph replay over rotating inputs) -> OUT_DIR/configs.json.
   The autotuner benchmarks these same candidates on the first call and keeps the fastest.
2. Held-out cases (harness.py's method and format) -> OUT_DIR/kernels.json: torch.compile F.rms_norm,
   F.layer_norm, torch.softmax and F.silu(a)*b at shapes no earlier set had, with the config the
   autotuner kept (`autotuned`: read from the compiled kernel's CachingAutotuner after the call).
Nothing here is fitted on unless fit_inductor.py says so (its docstring states the fit set).
"""
import argparse
import datetime
import importlib
import json
import os
import re
import sys
import time
import traceback

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/eltwise5_inductor")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops  # noqa: E402
import harness  # noqa: E402

REDUCTIONS = ("rmsnorm", "layernorm", "softmax_fused")
# new shapes: looped widths between and beyond the earlier sets' (2048-16384 columns, 2049 and 8200
# one column past a power of two), rows from 8 to 24576, and a persistent one (640 x 1000)
COMPILED5 = [(8, 8192), (200, 2049), (768, 16384), (4000, 4608), (24576, 2048), (640, 1000), (9000, 8200)]
SILU5 = [(3000, 8192), (20000, 1536)]


def kernel_of(module_src):
    """(name, source) of the Triton kernel in an Inductor output module."""
    m = re.search(r"async_compile\.triton\('(\w+)', '''(.*?)''', device_str='cuda'\)", module_src, re.S)
    if not m:
        raise ValueError("no Triton kernel in the module")
    return m.group(1), m.group(2)


def is_persistent(entry):
    return kernel_of(" ".join(entry["sources"]))[0].startswith("triton_per")


def load_kernel(name, src, tag):
    """The CachingAutotuner Inductor's decorator builds (its .configs are the autotune candidates)."""
    path = f"/tmp/eltwise5_kernels/{tag}.py"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(src)
    ns = {"__file__": path, "__name__": f"eltwise5_{tag}"}
    exec(compile(src, path, "exec"), ns)
    return ns[name]


def config_dict(c):
    return {**{k: v for k, v in c.kwargs.items()}, "num_warps": c.num_warps, "num_stages": c.num_stages}


def make_inputs(kernel, rows, cols):
    bf = torch.bfloat16
    x = (torch.rand(rows, cols, device="cuda", dtype=bf) * 2 - 1) if kernel == "softmax_fused" else \
        torch.randn(rows, cols, device="cuda", dtype=bf)
    ins = [x]
    if kernel in ("rmsnorm", "layernorm"):
        ins.append(torch.rand(cols, device="cuda", dtype=bf) + 0.5)
    if kernel == "layernorm":
        ins.append(torch.randn(cols, device="cuda", dtype=bf))
    return ins + [torch.empty(rows, cols, device="cuda", dtype=bf)]


def ints_of_call(module_src, name):
    """The integer arguments Inductor's wrapper passes to the kernel (xnumel, r0_numel)."""
    m = re.search(name + r"\.run\(([^\n]*)\)", module_src)
    return [int(t) for t in (a.strip() for a in m.group(1).split(",")) if t.isdigit()]


def prepare(entry):
    """Loads one generated reduction and compiles every candidate (Triton's warmup: no launch)."""
    src_all = " ".join(entry["sources"])
    name, src = kernel_of(src_all)
    k = load_kernel(name, src, entry["name"])
    ints = ints_of_call(src_all, name)
    small = make_inputs(entry["kernel"], 16, 16)
    for c in k.configs:
        try:
            k.fn.warmup(*small, *ints, grid=(1,), **dict(c.kwargs), num_warps=c.num_warps, num_stages=c.num_stages)
        except Exception:
            pass  # compiled on its first launch instead
    return entry, name, k, ints


def time_configs(prepared, max_seconds, log):
    """Each candidate of one generated reduction, launched alone: its hot time per call."""
    entry, name, k, ints = prepared
    kernel, rows, cols = entry["kernel"], entry["rows"], entry["cols"]
    out = {"name": entry["name"], "kernel": kernel, "rows": rows, "cols": cols, "triton_kernel": name,
           "persistent": name.startswith("triton_per"), "candidates": []}
    nbytes = 2 * (2 * rows * cols + {"rmsnorm": 1, "layernorm": 2}.get(kernel, 0) * cols)
    ref = eager_ops.OPS[kernel][1]
    for c in k.configs:
        cfg = config_dict(c)
        grid = ((ints[0] + cfg["XBLOCK"] - 1) // cfg["XBLOCK"], 1, 1)
        consts = dict(c.kwargs)

        def fn(*s, consts=consts, grid=grid, c=c):
            k.fn[grid](*s, *ints, **consts, num_warps=c.num_warps, num_stages=c.num_stages)

        rec = {"config": cfg}
        try:
            s = make_inputs(kernel, rows, cols)
            fn(*s)
            torch.cuda.synchronize()
            rel, mx = harness.rel_error(s[-1].float(), ref(*[t.float() for t in s[:-1]]))
            rec["max_rel_error"] = rel
            rec["correct"] = bool(rel <= 2e-2)
            del s
            rec.update(harness.time_case(lambda: make_inputs(kernel, rows, cols), fn, nbytes, max_seconds))
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        torch.cuda.empty_cache()
        out["candidates"].append(rec)
        log(f"  {entry['name']} {cfg}: {(rec.get('measured_s') or 0) * 1e6:.2f} us {rec.get('error', '')}")
    return out


def autotuned(fn):
    """The config the CachingAutotuner of each Triton kernel in the compiled module kept."""
    found = []
    try:
        from torch._inductor.codecache import PyCodeCache
        mods = getattr(PyCodeCache, "modules", None) or list(getattr(PyCodeCache, "cache", {}).values())
        for mod in list(mods)[-4:]:  # the wrapper module and its kernels' modules, loaded last
            for attr in dir(mod):
                obj = getattr(mod, attr, None)
                if attr.startswith("triton_") and hasattr(obj, "launchers"):
                    for l in obj.launchers:
                        rec = {"kernel": attr, **config_dict(l.config)}
                        if rec not in found:
                            found.append(rec)
    except Exception as e:
        found.append({"error": f"{type(e).__name__}: {e}"[:300]})
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=100.0)
    ap.add_argument("--code", default="validation/results/h200-eltwise4/inductor_code.json")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    logf = open(f"{a.out}/run.log", "a")

    def log(msg):
        line = f"[{time.perf_counter() - t0:7.1f}s] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    def left():
        return a.budget - (time.perf_counter() - t0)

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

    # 1. Every candidate of every generated reduction, compiled in threads (Triton's compiler and
    # ptxas run outside the interpreter for most of it), looped reductions first.
    from concurrent.futures import ThreadPoolExecutor
    entries = json.load(open(a.code))["reductions"]
    entries.sort(key=is_persistent)
    for mod in ("torch._inductor.runtime.triton_heuristics", "torch._inductor.runtime.triton_helpers"):
        importlib.import_module(mod)  # once, before the threads
    pool = ThreadPoolExecutor(max_workers=12)
    futures = [pool.submit(prepare, e) for e in entries]
    configs = {"meta": meta, "reductions": []}  # not "cases": no result file (results.cpp)

    def save_configs():
        with open(f"{a.out}/configs.json.tmp", "w") as f:
            json.dump(configs, f, indent=1)
        os.replace(f"{a.out}/configs.json.tmp", f"{a.out}/configs.json")

    def run_configs(which, until):
        for e, fu in zip(entries, futures):
            if is_persistent(e) != which:
                continue
            if left() < until:
                log("budget share spent: config timings stop here")
                return
            try:
                configs["reductions"].append(time_configs(fu.result(), 0.12, log))
                save_configs()
            except Exception:
                log(f"{e['name']} raised:\n{traceback.format_exc()}")

    run_configs(False, 0.5 * a.budget)
    save_configs()

    # 2. The held-out suite: new shapes, torch.compile as users call it, with the generated code
    # and the config the autotuner kept.
    result = {"schema_version": 1, "meta": meta, "summary": {}, "cases": []}
    code = {"meta": meta, "reductions": []}

    def save():
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs)}
        with open(f"{a.out}/kernels.json.tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(f"{a.out}/kernels.json.tmp", f"{a.out}/kernels.json")
        with open(f"{a.out}/inductor_code.json.tmp", "w") as f:
            json.dump(code, f, indent=1)
        os.replace(f"{a.out}/inductor_code.json.tmp", f"{a.out}/inductor_code.json")

    def generate():
        for rows, cols in SILU5:
            yield "silu_mul", rows, cols
        for rows, cols in COMPILED5:
            for kernel in REDUCTIONS:
                yield kernel, rows, cols

    from torch._inductor.utils import run_and_get_code
    for kernel, rows, cols in generate():
        if left() < 0.12 * a.budget:
            log("budget share spent: held-out cases stop here")
            break
        try:
            case, make_set, fn, check, set_bytes = eager_ops._rowcol_case(
                kernel, rows, cols, "torch.compile", compiled_fn=torch.compile(eager_ops.OPS[kernel][0], dynamic=False))
            _, sources = run_and_get_code(fn, *make_set())
            torch.cuda.synchronize()
            kept = autotuned(fn)
            code["reductions"].append({"name": case["name"], "kernel": kernel, "rows": rows, "cols": cols,
                                       "sources": sources, "autotuned": kept, "held_out": True})
            r = harness.run_case(case, make_set, fn, check, set_bytes, 0.25)
            r["autotuned"] = kept
        except Exception:
            log(f"{kernel} {rows}x{cols} raised:\n{traceback.format_exc()}")
            continue
        result["cases"].append(r)
        save()
        log(f"{r['name']}: {(r.get('measured_s') or 0) * 1e6:.2f} us, ok {r['ok']}, kept {kept}")
    save()

    # 3. The persistent reductions' candidates with what is left.
    run_configs(True, 0.0)
    save_configs()
    pool.shutdown(wait=False, cancel_futures=True)
    log(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
