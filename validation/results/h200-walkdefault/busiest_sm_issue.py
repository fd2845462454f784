#!/usr/bin/env python3
"""Issue rate of Inductor's looped layer_norm on its busiest SM, from committed Nsight Compute rows.

For every 16-warp (512-thread) triton_red_*layer_norm* launch in the ncu.csv files given, prints the
grid (rows: XBLOCK 1, one CTA a row), registers a thread, resident CTAs an SM (ncu's register
limit), the kernel's duration, the busiest SM's warp instructions (4 x smsp__inst_executed.max: 4
schedulers an SM), those over ceil(rows / 132) (the instructions of a row, when the busiest SM ran
ceil(rows / SMs) rows), and the busiest SM's instructions per microsecond; beside it the compiled
rate's (hardware/h200.calibration.yaml layernorm_elements_per_s over 132 SMs, x the reference's
14595 / 12288 instructions a padded element: inductor_masks.cpp). No clock is assumed (the ncu runs
left the clocks as found).

    python3 validation/results/h200-walkdefault/busiest_sm_issue.py \
        validation/results/h200-{rowops17,eltwise12,eltwise13,inductorrow}/ncu.csv
"""
import csv
import io
import math
import sys

SMS = 132
RATE = 7.049e11 / SMS * 14595 / 12288 / 1e6  # the compiled rate, instructions a microsecond an SM


def num(s):
    return float(s.replace(',', ''))


def rows_of(path):
    lines = [l for l in open(path).read().splitlines() if l.startswith('"')]
    return list(csv.DictReader(io.StringIO('\n'.join(lines))))


print(f"compiled rate: {RATE:.0f} warp instructions / us an SM")
print(f"{'file':22s} {'rows':>6s} {'regs':>4s} {'ctas/SM':>7s} {'us':>8s} {'busiest SM':>11s} {'per row':>8s} {'inst/us':>8s} {'/ rate':>6s}")
for path in sys.argv[1:]:
    seen = set()
    for r in rows_of(path):
        if 'layer_norm' not in r['Kernel Name'] or r['Block Size'] != '(512, 1, 1)':
            continue
        grid = int(r['Grid Size'].strip('()').split(',')[0])
        busiest = 4 * num(r['smsp__inst_executed.max'])
        key = (grid, busiest)
        if key in seen:  # repeated launches of one kernel: the first
            continue
        seen.add(key)
        us = num(r['gpu__time_duration.sum']) / 1e3
        per_row = busiest / math.ceil(grid / SMS)
        ips = busiest / us
        print(f"{path.split('/')[-2]:22s} {grid:6d} {r['launch__registers_per_thread']:>4s} "
              f"{r['launch__occupancy_limit_registers']:>7s} {us:8.2f} {busiest:11.0f} {per_row:8.0f} {ips:8.0f} {ips / RATE:6.3f}")
