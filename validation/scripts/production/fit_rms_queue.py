#!/usr/bin/env python3
"""Fits rms_norm's resident-row group chain (lib/src/cost/inductor_rms_queue.cpp, branch inductorsmall):
rmsnorm_group (a group's chain at one loaded block) and rmsnorm_group_block (each further 2048-column
block), by a grid over both, minimizing the summed squared relative error of the compiled profile's
prediction on validation/results/h200-inductorsmall's rms_norm cases only (every committed set's case and
h200-heldout16 / -heldout17 held out). Prints the fit and the held-out figures.

    python3 validation/scripts/production/fit_rms_queue.py build/tools/perfmodel/perfmodel
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

P = sys.argv[1]
BASE = re.sub(r"\n      rmsnorm_group[^\n]*", "", open("hardware/h200.calibration.yaml").read())  # without this fit
FIT = "validation/results/h200-inductorsmall/kernels.json"
HELD = ["validation/results/h200-eltwise3", "validation/results/h200-eltwise4", "validation/results/h200-eltwise5",
        "validation/results/h200-eltwise6", "validation/results/h200-eltwise14", "validation/results/h200-production",
        "validation/results/h200-production-repeat"]
CHECK = ["validation/results/h200-heldout17"]


def errors(cal, sets):
    out = subprocess.run([P, "accuracy", "--card", "h200", "--calibration", cal, "--measured", *sets, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    return {c["name"] + "@" + str(i): c["error"] for i, c in enumerate(json.loads(out)["profile_cases"])
            if c["profile"] == "compiled" and c["kernel"] == "rmsnorm" and "compile_" in c["name"]}


def cal_with(a_us, b_us):
    s = re.sub(r"(\n      softmax_elements_per_s: [^\n]*)",
               lambda m: m.group(1) + f"\n      rmsnorm_group: {a_us:.3f} us\n      rmsnorm_group_block: {b_us:.3f} us", BASE, 1)
    f = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False, dir=os.getcwd())
    f.write(s)
    f.close()
    return f.name


def without():
    f = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False, dir=os.getcwd())
    f.write(BASE)
    f.close()
    return f.name


def stats(e):
    a = sorted(abs(x) for x in e.values())
    return f"median {100 * statistics.median(a):.1f} / p90 {100 * a[int(0.9 * (len(a) - 1) + 0.999)] if len(a) > 1 else 0:.1f} % ({len(a)} cases)"


best = None
for a in [x / 10 for x in range(14, 27)]:
    for b in [x / 20 for x in range(0, 17)]:
        cal = cal_with(a, b)
        try:
            e = errors(cal, [FIT])
        finally:
            os.unlink(cal)
        sse = sum(x * x for x in e.values())
        if best is None or sse < best[0]:
            best = (sse, a, b)
sse, a, b = best
print(f"fit: rmsnorm_group {a:.2f} us, rmsnorm_group_block {b:.2f} us (SSE {sse * 1e4:.0f} %^2)")
cal, base = cal_with(a, b), without()
try:
    for name, sets in (("fit (inductorsmall)", [FIT]), ("held out: committed sets", HELD), ("check: heldout17", CHECK)):
        before, after = errors(base, sets), errors(cal, sets)
        print(f"{name}: before {stats(before)} -> after {stats(after)}")
        for k in after:
            if abs(after[k] - before[k]) > 0.005:
                print(f"    {k.split('@')[0]:36s} {100 * before[k]:+6.1f} -> {100 * after[k]:+6.1f}")
finally:
    os.unlink(cal)
    os.unlink(base)
