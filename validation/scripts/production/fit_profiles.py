#!/usr/bin/env python3
"""Fits the implementation profiles' attention parameters on production kernels (issue 10).

Usage: python3 validation/scripts/production/fit_profiles.py validation/results/h200-production/kernels.json

Fits on the even case indices of the file and prints the held-out (odd) errors and the
`profiles:` values of the calibration file (docs/calibration.md, "profiles"). The formulas are
those of lib/src/cost/flash_prefill_cost.cpp, lib/src/attention_schedule.cpp and
lib/src/cost/production_decode_cost.cpp; `perfmodel accuracy` recomputes the errors with the
C++ model (its per-profile tables) and is what the tests guard.
- prefill: the tile model (rate at head dim 128, softmax share, CTA fixed cost) plus a per-call
  floor, Nelder-Mead on squared log errors: fused, eager and compiled <- torch.sdpa.cudnn
  (transformers' SDPA call runs cuDNN on sm90 with PyTorch 2.11: validation/results/h200-hf-grid
  kernel names; the compiled profile's prefill is generate()'s uncompiled one, docs/profiles.md);
  torch.sdpa.flash is fitted for its softmax share, which the fused decode's tile takes.
- decode (the fused profile runs FlashAttention's split-KV decode; eager runs cuDNN's decode
  kernel, fitted by fit_compiled.py): FlashAttention-2's split rule, then
  split calls t = floor + KV bytes / BW + splits x combine (linear least squares on relative
  errors); non-split calls t = floor + CTAs x keys / 128 x tile(d) / SMs, the tile's softmax share
  taken from the flash prefill fit (no head dim but 128 among the non-split training cases).
- PyTorch's memory-efficient kernel (torch.sdpa.efficient) is fitted for the record only: no
  profile's step runs it on sm90 (the static cache's masked SDPA is cuDNN's, h200-compiled).
"""
import heapq
import json
import math
import sys

SMS, TILE, DRAM = 132, 128, 4.0e12
READ, WRITE = 4658.4e9, 3432.33e9  # hardware/h200.calibration.yaml: read_bandwidth, write_bandwidth


