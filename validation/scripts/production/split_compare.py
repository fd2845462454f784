#!/usr/bin/env python3
"""Branch splitodd's comparison: every committed kernel suite's compiled rms_norm / layer_norm / softmax call
(torch.compile) priced by two perfmodel builds, each with its own calibration: median / p90 of |predicted / measured
- 1| over all of them, over the split calls (Inductor's num_splits > 1), and each split call outside the probes.

    python3 validation/scripts/production/split_compare.py OLD_BINARY OLD_CALIBRATION [NEW_BINARY NEW_CALIBRATION]
"""
import glob
import json
import re
import statistics
import subprocess
import sys


def splits(rows, cols, sms=132):
    """Inductor's split count, as lib/src/cost/inductor_split.cpp's inductor_splits."""
    if rows >= 2 * sms or cols <= 8192:
        return 1
    threads, per_sm_threads, lo, hi = 256, 2048, 32, 512
    elements = rows * cols

    def closest(want):
        c = 1
        for d in range(1, min(cols, 2 * want) + 1):
            if cols % d == 0 and abs(d - want) < abs(c - want):
                c = d
        return c
    size = lo
    if elements >= hi * sms * per_sm_threads:
        c = closest(hi)
        size = c if abs(c - hi) < 50 else hi
    elif elements > lo * sms * per_sm_threads:
        per_row = (sms * per_sm_threads // (2 * threads) + rows - 1) // rows
        want = (cols + threads * per_row - 1) // (threads * per_row)
        c = closest(want)
        size = max(c, lo) if abs(c - want) < 30 else want
    return (cols + size * threads - 1) // (size * threads)


def errors(binary, cal, path):
    out = subprocess.run([binary, "accuracy", "--card", "h200", "--calibration", cal, "--measured", path, "--format",
                          "json"], capture_output=True, text=True)
    if out.returncode:
        return {}
    return {c["name"]: c["error"] for c in json.loads(out.stdout).get("profile_cases", [])
            if c["profile"] == "compiled" and c["implementation"] == "torch.compile"
            and c["kernel"] in ("rmsnorm", "layernorm", "softmax_fused")}


def main(old_bin, old_cal, new_bin="build/tools/perfmodel/perfmodel", new_cal="hardware/h200.calibration.yaml"):
    old, new = {}, {}
    for f in sorted(glob.glob("validation/results/*/kernels*.json") + glob.glob("validation/results/*/*/kernels*.json")):
        o, n = errors(old_bin, old_cal, f), errors(new_bin, new_cal, f)
        for k in o:
            if k in n:
                old[(f, k)], new[(f, k)] = o[k], n[k]

    def stats(keys):
        a, b = sorted(abs(old[k]) for k in keys), sorted(abs(new[k]) for k in keys)
        q = lambda v: v[min(len(v) - 1, int(0.9 * len(v)))]  # noqa: E731
        return (f"{len(keys)} calls: old {100 * statistics.median(a):.1f} / {100 * q(a):.1f} %, "
                f"new {100 * statistics.median(b):.1f} / {100 * q(b):.1f} %")

    def split_of(k):
        m = re.search(r"_(\d+)x(\d+)$", k[1])
        return splits(int(m.group(1)), int(m.group(2))) if m else 1
    split_calls = [k for k in old if split_of(k) > 1]
    print("every compiled row-op call", stats(list(old)))
    print("split calls", stats(split_calls))
    outside = [k for k in split_calls if "h200-splitred" not in k[0] and "h200-splitodd" not in k[0]]
    print("split calls outside the probes", stats(outside))
    for k in sorted(outside):
        print(f"  {k[0].split('/')[2]} {k[1]} {100 * old[k]:+.1f} -> {100 * new[k]:+.1f} %")


if __name__ == "__main__":
    main(*sys.argv[1:])
