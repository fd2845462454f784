#!/usr/bin/env python3
"""Fits the one parameter of lib/src/quant/act_quant_group_forms.cpp (branch group16): the thread
instructions an element of Inductor's dynamic-shape reshape copy (triton_poi_fused__to_copy_clamp_div_view_1,
two 64-bit divisions an element), from its own kernel times at K = 4096 only.

    python3 validation/scripts/quant/fit_act_quant_group.py [--cases]

Reads validation/results/h200-group16/kernel_split.json (torch.profiler durations over rotating
inputs), the H200's SMs and CUDA-core clock (hardware/h200.yaml) and issue_efficiency, kernel_floor
and pass_latency (hardware/h200.calibration.yaml). Per compiled (dynamic=True) call of 1024 rows and
more (issue-bound: the grid fills the card many times), instructions an element =
(duration - kernel_floor - pass_latency) x issue_rate x 32 / elements, issue_rate = SMs x 4
schedulers x clock x issue_efficiency (lib/src/cost/roofs.cpp). The fit: the median over K = 4096;
--cases prints every width's value (K = 3584 / 5120 / 14336 / 18944 held out).
"""
import json
import os
import re
import statistics
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
KERNEL = "triton_poi_fused__to_copy_clamp_div_view_1"
FIT_K = 4096


def value(path, key, unit=""):
    with open(os.path.join(ROOT, path)) as f:
        for line in f:
            m = re.match(rf"\s*{re.escape(key)}:\s*([-\d.e+]+)\s*{unit}", line)
            if m:
                return float(m.group(1))
    raise SystemExit(f"{path}: no {key}")


def main():
    sms = value("hardware/h200.yaml", "sm_count")
    clock = value("hardware/h200.yaml", "cuda_core", "MHz") * 1e6
    eff = value("hardware/h200.calibration.yaml", "issue_efficiency")
    floor = value("hardware/h200.calibration.yaml", "kernel_floor", "us") * 1e-6
    trip = value("hardware/h200.calibration.yaml", "pass_latency", "us") * 1e-6
    issue_rate = sms * 4 * clock * eff
    with open(os.path.join(ROOT, "validation/results/h200-group16/kernel_split.json")) as f:
        rows = json.load(f)["rows"]
    fit, held = [], []
    for r in rows:
        if r.get("impl") != "compile" or r.get("compile") != "dynamic" or r.get("m", 0) < 1024 or "kernels" not in r:
            continue
        d = [k["median_us"] for k in r["kernels"] if k["name"] == KERNEL]
        if not d:
            continue
        elements = r["m"] * r["k"]
        per = (d[0] * 1e-6 - floor - trip) * issue_rate * 32 / elements
        (fit if r["k"] == FIT_K else held).append((r["m"], r["k"], per))
    if not fit:
        raise SystemExit("no K = 4096 compiled rows of 1024 rows or more")
    if "--cases" in sys.argv:
        for m, k, per in fit + held:
            print(f"m {m:5d} k {k:5d}: {per:6.1f} instructions an element{'  (fit)' if k == FIT_K else ''}")
        print(f"held out: median {statistics.median(p for _, _, p in held):.1f} over {len(held)}")
    print(f"issue rate {issue_rate:.4g} warp instructions/s; indexed copy: {statistics.median(p for _, _, p in fit):.1f} "
          f"thread instructions an element (median of {len(fit)}, K = {FIT_K})")


if __name__ == "__main__":
    main()
