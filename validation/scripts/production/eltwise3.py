#!/usr/bin/env python3
"""Device run of the `eltwise` task (issue 10): a third held-out set of PyTorch's elementwise, norm,
softmax and rotary ops, eager and under torch.compile, at shapes neither h200-production nor
h200-eager-heldout had (rows 1-32768, cols 896-16384, other head layouts), and the per-kernel
device times (torch.profiler) of the multi-kernel ops at h200-production's shapes and the new ones.

    python3 validation/scripts/production/eltwise3.py OUT_DIR [--budget S]

Writes OUT_DIR/kernels.json (harness.py's case format; `kernel_times_us`: mean device time of each
kernel per call, in launch order, from the profiler over the rotating sets) and OUT_DIR/run.log,
rewritten after every case. Nothing in it is fitted on (fit_aten.py reads h200-production only).
"""
import argparse
import datetime
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import eager_ops  # noqa: E402
import harness  # noqa: E402

ROWCOL3 = [(1, 896), (3, 16384), (24, 1536), (96, 3072), (384, 6144), (1536, 896), (4000, 5120),
           (6144, 11008), (16384, 2048), (32768, 1024)]
COMPILED3 = [(1, 896), (24, 1536), (384, 6144), (6144, 11008), (32768, 1024)]
HF3 = [(2, 2048), (48, 3584), (640, 5120), (2048, 896), (16384, 2048)]
# (tokens, heads, kv heads, head dim): Llama-3 layouts at new token counts, Qwen2-7B (28/4),
# Llama-2 (32/32), a head dim of 64
ROTARY3 = [(2, 32, 8, 128), (16, 32, 8, 128), (128, 32, 8, 128), (1024, 32, 8, 128), (3000, 32, 8, 128),
           (12000, 32, 8, 128), (200, 28, 4, 128), (1, 32, 32, 128), (2048, 32, 32, 128), (512, 16, 16, 64)]
ROTARY3_COMPILED = [(4, 32, 8, 128), (64, 32, 8, 128), (1024, 32, 8, 128), (4096, 32, 8, 128), (16000, 32, 8, 128)]
# h200-production's shapes of the multi-kernel ops (profiled only, for the per-kernel split)
PROD_PROFILE = ([("hf", r, c) for r, c in ((1, 4096), (32, 4096), (1024, 4096), (8192, 4096))] +
                [("rot", t, 32, 8, 128) for t in (1, 32, 256, 2048, 8192, 16384)] +
                [("silu", r, c) for r, c in eager_ops.ROWCOL] + [("crot", t, 32, 8, 128) for t in (1, 256, 8192)])


