#!/usr/bin/env python3
"""Medians of the TP decode errors from tests/test_parallel_accuracy's per-point lines
(TP_POINTS=1 build/tests/test_parallel_accuracy -tc="the committed*": model tpN bB ctxC meas MS
profile MS asrun MS), for the fused profile's own price and the as-run price (branch idle7).

Usage: python3 validation/scripts/production/tp_as_run_stats.py validation/results/h200-idle7/tp.*.txt
"""
import re
import statistics
import sys

LINE = re.compile(r"(\S+) tp(\d) b(\d+) ctx(\d+) meas (\S+) profile (\S+) asrun (\S+)")


def stats(path):
    rows = [m.groups() for m in map(LINE.search, open(path)) if m]
    rows = [(r[0], int(r[1]), int(r[2]), int(r[3]), *map(float, r[4:])) for r in rows]
    med = lambda v: 100 * statistics.median(abs(x) for x in v)
    one = {(r[0], r[2], r[3]): r for r in rows if r[1] == 1}
    out = []
    for name, i in (("profile", 5), ("as run", 6)):
        tp1 = [r[i] / r[4] - 1 for r in rows if r[1] == 1]
        tp2 = [r[i] / r[4] - 1 for r in rows if r[1] == 2]
        ratio = [(r[i] / one[k][i]) / (r[4] / one[k][4]) - 1
                 for r in rows if r[1] == 2 for k in [(r[0], r[2], r[3])] if k in one]
        out.append(f"{name}: TP=1 {med(tp1):.2f} % ({len(tp1)}), TP=2 {med(tp2):.2f} % ({len(tp2)}), "
                   f"ratio {med(ratio):.2f} % ({len(ratio)})")
    return out


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(path)
        for line in stats(path):
            print("  " + line)