def med(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2 if v else 0.0


def p90(v):
    v = sorted(v)
    if not v:
        return 0.0
    pos = 0.9 * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def critical(b, h, q, kv, causal, fixed, tile):
    nq, all_tiles, cost = math.ceil(q / TILE), math.ceil(kv / TILE), []
    for i in range(nq):
        n = all_tiles
        if causal:
            last = kv - q + min(q, (i + 1) * TILE) - 1
            n = min(max(last // TILE + 1, 1), all_tiles)
        cost.append(fixed + n * tile)
    if b * h * nq > 200000:
        return sum(cost) * b * h / SMS + max(cost) / 2
    heap, makespan = [0.0] * SMS, 0.0
    for _ in range(b * h):
        for c in cost:
            t = heapq.heappop(heap) + c
            heapq.heappush(heap, t)
            makespan = max(makespan, t)
    return makespan


def wave_edge(c):
    """cuDNN's first wave's Q tiles in and last wave's O tiles out, all CTAs at once, no walk under them
    (flash_prefill_cost.cpp, attention_wave_edge_s; branch prefill): the card's read / write rates."""
    wave = min(c['batch'] * c['heads'] * math.ceil(c['q_len'] / TILE), SMS)
    tile = min(c['q_len'], TILE) * c['head_dim'] * 2
    return wave * tile / READ + wave * tile / WRITE


def prefill_time(c, peak, share, fixed, floor, edge=False):
    t128 = 4 * TILE * TILE * 128 / (peak / SMS)
    tile = t128 * ((1 - share) * c['head_dim'] / 128 + share)
    return floor + (wave_edge(c) if edge else 0) + max(
        critical(c['batch'], c['heads'], c['q_len'], c['kv_len'], c['causal'], fixed, tile), c['bytes'] / DRAM)


def nelder_mead(f, x0, steps, iterations=400):
    n = len(x0)
    pts = [x0] + [[x0[j] + (steps[j] if j == k else 0) for j in range(n)] for k in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iterations):
        order = sorted(range(n + 1), key=lambda k: vals[k])
        pts, vals = [pts[k] for k in order], [vals[k] for k in order]
        cen = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        xr = [cen[j] + (cen[j] - pts[-1][j]) for j in range(n)]
        fr = f(xr)
        if fr < vals[0]:
            xe = [cen[j] + 2 * (cen[j] - pts[-1][j]) for j in range(n)]
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = [cen[j] + 0.5 * (pts[-1][j] - cen[j]) for j in range(n)]
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                pts = [pts[0]] + [[pts[0][j] + 0.5 * (p[j] - pts[0][j]) for j in range(n)] for p in pts[1:]]
                vals = [vals[0]] + [f(p) for p in pts[1:]]
    return pts[min(range(n + 1), key=lambda k: vals[k])]


def fit_prefill(cases, edge=False):
    def loss(x):
        peak, share, fixed, floor = x[0] * 1e12, x[1], x[2] * 1e-6, x[3] * 1e-6
        if peak <= 0 or not 0 <= share <= 1 or fixed < 0 or floor < 0:
            return 1e9
        return sum(math.log(prefill_time(c, peak, share, fixed, floor, edge) / c['measured_s']) ** 2
                   for i, c in cases if i % 2 == 0)
    x = nelder_mead(loss, [500, 0.3, 1.0, 5.0], [100, 0.1, 0.5, 2.0])
    return x[0] * 1e12, x[1], x[2] * 1e-6, x[3] * 1e-6


def split_plan(c):
    """FlashAttention-2 flash_api.cpp: seqlenq_ngroups_swapped, num_splits_heuristic(.., 2 x SMs, ..)."""
    b, h, kvh, length, d = c['batch'], c['heads'], c['kv_heads'], c['kv_len'], c['head_dim']
    ctas = b * kvh * math.ceil(h // kvh / 64)
    block_n = 256 if d <= 64 else 128 if d <= 128 else 64
    blocks, slots = math.ceil(length / block_n), 2 * SMS
    if ctas >= 0.8 * slots:
        return 1, ctas
    top = min(slots, blocks, 128)
    eff = [(ctas * s / slots) / math.ceil(ctas * s / slots) for s in range(1, top + 1)]
    for s in range(1, top + 1):
        if (s == 1 or math.ceil(blocks / s) != math.ceil(blocks / (s - 1))) and eff[s - 1] >= 0.85 * max(eff):
            return s, ctas
    return 1, ctas


def solve(rows):
    """Least squares on relative errors: rows of (features, measured)."""
    X = [[x / y for x in r] for r, y in rows]
    n = len(X[0])
    M = [[sum(r[i] * r[j] for r in X) for j in range(n)] + [sum(r[i] for r in X)] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda k: abs(M[k][i]))
        M[i], M[p] = M[p], M[i]
        for k in range(n):
            if k != i:
                f = M[k][i] / M[i][i]
                M[k] = [a - f * b for a, b in zip(M[k], M[i])]
    return [M[i][n] / M[i][i] for i in range(n)]


def report(label, errors):
    for part, sel in (('fit', 0), ('held out', 1)):
        e = [abs(x) for i, x in errors if i % 2 == sel]
        print(f'  {label} {part}: {len(e)} cases, median {med(e):.1%}, p90 {p90(e):.1%}')


def main(path):
    cases = json.load(open(path))['cases']
    pick = lambda kernel, impl: [(i, c) for i, c in enumerate(cases)
                                 if c['kernel'] == kernel and c.get('implementation') == impl and c['ok'] and c['correct']]
    shares = {}
    for impl, profile in (('torch.sdpa.cudnn', 'fused, eager and compiled'), ('torch.sdpa.flash', 'FlashAttention-2 (its share: fused decode)'),
                          ('torch.sdpa.efficient', 'no profile (the record)')):
        sel = pick('attention_prefill_fused', impl)
        edge = impl == 'torch.sdpa.cudnn'  # the profiles' kernel: its wave edge priced (flash_prefill_cost.cpp)
        peak, share, fixed, floor = fit_prefill(sel, edge)
        shares[impl] = share
        print(f'{profile} prefill <- {impl}: attention_peak {peak / 1e12:.1f} TFLOP/s, softmax share {share:.3f}, '
              f'cta_fixed {fixed * 1e6:.3f} us, call_floor {floor * 1e6:.2f} us')
        report('prefill', [(i, prefill_time(c, peak, share, fixed, floor, edge) / c['measured_s'] - 1) for i, c in sel])
    dec = pick('attention_decode', 'torch.sdpa.flash')
    kv = lambda c: 2 * c['batch'] * c['kv_heads'] * c['kv_len'] * c['head_dim'] * 2
    split = [(i, c) + split_plan(c) for i, c in dec if split_plan(c)[0] > 1]
    whole = [(i, c) + split_plan(c) for i, c in dec if split_plan(c)[0] == 1]
    floor, inv_bw, per_split = solve([([1, kv(c), s], c['measured_s']) for i, c, s, n in split if i % 2 == 0])
    share = shares['torch.sdpa.flash']
    work = lambda c, n: n * c['kv_len'] / 128 * ((1 - share) * c['head_dim'] / 128 + share) / SMS
    nfloor, tile = solve([([1, work(c, n)], c['measured_s']) for i, c, s, n in whole if i % 2 == 0])
    print(f'fused decode <- torch.sdpa.flash: call_floor {floor * 1e6:.3f} us, stream_bandwidth {1 / inv_bw / 1e9:.2f} GB/s, '
          f'combine_per_split {per_split * 1e6:.3f} us, nonsplit_tile {tile * 1e6:.4f} us, '
          f'nonsplit_softmax_share {share:.3f}, nonsplit_floor {nfloor * 1e6:.3f} us')
    errors = [(i, (floor + kv(c) * inv_bw + s * per_split) / c['measured_s'] - 1) for i, c, s, n in split]
    errors += [(i, (nfloor + work(c, n) * tile) / c['measured_s'] - 1) for i, c, s, n in whole]
    report('decode', errors)
    # The memory-efficient kernel (no profile runs it; the record) never splits the KV: a CTA per
    # (sequence, head) walks the whole cache; with fewer CTAs than SMs the time is one CTA's walk
    # (production_decode_cost.cpp, split_kv false).
    eff = pick('attention_decode', 'torch.sdpa.efficient')
    share = shares['torch.sdpa.efficient']
    walk = lambda c: (max(1.0, c['batch'] * c['kv_heads'] / SMS) * c['kv_len'] / 128
                      * ((1 - share) * c['head_dim'] / 128 + share))
    efloor, etile = solve([([1, walk(c)], c['measured_s']) for i, c in eff if i % 2 == 0])
    print(f'memory-efficient decode (no profile) <- torch.sdpa.efficient: nonsplit_floor {efloor * 1e6:.3f} us, nonsplit_tile '
          f'{etile * 1e6:.4f} us, nonsplit_softmax_share {share:.3f}, split_kv false')
    report('memory-efficient decode', [(i, (efloor + walk(c) * etile) / c['measured_s'] - 1) for i, c in eff])


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'validation/results/h200-production/kernels.json')
