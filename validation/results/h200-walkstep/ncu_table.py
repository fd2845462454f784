#!/usr/bin/env python3
"""The plain layer_norm kernel's Nsight Compute rows (walkstep.py --ncu, ncu.csv): per launch the grid, registers,
duration, instructions a row (the busiest SM's, 4 x smsp max over ceil(rows / 132)), the busiest SM's active
cycles, issue slots used, warps resident, and the warp stall reasons per issued instruction (long scoreboard =
waiting on global loads, barrier, no instruction = instruction fetch, imc miss, short scoreboard, wait,
not selected / selected = ready).

    python3 validation/results/h200-walkstep/ncu_table.py validation/results/h200-walkstep/ncu.csv
"""
import csv
import io
import math
import sys


def num(s):
    return float(s.replace(',', '')) if s not in ('', 'n/a') else float('nan')


lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith('"')]
rows = [r for r in csv.DictReader(io.StringIO('\n'.join(lines))) if r['ID'].strip().isdigit()]  # the units row dropped
stalls = ['long_scoreboard', 'barrier', 'no_instruction', 'imc_miss', 'short_scoreboard', 'wait', 'not_selected',
          'selected', 'math_pipe_throttle', 'lg_throttle', 'mio_throttle', 'branch_resolving', 'dispatch_stall', 'drain']
hdr = (f"{'grid':>5s} {'regs':>4s} {'us':>7s} {'inst/row':>8s} {'cyc.max':>8s} {'cyc.avg':>8s} {'issue':>5s} {'warps%':>6s} {'hit%':>5s} "
       + ' '.join(f"{s[:6]:>6s}" for s in stalls))
print(hdr)
for r in rows:
    grid = int(num(r['launch__grid_size']))
    inst = 4 * num(r['smsp__inst_executed.max']) / math.ceil(grid / 132)
    print(f"{grid:5d} {r['launch__registers_per_thread']:>4s} {num(r['gpu__time_duration.sum']) / 1e3:7.2f} {inst:8.0f} "
          f"{num(r['sm__cycles_active.max']):8.0f} {num(r['sm__cycles_active.avg']):8.0f} "
          f"{num(r['smsp__issue_active.avg.per_cycle_active']):5.2f} "
          f"{num(r['sm__warps_active.avg.pct_of_peak_sustained_active']):6.1f} {num(r['lts__t_sector_hit_rate.pct']):5.1f} "
          + ' '.join(f"{num(r['smsp__average_warps_issue_stalled_' + s + '_per_issue_active.ratio']):6.2f}" for s in stalls))
