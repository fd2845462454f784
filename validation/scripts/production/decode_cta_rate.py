#!/usr/bin/env python3
"""Can a per-CTA stream rate make the fused decode attention monotone? (issue 14)

Usage: python3 validation/scripts/production/decode_cta_rate.py [validation/results/h200-production/kernels.json]

The fused profile prices FlashAttention-2's split-KV decode as t = floor + splits x combine +
bytes / BW (lib/src/cost/production_decode_cost.cpp, the hardware/h200.calibration.yaml values).
One CTA can only keep so many loads in flight (Little's law), so with few CTAs the stream runs
at min(BW, CTAs in flight x r). This script
 1. fits r on the even torch.sdpa.flash split decode cases (the profile's other values fixed) and
    prints the even and held-out (odd) median / p90 |error| without and with it;
 2. over the grid of tests/test_properties.cpp ("fused decode attention never gets faster ..."),
    counts the drops, the fewest CTAs in flight at a dropping step, and the largest r that
    would remove every drop.
The split rule is production_decode_cost.cpp's (the best efficiency over eligible split counts,
as flash_api.cpp), not fit_profiles.py's older one.
"""
import json
import math
import sys

from fit_profiles import med, p90

SMS = 132
FLOOR, BW, COMBINE = 8.357e-6, 4328.02e9, 0.227e-6  # hardware/h200.calibration.yaml, profiles.fused.decode
NS_FLOOR, NS_TILE, NS_SHARE = 4.904e-6, 3.2248e-6, 0.072


def plan(b, h, kvh, length, d):
    ctas = b * kvh * math.ceil(h // kvh / 64)
    block_n = 256 if d <= 64 else 128 if d <= 128 else 64
    blocks, slots = max(1, math.ceil(length / block_n)), 2.0 * SMS
    if ctas >= 0.8 * slots:
        return 1, ctas
    top = int(min(slots, blocks, 128))
    eff = lambda s: (ctas * s / slots) / math.ceil(ctas * s / slots)
    eligible = lambda s: s == 1 or math.ceil(blocks / s) != math.ceil(blocks / (s - 1))
    best = max(eff(s) for s in range(1, top + 1) if eligible(s))
    return next(s for s in range(1, top + 1) if eligible(s) and eff(s) >= 0.85 * best), ctas


def split_time(splits, ctas, nbytes, r):
    rate = BW if r is None else min(BW, min(ctas * splits, 2 * SMS) * r)
    return FLOOR + splits * COMBINE + nbytes / rate


def time(b, h, kvh, length, d, r=None):
    s, n = plan(b, h, kvh, length, d)
    nbytes = 2 * b * kvh * length * d * 2 + 2 * b * h * d * 2  # K, V, Q, O in bf16
    if s > 1:
        return split_time(s, n, nbytes, r)
    tile = NS_TILE * ((1 - NS_SHARE) * d / 128 + NS_SHARE)
    return NS_FLOOR + max(max(1, n / SMS) * length / 128 * tile, nbytes / BW)


def main(path):
    cases = json.load(open(path))['cases']
    rows = []
    for i, c in enumerate(cases):
        if c['kernel'] != 'attention_decode' or c.get('implementation') != 'torch.sdpa.flash' or not (c['ok'] and c['correct']):
            continue
        s, n = plan(c['batch'], c['heads'], c['kv_heads'], c['kv_len'], c['head_dim'])
        if s > 1:
            rows.append((i, c, s, n))

    def errors(r):
        return [(i, split_time(s, n, c['bytes'], r) / c['measured_s'] - 1) for i, c, s, n in rows]

    def loss(r):
        return sum(math.log(1 + e) ** 2 for i, e in errors(r) if i % 2 == 0)

    def line(label, r):
        e = errors(r)
        ev, od = [abs(x) for i, x in e if i % 2 == 0], [abs(x) for i, x in e if i % 2 == 1]
        print(f'{label}: even {len(ev)} cases median {med(ev):.1%} p90 {p90(ev):.1%}; '
              f'held out (odd) {len(od)} median {med(od):.1%} p90 {p90(od):.1%}')

    r_fit = min((x * 0.5e9 for x in range(2, 4001)), key=loss)
    line('one stream rate (today)', None)
    line(f'per-CTA rate fitted on the even cases, r = {r_fit / 1e9:.1f} GB/s', r_fit)
    for r in (20e9, 40e9):
        line(f'r = {r / 1e9:.0f} GB/s', r)
    print('CTAs in flight per split case:', sorted(min(s * n, 2 * SMS) for i, c, s, n in rows))

    drops, fewest, need, worst = 0, 10 ** 9, [], {'batch': 0.0, 'context': 0.0}
    bs, ls = [1, 2, 3, 4, 8, 16, 32], [256, 512, 1000, 1024, 2048, 3000, 4096, 8192, 16384]
    for kvh in (1, 2, 4, 5, 8, 10, 16, 20, 32, 40, 64):
        for group in (1, 4, 8):
            for d in (64, 128):
                h = kvh * group
                for i, b in enumerate(bs):
                    for j, length in enumerate(ls):
                        prev = ([('batch', bs[i - 1], length)] if i else []) + ([('context', b, ls[j - 1])] if j else [])
                        for kind, b0, l0 in prev:
                            t0, t1 = time(b0, h, kvh, l0, d), time(b, h, kvh, length, d)
                            if t1 >= t0 * (1 - 1e-9):
                                continue
                            drops += 1
                            worst[kind] = max(worst[kind], 1 - t1 / t0)
                            s, n = plan(b, h, kvh, length, d)
                            fewest = min(fewest, min(s * n, 2 * SMS))
                            ok = [x * 0.25e9 for x in range(1, 2001)
                                  if time(b, h, kvh, length, d, x * 0.25e9) >= time(b0, h, kvh, l0, d, x * 0.25e9) * (1 - 1e-9)]
                            need.append(max(ok) if ok else 0.0)
    print(f'grid: {drops} drops (largest: batch {worst["batch"]:.1%}, context {worst["context"]:.1%}); '
          f'fewest CTAs in flight at a dropping step {fewest}; a per-CTA rate removes every drop only at '
          f'<= {min(need) / 1e9:.2f} GB/s and any drop only at <= {max(need) / 1e9:.2f} GB/s')


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'validation/results/h200-production/kernels.json')
