#!/usr/bin/env python3
"""Branch splitodd's comparison: every committed kernel suite's compiled rms_norm / layer_norm / softmax call
(torch.compile) priced by two perfmodel builds, each with its own calibration: median / p90 of |predicted / measured
- 1| over all of them, over the split calls (Inductor's num_splits > 1), and each split call outside the probes.

    python3 validation/scripts/production/split_compare.py OLD_BINARY OLD_CALIBRATION [NEW_BINARY NEW_CALIBRATION]
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_builds  # noqa: E402


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


def main(old_bin, old_cal, new_bin="build/tools/perfmodel/perfmodel", new_cal="hardware/h200.calibration.yaml"):
    old, new = compare_builds.collect((old_bin, old_cal), (new_bin, new_cal), "compiled", "torch.compile",
                                      ("rmsnorm", "layernorm", "softmax_fused"))

    def split_of(k):
        m = re.search(r"_(\d+)x(\d+)$", k[1])
        return splits(int(m.group(1)), int(m.group(2))) if m else 1
    split_calls = [k for k in old if split_of(k) > 1]
    print("every compiled row-op call", compare_builds.stats(old, new, list(old)))
    print("split calls", compare_builds.stats(old, new, split_calls))
    outside = [k for k in split_calls if "h200-splitred" not in k[0] and "h200-splitodd" not in k[0]]
    print("split calls outside the probes", compare_builds.stats(old, new, outside))
    for k in sorted(outside):
        print(f"  {k[0].split('/')[2]} {k[1]} {100 * old[k]:+.1f} -> {100 * new[k]:+.1f} %")


if __name__ == "__main__":
    main(*sys.argv[1:])
