#!/usr/bin/env python3
"""Inductor's row ops (layer_norm, softmax, rms_norm; torch.compile cases, compiled profile) per case, signed
error in %, under each calibration given: the default and branch walkdefault's opt-in (the walk past 4096
columns). F / H: the profile fit's fitted / held-out half (profile_cases' held_out). Ends with each op's mean
signed error over the six committed sets (h200-heldout18 / -19 are check sets, listed, not averaged).

    python3 validation/results/h200-walkdefault/cases.py build/tools/perfmodel/perfmodel \
        hardware/h200.calibration.yaml validation/results/h200-walkdefault/h200.calibration.walk.yaml
"""
import json
import statistics
import subprocess
import sys

SIX = ['production', 'eltwise3', 'eltwise4', 'eltwise5', 'eltwise6', 'eltwise14']
CHECK = ['heldout18', 'heldout19']
OPS = ('softmax_fused', 'layernorm', 'rmsnorm')
exe, cals = sys.argv[1], sys.argv[2:]


def cases(s, cal):
    out = subprocess.run([exe, 'accuracy', '--card', 'h200', '--measured', f'validation/results/h200-{s}/kernels.json',
                          '--format', 'json', '--calibration', cal], capture_output=True, text=True, check=True).stdout
    return {c['name']: c for c in json.loads(out)['profile_cases']
            if c['profile'] == 'compiled' and c['implementation'] == 'torch.compile' and c['kernel'] in OPS}


rows = []
for s in SIX + CHECK:
    per = [cases(s, c) for c in cals]
    for n, c in per[0].items():
        rows.append((s, n, c['kernel'], c['held_out'], c['measured_s'] * 1e6, [p[n]['error'] * 100 for p in per]))
print(f"{'set':10s} {'case':40s} F/H {'us':>8s} " + ' '.join(f'{"cal" + str(i):>7s}' for i in range(len(cals))))
for s, n, k, h, us, e in rows:
    moved = any(abs(x - e[0]) > 0.05 for x in e)
    print(f"{s:10s} {n:40s}  {'H' if h else 'F'}  {us:8.2f} " + ' '.join(f'{x:+7.2f}' for x in e) + ('  *' if moved else ''))
for k in OPS:
    for i, c in enumerate(cals):
        e = [r[5][i] for r in rows if r[2] == k and r[0] in SIX]
        print(f"{k:14s} cal{i} ({c}): mean signed {statistics.mean(e):+.2f} % over {len(e)} cases of the six sets")
