#!/usr/bin/env python3
"""Hugging Face transformers steps (hf.json) against `perfmodel decode|prefill --impl eager`.

Usage: [PERFMODEL_CARD=h100-sxm] python3 validation/scripts/production/compare_hf.py [hf.json] [perfmodel binary] [calibration file]

PERFMODEL_CARD: the catalogue card the steps ran on (default h200).

The calibration file (default: the card's) is how a lease's own host rate is tried: `perfmodel calibrate --on-gpu
--profile eager` writes one (validation/results/h200-hostlease).

Wall time against step.time_s, GPU kernel time against step.device_time_s, kernels per step
against step.launches (issue 10, item 4). Prints a Markdown table and the median / p90 |error|.
Error = predicted / measured - 1. Even step indices are marked `fit` (what host_per_kernel may be
fitted on), odd ones `held out`. The eager profile's host_per_kernel is the geometric mean, over
the host-bound `fit` steps (wall >= 2 x kernel time), of (wall - views x eager_view) / launches,
views counted from the prediction's host time (printed last; run it with the profile's
host_per_kernel removed from the calibration to refit: the views are counted at 11.97 us per
launch, the card's eager_dispatch).
"""
import math
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def priced_ctx(s):
    """hf_decode.py's decode step runs at position ctx over a cache of ctx tokens: it attends ctx + 1
    keys, what perfmodel's --ctx counts (the new token included; branch gemm10). A prefill is ctx."""
    return s['ctx'] + (1 if s['phase'] == 'decode' else 0)


def model_arg(s, folder):
    """The model key, or a copy of its YAML whose positions reach priced_ctx(s) where the harness ran
    one position past them (h200-hf-grid's Llama-2-7B decode at ctx 4096)."""
    path = os.path.join(ROOT, 'models', f"{s['model']}.yaml")
    text = open(path).read() if os.path.exists(path) else ''
    m = re.search(r'^max_position_embeddings:\s*(\d+)', text, flags=re.M)
    if not m or not int(m.group(1)) == s['ctx'] < priced_ctx(s):
        return s['model']
    out = os.path.join(folder, f"{s['model']}.yaml")
    open(out, 'w').write(text[:m.start(1)] + str(priced_ctx(s)) + text[m.end(1):])
    return out


def pct(v):
    v = sorted(abs(x) for x in v)
    if not v:
        return 0.0, 0.0
    med = (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
    pos = 0.9 * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return med, v[lo] + (v[hi] - v[lo]) * (pos - lo)


def main(path, binary, calibration=None):
    steps = json.load(open(path))['steps']
    print('| step | part | wall | kernels | kernels/step | pred. wall | pred. device | pred. launches | wall err | kernel err |')
    print('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    errs = {'fit': ([], []), 'held out': ([], [])}
    implied = []
    tmp = tempfile.TemporaryDirectory()
    for i, s in enumerate(steps):
        if not s.get('ok'):
            continue
        # The cache as the step ran it: contiguous (a generate() loop, hf_grid.py; perfmodel's default) or cropped back
        # between steps (the older runs, no cache_layout recorded).
        layout = ['--eager-cache', 'contiguous' if s.get('cache_layout') == 'contiguous' else 'cropped']
        # SDPA held to its flash backend (hf_grid.py --sdpa-backend flash): flash-attn 2's kernels, as
        # transformers' flash_attention_2 runs them.
        if s.get('attn') in ('sdpa_flash', 'flash_attention_2'):
            layout += ['--attn-implementation', 'flash_attention_2']
        out = subprocess.run([binary, s['phase'], '--model', model_arg(s, tmp.name), '--card', os.environ.get('PERFMODEL_CARD', 'h200'),
                              '--batch', str(s['batch']), '--ctx', str(priced_ctx(s)), '--impl', 'eager',
                              '--format', 'json'] + layout +
                             (['--calibration', calibration] if calibration else []),
                             capture_output=True, text=True)
        if out.returncode == 2:  # refused, e.g. a context beyond the model's positions
            print(f"| {s['model']} {s['phase']} b{s['batch']} ctx{s['ctx']} | refused: {out.stderr.strip()} |")
            continue
        out.check_returncode()
        st = json.loads(out.stdout)['step']
        part = 'fit' if i % 2 == 0 else 'held out'
        if part == 'fit' and s['wall_s'] >= 2 * s['kernel_s']:
            views = (st['host_time_s'] - st['launches'] * 11.97e-6) / 2.40866e-6
            implied.append((s['wall_s'] - views * 2.40866e-6) / st['launches'])
        we, ke = st['time_s'] / s['wall_s'] - 1, st['device_time_s'] / s['kernel_s'] - 1
        errs[part][0].append(we)
        errs[part][1].append(ke)
        print(f"| {s['model']} {s['phase']} b{s['batch']} ctx{s['ctx']} | {part} | {s['wall_s'] * 1e3:.2f} ms | "
              f"{s['kernel_s'] * 1e3:.2f} ms | {s['kernels_per_step']:.0f} | {st['time_s'] * 1e3:.2f} ms | "
              f"{st['device_time_s'] * 1e3:.2f} ms | {st['launches']} | {we:+.0%} | {ke:+.0%} |")
    for part, (w, k) in errs.items():
        wm, wp = pct(w)
        km, kp = pct(k)
        print(f'{part}: {len(w)} steps; wall median {wm:.1%} p90 {wp:.1%}; kernels median {km:.1%} p90 {kp:.1%}')
    if implied:
        print(f'implied host per kernel (valid without host_per_kernel in the calibration): '
              f'{math.exp(sum(map(math.log, implied)) / len(implied)) * 1e6:.2f} us over {len(implied)} steps')


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'validation/results/h200-production/hf.json',
         sys.argv[2] if len(sys.argv) > 2 else 'build/tools/perfmodel/perfmodel',
         sys.argv[3] if len(sys.argv) > 3 else None)
