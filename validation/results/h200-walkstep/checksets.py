#!/usr/bin/env python3
"""Check sets (never fitted): h200-heldout16..20's torch.compile row ops (layer_norm, softmax, rms_norm) under two
calibrations, median / p90 of |predicted / measured - 1| (compiled profile; p90 the nearest-rank 90th percentile).

    python3 validation/results/h200-walkstep/checksets.py build/tools/perfmodel/perfmodel \
        validation/results/h200-walkstep/h200.calibration.nowalk.yaml hardware/h200.calibration.yaml
"""
import json
import math
import subprocess
import sys

exe, cals = sys.argv[1], sys.argv[2:]
ROW = ('layernorm', 'softmax_fused', 'rmsnorm')


def cases(path, cal):
    out = subprocess.run([exe, 'accuracy', '--card', 'h200', '--measured', path, '--calibration', cal, '--format', 'json'],
                         check=True, capture_output=True, text=True).stdout
    found = {}

    def walk(o):
        if isinstance(o, dict):
            if o.get('profile') == 'compiled' and o.get('kernel') in ROW and 'error' in o and 'compile' in o.get('name', ''):
                found[o['name']] = o['error']
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(json.loads(out))
    return found


def stats(errs):
    a = sorted(abs(e) for e in errs)
    if not a:
        return float('nan'), float('nan')
    n = len(a)
    med = a[n // 2] if n % 2 else (a[n // 2 - 1] + a[n // 2]) / 2
    return 100 * med, 100 * a[max(0, math.ceil(0.9 * n) - 1)]


for s in ('heldout16', 'heldout17', 'heldout18', 'heldout19', 'heldout20'):
    path = f'validation/results/h200-{s}/kernels.json'
    line = f'h200-{s}'
    for cal in cals:
        c = cases(path, cal)
        m, p = stats(c.values())
        line += f'  {cal.split("/")[-1]}: {len(c)} cases {m:.1f} / {p:.1f} %'
    print(line)
