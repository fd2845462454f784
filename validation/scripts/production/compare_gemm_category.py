#!/usr/bin/env python3
"""The GEMM category of transformers' eager steps (profiler kernel sums, i.e. kernels alone) against
the GEMM ops of `perfmodel decode|prefill --impl eager` (branch gemm8, issue 10).

Usage: python3 validation/scripts/production/compare_gemm_category.py [perfmodel binary] hf.json...

For every step with a `kernel_by_category_s` (h200-hf-grid, h200-moe-sync, ...): the measured
`gemm` category (cuBLASLt's nvjet / cutlass dense GEMMs) and the predicted `gemm` ops' device
time (validation/scripts/moe/compare_moe.py's grouping), error = predicted / measured - 1, then the
median / p90 |error|. The calibration is the one perfmodel loads (hardware/h200.calibration.yaml).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "moe"))
from compare_moe import predict, predicted_groups  # noqa: E402


def pct(v):
    v = sorted(abs(x) for x in v)
    if not v:
        return 0.0, 0.0
    pos = 0.9 * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2, v[lo] + (v[hi] - v[lo]) * (pos - lo)


def main(binary, paths):
    errs = []
    print("| set | step | measured gemm | predicted gemm | error |")
    print("| --- | --- | ---: | ---: | ---: |")
    for path in paths:
        for s in json.load(open(path))["steps"]:
            if not s.get("ok") or "kernel_by_category_s" not in s:
                continue
            cache = "contiguous" if s.get("cache_layout") == "contiguous" else "cropped"
            try:
                d = predict(binary, s["phase"], s["model"], s["batch"], s["ctx"], cache)
            except subprocess.CalledProcessError:
                continue  # refused (e.g. ctx beyond the model's positions)
            g, m = predicted_groups(d)["gemm"], s["kernel_by_category_s"].get("gemm", 0.0)
            if m <= 0:
                continue
            errs.append(g / m - 1)
            print(f"| {os.path.basename(os.path.dirname(path))} | {s['model']} {s['phase']} b{s['batch']} ctx{s['ctx']} "
                  f"| {m * 1e3:.3f} ms | {g * 1e3:.3f} ms | {100 * (g / m - 1):+.1f} % |")
    med, p90 = pct(errs)
    mean = sum(errs) / len(errs) if errs else 0.0
    print(f"\n{len(errs)} steps: |gemm err| median {100 * med:.1f} % p90 {100 * p90:.1f} % (mean signed {100 * mean:+.1f} %)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/tools/perfmodel/perfmodel", sys.argv[2:])
