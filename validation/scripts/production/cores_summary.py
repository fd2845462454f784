#!/usr/bin/env python3
"""Summarise cores.sh's record (validation/results/h200-heldout32/cores/cores.txt): is the eager host's pace a
property of the vCPU a process lands on, or of the process?

    python3 validation/scripts/production/cores_summary.py validation/results/h200-heldout32/cores/cores.txt

Prints the spread of the probe's 4-layer host time over every process, the correlation between the two rounds on
the same vCPU (near 1 if the vCPU decides, near 0 if the process does), the steal ticks, and how far the median of
k processes drawn from these strays from the median of all (what a k-process probe would read on this lease)."""
import random
import re
import statistics as st
import sys


def main():
    rows = []
    for line in open(sys.argv[1]):
        m = re.search(r"round=(\d) cpu=(\w+) steal_ticks=(\d+) at=(\d+).*host_call_s_4=([\d.]+)", line)
        if m:
            rows.append(dict(round=int(m[1]), cpu=m[2], steal=int(m[3]), at=int(m[4]), ms=float(m[5]) * 1e3))
    v = sorted(r["ms"] for r in rows)
    n = len(v)
    q = lambda p: v[min(n - 1, int(p * (n - 1) + 0.5))]
    med = st.median(v)
    print(f"processes {n}: host at 4 layers min {v[0]:.2f} p10 {q(0.1):.2f} median {med:.2f} p90 {q(0.9):.2f} "
          f"max {v[-1]:.2f} ms (max/min {v[-1] / v[0]:.2f})")
    one = {r["cpu"]: r["ms"] for r in rows if r["round"] == 1 and r["cpu"] != "u"}
    two = {r["cpu"]: r["ms"] for r in rows if r["round"] == 2 and r["cpu"] != "u"}
    both = [c for c in two if c in one]
    x, y = [one[c] for c in both], [two[c] for c in both]
    print(f"same vCPU, round 1 vs round 2 ({len(both)} vCPUs): correlation {st.correlation(x, y):+.2f}, "
          f"ratio of the two {min(max(a, b) / min(a, b) for a, b in zip(x, y)):.2f}-"
          f"{max(max(a, b) / min(a, b) for a, b in zip(x, y)):.2f}")
    print(f"steal ticks over all runs: {sum(r['steal'] for r in rows)} (a tick is 10 ms)")
    rng = random.Random(1)
    for k in (1, 3, 5, 7):
        err = sorted(abs(st.median(rng.sample(v, k)) / med - 1) for _ in range(4000))
        print(f"median of {k} processes vs the median of all: |error| median {st.median(err) * 100:.1f} %, "
              f"p90 {err[int(0.9 * len(err))] * 100:.1f} %")


if __name__ == "__main__":
    main()
