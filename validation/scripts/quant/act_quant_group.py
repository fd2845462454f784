#!/usr/bin/env python3
"""1x128-group dynamic FP8 activation quantization (quant_gemm.q_group_dyn: DeepSeek-V3's activation
scales, written column-major as _scaled_mm's block-scaled path takes them) as PyTorch eager and
torch.compile run it: new widths held out, each kernel's own time, and Inductor's generated code
(branch group16, issue 12; validation/results/h200-quant2 measured K = 4096 / 14336 only).

    python3 validation/scripts/quant/act_quant_group.py OUT_DIR [--budget S]

Parts, in order, each stopping at its share of the budget (seconds since start):
  cases    quant_gemm.act_case's harness (correctness first, CUDA graph over rotating sets > 2x L2,
           median of >= 5 samples, kernel names from torch.profiler), K = 3584, 5120, 18944
           (Qwen2.5-7B hidden and down, Qwen2.5-14B hidden), M = 1, 16, 128, 1024, 4096, compiled
           (torch.compile(dynamic=True), first called at one row then at 16, as h200-quant2's run
           order did) and eager, in h200-quant2's order: OUT_DIR/group16.json.
  split    each kernel's own duration (torch.profiler, one round over rotating inputs > 2x L2 after a
           warm-up round: L2-cold except at the smallest sizes, whose sets are capped at 200), eager
           and compiled (dynamic=True), at h200-quant2's and the new widths, all five row counts:
           OUT_DIR/kernel_split.json (launch order, per kernel the median duration).
  codegen  Inductor's generated source (run_and_get_code) of the dynamic=True graphs (one row, then
           the general one) and of dynamic=False compiles at four shapes, with their split; the
           autotuner's .best_config files at the end: OUT_DIR/inductor_code.json.
  static   the held-out widths again compiled per shape (dynamic=False, what a fixed-shape step
           runs), harness cases marked "compile": "static", appended to group16.json.
"""
import glob
import json
import math
import os
import statistics
import sys
import time

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/inductor-group16")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "production"))
import torch  # noqa: E402

import harness  # noqa: E402
import quant_gemm as qg  # noqa: E402

KS_NEW = (3584, 5120, 18944)
KS_OLD = (4096, 14336)
MS = (1, 16, 128, 1024, 4096)
CODEGEN_STATIC = ((16, 4096), (1024, 4096), (4096, 4096), (4096, 14336))
MAX_SPLIT_SETS = 200


def event_us(e):
    """A kernel event's duration in us, whichever attribute this torch has."""
    try:
        return float(e.time_range.end - e.time_range.start)
    except Exception:
        pass
    for attr in ("device_time", "cuda_time", "device_time_total", "cuda_time_total"):
        v = getattr(e, attr, None)
        if v:
            return float(v)
    return float("nan")


def event_start(e):
    try:
        return float(e.time_range.start)
    except Exception:
        return 0.0


def kernel_split(f, m, k):
    """Per kernel of one call: launch order and the median duration over one profiled round of
    rotating inputs (after an unprofiled round)."""
    nsets = max(2, min(MAX_SPLIT_SETS, math.ceil(2 * harness.L2_BYTES / (2 * m * k))))
    sets = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for _ in range(nsets)]
    for x in sets:
        f(x)
    torch.cuda.synchronize()
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for x in sets:
            f(x)
        torch.cuda.synchronize()
    evs = sorted((e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA), key=event_start)
    per, order = {}, []
    for e in evs:
        if e.name not in per:
            order.append(e.name)
        per.setdefault(e.name, []).append(event_us(e))
    del sets
    torch.cuda.empty_cache()
    return dict(m=m, k=k, sets=nsets, launches=len(evs) / nsets,
                kernels=[dict(name=n, count=len(per[n]), median_us=statistics.median(per[n]),
                              min_us=min(per[n])) for n in order])


