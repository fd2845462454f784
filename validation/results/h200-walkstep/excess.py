#!/usr/bin/env python3
"""The time beyond the rows' issue, per stamped case (run.json.gz), and where it sits.

For each case: the busiest SM (most CTAs, longest span), i = one row's issue at the compiled rate (6343 warp
instructions a microsecond an SM at 1980 MHz, h200-walkdefault/busiest_sm_issue.py; scaled to the run's clock)
times the kernel's own count a row (Nsight Compute, ncu_table.txt: the plain kernel; 8192 rows counted with its
row mask, unlike Inductor's maskless 8192-row kernel), E = span - n x i, beside the walk opt-in's lone walk
(looped_row 1.9 + 0.497 a block) and what the model leaves beyond n rows' issue (walk - i). Then the CTAs of
the SMs with the most rows, ordinal by start (medians over those SMs): the first round's four ends (all four
start together), the last round's last end, and the per-row period of the last slot after the first round.

    python3 validation/results/h200-walkstep/excess.py   (from that folder)
"""
import gzip
import json
import statistics as st
import sys
from collections import defaultdict

sys.path.insert(0, '.')
from timeline import analyse  # noqa: E402

COUNT = {(1536, 4096): 6835, (1536, 6144): 8067, (1536, 8192): 9347, (1536, 10240): 10787, (1536, 12288): 12291,
         (1536, 14336): 13683, (1536, 16384): 14387, (1536, 20480): 24339, (8192, 14336): 13683, (1536, 18944): 28451,
         (3072, 8192): 9347, (3072, 10240): 10787, (3072, 12288): 12291, (3072, 16384): 14387, (3072, 20480): 24339,
         (528, 12288): 12291, (528, 20480): 24339}
RATE = 6343  # warp instructions a microsecond an SM, at 1980 MHz

d = json.load(gzip.open('run.json.gz'))
print(f"{'case':13s} {'blk':>3s} {'ctas':>4s} {'n':>3s} {'i':>5s} {'span':>6s} {'E':>5s} {'E/i':>4s} {'walk':>5s} "
      f"{'walk-i':>6s} | {'round-1 ends (us)':>24s} {'S x i':>5s} {'last':>6s} {'period':>6s}")
for c in d['cases']:
    runs = sorted((analyse(c['rows'], c['cols'], s) for s in c['stamps']), key=lambda r: r['kernel_us'])
    r = runs[1]
    ghz = r['ghz']
    i = COUNT[(c['rows'], c['cols'])] / RATE * 1.98 / ghz
    nmax = max(p['n'] for p in r['per_sm'])
    span = max(p['span'] for p in r['per_sm'] if p['n'] == nmax)
    ctas = 4 if r['per_sm'][0]['at'].get(4, 0) > 0 else 3
    walk = 1.9 + 0.497 * c['blocks']
    # ordinal CTA ends on the SMs with the most rows (the median stamped launch of three)
    s = c['stamps'][1]
    by = defaultdict(list)
    for sm, c0, c1, g0, g1 in s:
        by[sm].append((c0, c1))
    ends = [sorted((e - min(a for a, _ in v)) / ghz / 1e3 for _, e in v) for v in by.values() if len(v) == nmax]
    med = [st.median(col) for col in zip(*ends)]
    r1 = med[:ctas]
    rounds = nmax / ctas
    period = (med[-1] - r1[-1]) / (rounds - 1) if rounds > 1 else float('nan')
    print(f"{c['rows']:5d}x{c['cols']:<7d} {c['blocks']:3d} {ctas:4d} {nmax:3d} {i:5.2f} {span:6.2f} {span - nmax * i:5.2f} "
          f"{(span - nmax * i) / i:4.2f} {walk:5.2f} {walk - i:6.2f} | {' '.join(f'{x:5.2f}' for x in r1):>24s} "
          f"{ctas * i:5.2f} {med[-1]:6.2f} {period:6.2f}")
