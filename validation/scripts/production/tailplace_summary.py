#!/usr/bin/env python3
"""tailplace's answer (validation/scripts/production/tailplace.cu): per grid, where its last round ran and how fast.

    python3 validation/scripts/production/tailplace_summary.py validation/results/<card>-tailplace/ctas.csv

A CTA of the last round is one that started after the grid's first CTA ended (its slot was freed, not given at
launch). For each: `alone` when no other CTA ran on its SM at any time of its run, `shared` when one did all of it,
`partly` between. Prints per grid: the CTAs, the event-timed median, a first-round CTA's median run, the last round's
CTAs by placement and their median runs, and the SMs that got two of them."""
import collections
import csv
import statistics
import sys


def overlap(a, b):
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def main(path):
    grids = collections.OrderedDict()
    medians = {}
    with open(path) as f:
        for line in f:
            if line.startswith("# grid"):
                w = line.split()
                key = tuple(int(w[i]) for i in (3, 5, 7, 9, 11))  # head_dim, batch, kv_heads, keys, fma
                medians[key] = float(w[15])
    with open(path) as f:
        for r in csv.DictReader(x for x in f if not x.startswith("#")):
            key = tuple(int(r[k]) for k in ("head_dim", "batch", "kv_heads", "keys", "fma"))
            grids.setdefault(key, []).append((int(r["sm"]), int(r["start_ns"]), int(r["end_ns"])))
    print("| head dim | fma | CTAs | median (us) | first-round run (us) | last round: alone / partly / shared | "
          "their runs (us) | SMs given two |")
    print("| ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |")
    for key, ctas in grids.items():
        first_end = min(e for _, _, e in ctas)
        by_sm = collections.defaultdict(list)
        for c in ctas:
            by_sm[c[0]].append(c)
        first = [(e - s) / 1e3 for _, s, e in ctas if s < first_end]
        last = [c for c in ctas if c[1] >= first_end]
        kinds = collections.defaultdict(list)
        for sm, s, e in last:
            shared = sum(overlap((s, e), (s2, e2)) for _, s2, e2 in by_sm[sm] if (s2, e2) != (s, e))
            kind = "alone" if shared == 0 else "shared" if shared >= 0.95 * (e - s) else "partly"
            kinds[kind].append((e - s) / 1e3)
        doubled = sum(1 for sm in by_sm if sum(1 for _, s, _ in by_sm[sm] if s >= first_end) >= 2)
        runs = " / ".join(f"{statistics.median(kinds[k]):.1f}" if kinds[k] else "-" for k in ("alone", "partly", "shared"))
        print(f"| {key[0]} | {key[4]} | {len(ctas)} | {medians.get(key, float('nan')):.1f} | "
              f"{statistics.median(first):.1f} | {len(kinds['alone'])} / {len(kinds['partly'])} / {len(kinds['shared'])} | "
              f"{runs} | {doubled} |")


if __name__ == "__main__":
    main(sys.argv[1])