def kernel_times(fn, make_set, set_bytes, calls=40):
    """Mean device time (us) per call of each kernel fn launches, in launch order, over rotating sets
    (> 2x L2 where the sizes allow), from torch.profiler's CUDA activity."""
    from torch.profiler import ProfilerActivity, profile
    n = max(1, min(calls, -(-2 * harness.L2_BYTES // max(set_bytes, 1))))
    sets = [make_set() for _ in range(n)]
    for s in sets[:3]:
        fn(*s)
    torch.cuda.synchronize()
    reps = max(n, min(calls, 40))
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i in range(reps):
            fn(*sets[i % n])
        torch.cuda.synchronize()
    order, total = [], {}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        if e.name not in total:
            order.append(e.name)
            total[e.name] = 0.0
        total[e.name] += e.time_range.elapsed_us()
    del sets
    return [[name, total[name] / reps] for name in order]


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
            "cudnn": torch.backends.cudnn.version(), "git_sha": os.environ.get("GIT_SHA", ""),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    try:
        import transformers
        import triton
        meta.update(transformers=transformers.__version__, triton=triton.__version__)
    except Exception as e:
        meta["versions_error"] = str(e)
    log(f"meta {json.dumps(meta)}")
    result = {"schema_version": 1, "meta": meta, "summary": {}, "cases": []}
    profiles = {"schema_version": 1, "meta": meta, "profiles": []}

    def save():
        cs = result["cases"]
        result["summary"] = {"cases": len(cs), "ok": sum(c["ok"] for c in cs), "correct": sum(c["correct"] for c in cs)}
        for name, obj in (("kernels.json", result), ("kernel_split.json", profiles)):
            with open(f"{a.out}/{name}.tmp", "w") as f:
                json.dump(obj, f, indent=1)
            os.replace(f"{a.out}/{name}.tmp", f"{a.out}/{name}")

    def generate():
        for kernel in ("rmsnorm", "layernorm", "softmax_fused", "silu_mul"):
            for rows, cols in ROWCOL3:
                yield lambda k=kernel, r=rows, c=cols: eager_ops._rowcol_case(k, r, c, "torch.eager")
        for rows, cols in HF3:
            def hf(r=rows, c=cols):
                case = eager_ops._rowcol_case("rmsnorm", r, c, "hf.eager", compiled_fn=eager_ops.hf_rmsnorm)
                case[0]["name"] = f"hf_eager_rmsnorm_bf16_{r}x{c}"
                return case
            yield hf
        for t, h, kvh, d in ROTARY3:
            yield lambda t=t, h=h, kvh=kvh, d=d: eager_ops._rotary_case(t, "torch.eager", h=h, kvh=kvh, d=d)
        for kernel in ("rmsnorm", "layernorm", "softmax_fused", "silu_mul"):
            for rows, cols in COMPILED3:
                yield lambda k=kernel, r=rows, c=cols: eager_ops._rowcol_case(
                    k, r, c, "torch.compile", compiled_fn=torch.compile(eager_ops.OPS[k][0], dynamic=False))
        for t, h, kvh, d in ROTARY3_COMPILED:
            yield lambda t=t, h=h, kvh=kvh, d=d: eager_ops._rotary_case(
                t, "torch.compile", compiled_fn=torch.compile(eager_ops.hf_rotary, dynamic=False), h=h, kvh=kvh, d=d)

    # h200-production's shapes (the fit set's): per-kernel split of the multi-kernel eager ops
    for p in PROD_PROFILE:
        if time.perf_counter() - t0 > a.budget * 0.3:
            log("budget spent: production split stops here")
            break
        try:
            if p[0] == "hf":
                case, make_set, fn, _, set_bytes = eager_ops._rowcol_case("rmsnorm", p[1], p[2], "hf.eager",
                                                                          compiled_fn=eager_ops.hf_rmsnorm)
                case["name"] = f"hf_eager_rmsnorm_bf16_{p[1]}x{p[2]}"
            elif p[0] == "rot":
                case, make_set, fn, _, set_bytes = eager_ops._rotary_case(p[1], "torch.eager", h=p[2], kvh=p[3], d=p[4])
            elif p[0] == "crot":
                case, make_set, fn, _, set_bytes = eager_ops._rotary_case(
                    p[1], "torch.compile", compiled_fn=torch.compile(eager_ops.hf_rotary, dynamic=False),
                    h=p[2], kvh=p[3], d=p[4])
            else:
                case, make_set, fn, _, set_bytes = eager_ops._rowcol_case("silu_mul", p[1], p[2], "torch.eager")
            profiles["profiles"].append({"name": case["name"], "implementation": case["implementation"],
                                         "kernel_times_us": kernel_times(fn, make_set, set_bytes)})
            save()
            log(f"split {case['name']}: {sum(t for _, t in profiles['profiles'][-1]['kernel_times_us']):.2f} us")
        except Exception:
            log(f"split {p} raised:\n{traceback.format_exc()}")
    multi = lambda c: c["implementation"] == "hf.eager" or c["kernel"] in ("rotary", "silu_mul")
    for make in generate():
        if time.perf_counter() - t0 > a.budget:
            log("budget spent: held-out cases stop here")
            break
        try:
            case, make_set, fn, check, set_bytes = make()
            r = harness.run_case(case, make_set, fn, check, set_bytes, 0.25)
            if r["ok"] and multi(r):
                r["kernel_times_us"] = kernel_times(fn, make_set, set_bytes)
        except Exception:
            log(f"raised:\n{traceback.format_exc()}")
            continue
        result["cases"].append(r)
        save()
        log(f"{r['name']}: {(r.get('measured_s') or 0) * 1e6:.2f} us, ok {r['ok']}, {r.get('kernels_per_launch')} kernels")

    save()
    log(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
