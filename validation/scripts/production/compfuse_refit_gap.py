#!/usr/bin/env python3
"""Branch compfuse: graph_kernel_gap and graph_call_host refitted over compfuse.patch's launches, as
fit_compiled.py fits them (gap = sum(replay alone - kernel sum) / sum(predicted launches) over
h200-host-probe's 4 compiled points; host = median of graph replay - kernel sum - gap x launches over
h200-compiled's steps 0, 2, 4, 6), printed without and with each split-K GEMM's splitKreduce counted
as a launch (lib/src/cost/price_step.cpp split_reduce_launches, in the patch).

Usage (repository root, the patch applied and validation/results/h200-compfuse/compfuse.calibration.yaml
copied over hardware/h200.calibration.yaml, so that the GEMM block's split rule sets split_k):
    python3 validation/scripts/production/compfuse_refit_gap.py build/tools/perfmodel/perfmodel
"""
import json, subprocess, statistics, sys, tempfile
sys.path.insert(0, 'validation/scripts/production')
from compare_compiled import cut_model
exe = sys.argv[1]
def launches(folder, s):
    out = subprocess.run([exe, "ops", "--model", cut_model(s["model"], s["layers"], folder), "--card", "h200",
                          "--batch", str(s["batch"]), "--ctx", str(s["kv_len"]), "--phase", "decode", "--impl", "compiled", "--format", "json"],
                         capture_output=True, text=True, check=True)
    d = json.loads(out.stdout)
    split = sum(o["launches"] for o in d["ops"] if o["kind"] == "gemm" and (o.get("split_k") or 1) > 1)
    return d["step"]["launches"], split
probe = [r for r in map(json.loads, open("validation/results/h200-host-probe/probe.jsonl")) if r["mode"] == "compiled"]
steps = [s for s in json.load(open("validation/results/h200-compiled/hf.json"))["steps"] if s.get("ok")]
with tempfile.TemporaryDirectory() as tmp:
    for r in probe + steps:
        r["l"], r["split"] = launches(tmp, r)
for with_split in (False, True):
    n = lambda r: r["l"] + (r["split"] if with_split else 0)
    gap = sum(r["graph_pure_s"] - r["kernel_s"] for r in probe) / sum(n(r) for r in probe)
    host = statistics.median([steps[i]["device_s"] - steps[i]["kernel_s"] - gap * n(steps[i]) for i in (0, 2, 4, 6)])
    print(f"with split reduces {with_split}: graph_kernel_gap {gap*1e6:.3f} us, graph_call_host {host*1e6:.1f} us;",
          " ".join(f"{r['model']} L{r['layers']} b{r['batch']}: {n(r)} ({r['kernels_per_step']:.0f} kernels)" for r in probe))
