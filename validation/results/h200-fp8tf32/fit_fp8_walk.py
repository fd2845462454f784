#!/usr/bin/env python3
"""Branch fp8tf32: the tensor-wise FP8 kernels' operand fill into each SM (the K walk of a small tile), fitted.

    python3 validation/results/h200-fp8tf32/fit_fp8_walk.py [--rate GBPS]

tensor_fp8_cost (quant_gemm_cost.cpp, branch fp8mm14) prices t = floor + prologue + (mma^3 + stream^3)^(1/3)
(+ a split's reduce). cuBLASLt's nvjet_sm90_qqtst kernels at 64-256 rows on small N run one wave of 86-128
CTAs, each walking all of K with a small tile (24x64 .. 64x104), K tile 128, 10-16 stages; every K step
each CTA takes (tn + tm) x 128 bytes of A and B into its shared memory, and these run at 96-120 GB/s an SM
whatever the tile (fp8_cases.py --table: 64x32 113, 64x40 108, 48x64 105-129, 64x64 100-119, 64x104 112,
128x64 112-118): one SM's L2 -> shared-memory port (64 B a clock, 127 GB/s at 1980 MHz), not DRAM and not
the MMA. Without cuBLASLt's tile choice (a heuristic not modelled), the walk is priced on the least bytes a
step any tile of the grid's output share can take: a square tile of area M N / SMs, 2 sqrt(M N / SMs) x K
bytes an SM, at `rate`; committed as a floor under the overlap, max((mma^3 + stream^3)^(1/3), walk) (--form max);
--form pP joins it as ((mma^3 + stream^3)^(P/3) + walk^P)^(1/P), --form cube as a third term of the cube.
One number fitted (the rate; the three fp8mm14 keys kept): on h200-quant's FIT_SHAPES half and the
even-index cases of h200-fp8mm14's probe. Held out: h200-quant's other shapes, h200-quant2's sweeps,
h200-production, fp8mm14's odd cases; check: h200-heldout16 / 17 / 18.
"""
import argparse
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fp8_cases import cases  # noqa: E402

DATASHEET_FP8 = 1978.9e12
READ, WRITE, L2BW, CAP = 4658.4e9, 3432.33e9, 6131.13e9, 34.8643e6
FLOOR, PASS = 0.508704e-6, 0.912999e-6
EFF, STREAM, PROLOGUE = 0.725, 0.866, 3.61e-6
SMS = 132


def cyclic_l2_hit(ws, cap=CAP):
    if ws <= 0:
        return 0.0
    x = ws / cap
    if x <= 1:
        return 1.0
    lo, hi = 0.0, 1 - 1e-12
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if math.exp(-x * (1 - mid)) > mid:
            lo = mid
        else:
            hi = mid
    return lo


FORM = "max"


def pred(c, rate):
    m, n, k = c["m"], c["n"], c["k"]
    rows = 16 * ((m + 15) // 16)
    read, written = n * k + m * k + 8, 2 * m * n
    h = 1.0 if c.get("l2_resident") else cyclic_l2_hit(c.get("rotated_bytes", 0) or 0)
    mma = 2.0 * m * n * k / (EFF * DATASHEET_FP8)
    stream = (1 - h) * (read / READ + written / WRITE) / STREAM + h * (read + written) / L2BW
    walk = 2.0 * math.sqrt(rows * n / SMS) * k / rate if rate > 0 else 0.0
    both = (mma ** 3 + stream ** 3) ** (1 / 3)
    if FORM == "max":
        core = max(both, walk)
    elif FORM == "cube":
        core = (mma ** 3 + stream ** 3 + walk ** 3) ** (1 / 3)
    else:
        p = float(FORM[1:])
        core = (both ** p + walk ** p) ** (1 / p)
    t = FLOOR + PROLOGUE + core
    split = k > 5120 and rows * n < 2 ** 17
    return t + (FLOOR + PASS if split else 0.0)


def p90(v):
    v = sorted(v)
    q = (len(v) - 1) * 0.9
    return v[int(q)] + (v[min(int(q) + 1, len(v) - 1)] - v[int(q)]) * (q - int(q))


def groups():
    cs = cases()
    out = {}
    i14 = 0
    for c in cs:
        g = c["group"]
        if g == "fp8mm14":
            g = "fp8mm14 even (fit)" if i14 % 2 == 0 else "fp8mm14 odd"
            i14 += 1
        elif g == "quant fit":
            g = "quant fit (fit)"
        out.setdefault(g, []).append(c)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, default=0, help="GB/s an SM; 0: fit it")
    ap.add_argument("--form", default="max", help="max (committed), cube, p4, p6, p8")
    a = ap.parse_args()
    global FORM
    FORM = a.form
    gs = groups()
    fit = [c for g, cs in gs.items() if g.endswith("(fit)") for c in cs]

    def loss(rate):
        return sum(math.log(pred(c, rate) / c["measured_s"]) ** 2 for c in fit)

    rate = a.rate * 1e9
    if rate <= 0:
        grid = [r * 1e9 for r in range(60, 201, 2)]
        for r in grid[::10]:
            print(f"  rate {r / 1e9:5.0f} GB/s  loss {loss(r):.4f}")
        rate = min(grid, key=loss)
        print(f"fitted on {len(fit)} cases: {rate / 1e9:.0f} GB/s an SM (loss {loss(rate):.4f}; without the walk {loss(0):.4f})")
    for g, cs in gs.items():
        for label, r in (("before", 0.0), ("after", rate)):
            e = [pred(c, r) / c["measured_s"] - 1 for c in cs]
            a_ = [abs(x) for x in e]
            print(f"  {g:20s} {label:6s} {len(e):3d}  median {100 * statistics.median(a_):5.1f} %  p90 {100 * p90(a_):5.1f} %  "
                  f"mean {100 * statistics.mean(e):+5.1f} %")


if __name__ == "__main__":
    main()