def main():
    out = sys.argv[1]
    budget = float(sys.argv[sys.argv.index("--budget") + 1]) if "--budget" in sys.argv else 200.0
    log, meta, t0 = qg.start_run(out, "run.log", 0.06)
    torch._dynamo.config.cache_size_limit = 256
    meta.update(compile="torch.compile(q_group_dyn, dynamic=True) (cases without 'compile'); "
                        "dynamic=False per shape where 'compile' is 'static'")
    res = {"schema_version": 1, "meta": meta, "cases": []}

    def save():
        tmp = f"{out}/group16.json.tmp"
        with open(tmp, "w") as fh:
            json.dump(res, fh, indent=1)
        os.replace(tmp, f"{out}/group16.json")

    # 1. held-out widths, dynamic=True as h200-quant2 (K outer, M, then compile before eager).
    items = [(m, k, "group_dynamic", impl) for k in KS_NEW for m in MS for impl in ("compile", "eager")]
    log(f"cases: {len(items)}")
    qg.measure_items(items, lambda it: qg.act_case(*it), res["cases"], log, save, t0 + 0.40 * budget, 0.06)

    # 2. each kernel's time, eager and dynamic=True (a graph of its own, first called at 1 then 16 rows).
    from torch._inductor.utils import run_and_get_code
    codes = {"torch": torch.__version__, "rows": []}
    split = {"torch": torch.__version__, "meta": meta, "rows": []}

    def save_split():
        with open(f"{out}/kernel_split.json", "w") as fh:
            json.dump(split, fh, indent=1)
        with open(f"{out}/inductor_code.json", "w") as fh:
            json.dump(codes, fh, indent=1)

    torch._dynamo.reset()  # the cases' dynamic=True graphs stay out of this wrapper's (its code recorded)
    dyn = torch.compile(qg.q_group_dyn, dynamic=True)
    for m, k in ((1, 4096), (16, 4096)):
        try:
            _, code = run_and_get_code(dyn, torch.randn(m, k, device="cuda", dtype=torch.bfloat16))
            codes["rows"].append(dict(tag=f"dynamic_first_call_m{m}_k{k}", dynamic=True, m=m, k=k, code=code))
        except Exception as e:
            codes["rows"].append(dict(tag=f"dynamic_first_call_m{m}_k{k}", error=f"{type(e).__name__}: {str(e)[:300]}"))
    save_split()
    for k in KS_OLD + KS_NEW:
        for m in MS:
            for impl, f in (("compile", dyn), ("eager", qg.q_group_dyn)):
                if time.perf_counter() > t0 + 0.65 * budget:
                    break
                try:
                    row = dict(impl=impl, compile="dynamic" if impl == "compile" else "", **kernel_split(f, m, k))
                    log(f"split {impl} m{m} k{k}: " + ", ".join(
                        f"{r['name'][:40]} {r['median_us']:.2f}" for r in row["kernels"]))
                except Exception as e:
                    row = dict(impl=impl, m=m, k=k, error=f"{type(e).__name__}: {str(e)[:300]}")
                    log(f"split {impl} m{m} k{k}: ERROR {e}")
                split["rows"].append(row)
        save_split()

    # 3. dynamic=False's code and split at a few shapes.
    for m, k in CODEGEN_STATIC:
        if time.perf_counter() > t0 + 0.75 * budget:
            break
        try:
            torch._dynamo.reset()
            st = torch.compile(qg.q_group_dyn, dynamic=False)
            _, code = run_and_get_code(st, torch.randn(m, k, device="cuda", dtype=torch.bfloat16))
            codes["rows"].append(dict(tag=f"static_m{m}_k{k}", dynamic=False, m=m, k=k, code=code))
            row = dict(impl="compile", compile="static", **kernel_split(st, m, k))
            split["rows"].append(row)
            log(f"static m{m} k{k}: " + ", ".join(f"{r['name'][:40]} {r['median_us']:.2f}" for r in row["kernels"]))
        except Exception as e:
            codes["rows"].append(dict(tag=f"static_m{m}_k{k}", error=f"{type(e).__name__}: {str(e)[:300]}"))
            log(f"static m{m} k{k}: ERROR {e}")
        save_split()

    # 4. the held-out widths compiled per shape (static), as h200-actq15 did for the other modes.
    torch._dynamo.reset()
    qg.COMPILED["group_dynamic"] = torch.compile(qg.q_group_dyn, dynamic=False)
    first_static = len(res["cases"])
    items = [(m, k, "group_dynamic", "compile") for k in KS_NEW for m in MS]

    def save_marked():
        for c in res["cases"][first_static:]:
            c["compile"] = "static"
            if not c["name"].endswith("_static"):
                c["name"] += "_static"
        save()
    qg.measure_items(items, lambda it: qg.act_case(*it), res["cases"], log, save_marked, t0 + 0.93 * budget, 0.06)

    configs = {}
    for p in glob.glob(os.path.join(os.environ["TORCHINDUCTOR_CACHE_DIR"], "**", "*.best_config"), recursive=True):
        try:
            with open(p) as fh:
                configs[os.path.relpath(p, os.environ["TORCHINDUCTOR_CACHE_DIR"])] = json.load(fh)
        except Exception as e:
            configs[p] = f"{type(e).__name__}"
    codes["best_configs"] = configs
    save_split()
    log("done")


if __name__ == "__main__":
    main()
