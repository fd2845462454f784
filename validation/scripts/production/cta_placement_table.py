#!/usr/bin/env python3
"""cta_placement.cu's records as a table (lead, nineteenth session; issue 10): per shared-memory size, work and grid,
the kernel's span, and where the CTAs past the first round (block index >= 2 x SMs) ran: the distinct SMs they took,
and how many of them shared their SM with another late CTA for most of their life.

    python3 validation/scripts/production/cta_placement_table.py cta.csv
"""
import collections
import csv
import sys


def overlap(a, b):
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def main():
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(sys.argv[1])):
        key = (int(r["smem_kb"]), int(r["work"]), int(r["grid"]), int(r["rep"]))
        runs[key].append((int(r["block"]), int(r["sm"]), int(r["start_ns"]), int(r["end_ns"])))
    sms = 1 + max(sm for recs in runs.values() for _, sm, _, _ in recs)
    print(f"{sms} SMs seen")
    print("| smem KB | work | grid | late CTAs | span us | first round us | late: SMs | late paired with a late one | late CTA life us |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (kb, w, grid, rep), recs in sorted(runs.items()):
        if rep != 1:
            continue
        t0 = min(s for _, _, s, _ in recs)
        span = (max(e for _, _, _, e in recs) - t0) / 1e3
        first = [x for x in recs if x[0] < 2 * sms]
        late = [x for x in recs if x[0] >= 2 * sms]
        first_us = (max(e for _, _, _, e in first) - t0) / 1e3
        paired = 0
        for b, sm, s, e in late:
            life = e - s
            if any(o[1] == sm and o[0] != b and overlap((s, e), (o[2], o[3])) > life / 2 for o in late):
                paired += 1
        lives = sorted((e - s) / 1e3 for _, _, s, e in late)
        med = lives[len(lives) // 2] if lives else 0
        print(f"| {kb} | {w} | {grid} | {len(late)} | {span:.1f} | {first_us:.1f} | {len({x[1] for x in late})} | "
              f"{paired} | {med:.1f} |")


if __name__ == "__main__":
    main()
