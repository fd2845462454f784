#!/usr/bin/env python3
"""Branch fp8small12: what cuBLASLt's split-K block-scaled FP8 grids spend beyond the price.

Replays lib/src/cost/quant_gemm_cost.cpp's block branch (one wave: tiles x split <= SMs) for every
split grid of h200-quant2 / quant5 / quant6 and prints, per case, the K loop (c), the stream at the
block keys (m), the reduce, price and measured time, and two candidate forms of the main kernel,
neither of them in the model; every form with the pair's harness idle (docs/accuracy-notes.md, "Branch fp8small12"):
  hypot  : sqrt(c^2 + m^2), the K loop and the stream overlapping in part;
  hypot2 : sqrt(c^2 + s^2) with s the row-scaled kernel's stream law (fp8cap10: the card's read
           rate plus one SM's 201 GB/s over the grid's CTAs), no key refitted.
Constants are hardware/h200.calibration.yaml's and hardware/h200.yaml's (no L2 hit: the harness
rotates > 2x L2). Usage: python3 validation/scripts/quant/block_split_overlap.py
"""
import glob, json, math, os, statistics

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..')
SM, PEAK = 132, 1978.9e12                      # h200.yaml: SMs, datasheet fp8
EFF, SEFF, PRO = 0.801, 0.698, 2.06e-6         # quant: fp8_block_* keys
RB, WB = 4658.4e9, 3432.33e9                   # read / write rate
FLOOR, PASS, GFIX = 0.508704e-6, 0.912999e-6, 1.3e-6
SM_STREAM = 201e9                              # quant: fp8_row_sm_stream (fp8cap10)
# A split call is a pair of kernels: the harness time holds 1.06 us of GPU idle after it, 0.46 after
# one (lib/src/analysis/profile_accuracy.cpp harness_idle_s, h200-gemm-chain); the block keys were
# fitted on one-kernel calls, so a pair adds the difference (as tests/test_quant_accuracy.cpp does).
PAIR = 1.06e-6 - 0.46e-6


def split(m, n, k):  # block_fp8_split
    rows = 16 * ((m + 15) // 16)
    tiles = (rows + 127) // 128 * ((n + 127) // 128)
    s = 1
    while (s + 1) * tiles <= SM and (s + 1) * rows * n < 262144 and k > 2560 * (s + 1):
        s += 1
    return s, tiles


def main():
    rows = []
    for f in sorted(glob.glob(os.path.join(ROOT, 'validation/results/h200-quant[256]/quant[256].json'))):
        for c in json.load(open(f))['cases']:
            if c.get('scaling') != 'block' or c.get('dtype') != 'fp8' or not (c.get('ok') and c.get('correct')):
                continue
            m, n, k, by = c['m_padded'], c['n'], c['k'], c['bytes']
            s, tiles = split(m, n, k)
            if s == 1:
                continue
            ctas = s * tiles
            steps = math.ceil(math.ceil(k / 128) / s)
            cl = 2 * 128 ** 3 * steps / (PEAK / SM * EFF)
            mem = by / (RB * SEFF)
            st = by / RB + by / (ctas * SM_STREAM)
            red = FLOOR + PASS + 4 * s * m * n / RB + 2 * m * n / WB
            fixed = FLOOR + GFIX + PRO + red + PAIR
            meas = c['measured_s']
            price, h1, h2 = fixed + max(cl, mem), fixed + math.hypot(cl, mem), fixed + math.hypot(cl, st)
            rows.append((os.path.basename(os.path.dirname(f)), c['name'].replace('scaled_mm_fp8_block_', ''), s, ctas,
                         cl, mem, st, meas, price, h1, h2))
    print(f"{'set':12s} {'case':24s} s CTAs  loop  strm  strm2   meas  price     hypot    hypot2  (us, error)")
    for r in rows:
        e = lambda p: f"{p * 1e6:6.1f} {100 * (p / r[7] - 1):+5.1f}%"
        print(f"{r[0]:12s} {r[1]:24s} {r[2]} {r[3]:4d} {r[4]*1e6:5.1f} {r[5]*1e6:5.1f} {r[6]*1e6:5.1f} {r[7]*1e6:6.1f} "
              f"{e(r[8])} {e(r[9])} {e(r[10])}")
    for i, name in ((8, 'price'), (9, 'hypot'), (10, 'hypot2')):
        err = sorted(abs(r[i] / r[7] - 1) for r in rows)
        print(f"{name}: n={len(err)} median {100 * statistics.median(err):.1f} % max {100 * err[-1]:.1f} %")


if __name__ == '__main__':
    main()
