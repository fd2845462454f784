#!/usr/bin/env python3
"""Branch decodeknee (issue 10): cuDNN's unmasked decode SDPA where the resident CTAs' own walks and the
card's K / V stream are of one size. The resident rule priced a wave as max(walk, wave bytes / stream
bandwidth); the committed cases run slower than either near the knee where an SM holds two or more of
the wave's CTAs (h200-decodeocc's d256 sweep: 152 -> 165 us from 196 to 256 units, two CTAs each, where
the max stays at 150; head dim 256's units are two CTAs each), and at the max where each CTA is alone on its SM (h200-cudnn-decode #82-84,
h200-heldout16 #17). Where CTAs share an SM the two join as the flash-decoding wave's stream and chain
do (the calibration's decode_overlap, n = 4): wave = (walk^n + stream^n)^(1/n).

This script is the resident rule of lib/src/kernels/attention_decode_cudnn.cpp in Python (checked against
the binary case by case), the knee added, and the same seven constants refitted as
fit_compiled.py fits them (least squared log error, Nelder-Mead) on the same fit half: the EVEN
torch.sdpa.cudnn decode cases of h200-production, h200-cudnn-decode and h200-heldout16. Every other case
(their odd cases, h200-production-repeat, h200-heldout17..23, h200-decodeocc, h200-wholetiles) is held out.

Usage (repository root): python3 validation/scripts/production/decodeknee.py BINARY [--p N] [--fit-p]
Prints: the refitted constants, the replica's largest |difference| from the binary (built with them),
then per set median / p90 |error| for main's law and constants, the larger one refitted (the control),
the join everywhere refitted, and the branch's law refitted."""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from fit_profiles import nelder_mead  # noqa: E402

SMS = 132
FIT_SETS = ("h200-production", "h200-cudnn-decode", "h200-heldout16")
# main's constants: eager profile's cudnn_decode block (hardware/h200.calibration.yaml) and the three
# in attention_decode_cudnn.cpp. floor, reduction floor (s), stream bandwidth (B/s), cta stream (B/s),
# cta latency, unhidden tile, tile latency (s).
MAIN = [4.398e-6, 3.809e-6, 4293.2e9, 96.30e9, 2.71e-6, 2.459e-6, 0.751e-6]  # before branch decodeknee


def resident(d):  # branch decodeocc: ncu's registers and shared memory through the occupancy rules
    return 4 if d <= 64 else 2 if d <= 128 else 1


def cases():
    out = []
    for path in sorted(glob.glob("validation/results/h200*/kernels.json")):
        s = path.split("/")[2]
        try:
            data = json.load(open(path))["cases"]
        except Exception:
            continue
        for i, c in enumerate(data):
            if c.get("kernel") != "attention_decode" or c.get("implementation") != "torch.sdpa.cudnn" or not c.get("ok"):
                continue
            b, h, kvh, L, d = c["batch"], c["heads"], c["kv_heads"], c["kv_len"], c["head_dim"]
            out.append(dict(set=s, index=i, b=b, h=h, kvh=kvh, L=L, d=d, t=c["measured_s"],
                            fit=s in FIT_SETS and i % 2 == 0))
    return out


MERGE_PER_SPLIT = 0.033e-6  # s, lean_reduction's time a split (h200-splitgrid's traced kernels)
# s, the merge's fixed part as a harness times it: lean_reduction's traced 1.68 us (h200-splitgrid) and the
# 0.46 us a graph holds the GPU idle after a kernel (harness_idle, h200-gemm-chain)
MERGE_FIXED = 1.68e-6 + 0.46e-6


def graph_splits(L, units):
    """cuDNN's split count (lib/src/kernels/decode_split.hpp, branch splitgrid): the largest power of two
    at most the whole key tiles and 64, with units x splits within two an SM."""
    whole, s = L // 128, 1
    while s * 2 <= whole and units * s * 2 <= 2 * SMS and s * 2 <= 64:
        s *= 2
    return s


def price(c, p, n=None, shared_only=True, old_split=False):
    """n None: the larger of walk and stream (main before the branch); else joined at n where an SM
    holds two or more of the wave's CTAs (shared_only) or everywhere."""
    floor, red, bw, cta_stream, lat, unhidden, tile_lat = p
    b, h, kvh, L, d = c["b"], c["h"], c["kvh"], c["L"], c["d"]
    ctas = b * kvh * -(-(h // kvh) // 16)
    nbytes = 2 * b * kvh * L * d * 2 + 2 * b * h * d * 2
    res = resident(d)
    tile = 4 * 128 * d
    rate = tile / (tile / cta_stream + tile_lat + (unhidden if res == 1 else 0.0))
    per_unit = 2 if d >= 256 else 1  # head dim 256: two CTAs a (sequence, KV head)

    def join(a, w, units):
        if n is None or (shared_only and units * per_unit <= SMS):
            return max(a, w)
        return (a ** n + w ** n) ** (1 / n)
    split = 2 * ctas <= SMS and -(-L // 128) >= 5
    keys = L
    if split and not old_split:  # branch splitgrid: cuDNN's count (decode_split.hpp), the split CTAs in waves
        splits = graph_splits(L, ctas)
        red += MERGE_PER_SPLIT * splits * per_unit
        ctas, keys = ctas * splits, -(-L // splits)
    elif split:  # before: the largest power of two within the resident slots, all at once
        splits = 1
        while ctas * splits * 2 <= res * SMS:
            splits *= 2
        stream = join(nbytes / bw, nbytes / (ctas * splits * rate), ctas * splits)
        return floor + red + stream
    slots = res * SMS
    per_cta = nbytes / ctas
    tiles = -(-keys // 128)
    walk = per_cta / cta_stream + tiles * (tile / rate - tile / cta_stream)
    wave = lambda k: join(k * per_cta / bw, walk, k)
    full, rest = divmod(ctas, slots)
    stream = full * wave(slots) + (wave(rest) if rest else 0.0)
    if split:
        return floor + red + stream
    stream = max(stream, math.ceil(ctas / SMS) * lat * d / 128)
    return floor + stream


def kernels(c):
    ctas = c["b"] * c["kvh"] * -(-(c["h"] // c["kvh"]) // 16)
    return 2 if 2 * ctas <= SMS and -(-c["L"] // 128) >= 5 else 1


def binary_price(binary, c):
    out = subprocess.run([binary, "op", "--card", "h200", "--kind", "attention", "--batch", str(c["b"]), "--heads",
                          str(c["h"]), "--kv-heads", str(c["kvh"]), "--q-len", "1", "--kv-len", str(c["L"]),
                          "--head-dim", str(c["d"]), "--impl", "eager", "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["device_time_s"]


def p90(e):
    e = sorted(e)
    return e[min(len(e) - 1, int(0.9 * len(e)))]


def fit(data, n, p0, shared_only=True):
    """The six fitted constants on the fit half; the merge's fixed part is measured, not fitted
    (MERGE_FIXED, branch splitgrid)."""
    rows = [c for c in data if c["fit"]]

    def params(x):
        return [x[0] * 1e-6, MERGE_FIXED, x[1] * 1e12, x[2] * 1e9, x[3] * 1e-6, x[4] * 1e-6, x[5] * 1e-6]

    def cost(x):
        if min(x[:4]) <= 0 or x[4] < 0 or x[5] < 0:
            return math.inf
        return sum(math.log(price(c, params(x), n, shared_only) / c["t"]) ** 2 for c in rows)
    x0 = [p0[0] * 1e6, p0[2] / 1e12, p0[3] / 1e9, p0[4] * 1e6, p0[5] * 1e6, p0[6] * 1e6]
    steps = [0.5, 0.3, 5, 0.5, 0.5, 0.3]
    x = nelder_mead(cost, x0, steps, 4000)
    x = nelder_mead(cost, x, [v / 4 for v in steps], 4000)
    return params(x)


def report(label, data, p, n, shared_only=True, old_split=False):
    print(f"## {label}")
    groups = {}
    for c in data:
        key = "fit half" if c["fit"] else c["set"]
        groups.setdefault(key, []).append(price(c, p, n, shared_only, old_split) / c["t"] - 1)
    held = [price(c, p, n, shared_only, old_split) / c["t"] - 1 for c in data if not c["fit"]]
    for k in sorted(groups):
        e = groups[k]
        a = [abs(x) for x in e]
        print(f"  {k:24s} {len(e):4d}  {100 * statistics.median(a):5.1f} / {100 * p90(a):5.1f} %   signed median {100 * statistics.median(e):+5.1f} %")
    a = [abs(x) for x in held]
    print(f"  {'ALL HELD OUT':24s} {len(a):4d}  {100 * statistics.median(a):5.1f} / {100 * p90(a):5.1f} %   signed median {100 * statistics.median(held):+5.1f} %")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--p", type=float, default=4.0, help="the knee's exponent (the calibration's decode_overlap)")
    ap.add_argument("--fit-p", action="store_true", help="also scan the exponent on the fit half")
    ap.add_argument("--no-check", action="store_true")
    a = ap.parse_args()
    data = cases()
    p = fit(data, a.p, MAIN)
    print("refitted (joined where CTAs share an SM): floor %.3f us, reduction %.3f us, stream %.1f GB/s, cta stream "
          "%.2f GB/s, cta latency %.2f us, unhidden tile %.3f us, tile latency %.3f us"
          % (p[0] * 1e6, p[1] * 1e6, p[2] / 1e9, p[3] / 1e9, p[4] * 1e6, p[5] * 1e6, p[6] * 1e6))
    if not a.no_check:  # the binary on this branch against the refitted law (hardware/h200.calibration.yaml's block)
        # The binary's device time takes the harness's idle after each kernel out of the fitted floors
        # (kernel_alone_s: 0.46 us, the eager profile's harness_idle), the accuracy comparison adds it back.
        worst = max(abs((price(c, p, a.p) - 0.46e-6 * kernels(c)) / binary_price(a.binary, c) - 1) for c in data)
        print(f"replica against the binary: largest |difference| {100 * worst:.2f} % over {len(data)} cases")
    report("main before decodeknee (the larger one, its constants)", data, MAIN, None, old_split=True)
    pm = fit(data, None, MAIN)
    print("the larger one refitted on the same half (the control): " + ", ".join("%.4g" % v for v in pm))
    report("the larger one, refitted (control)", data, pm, None)
    q = fit(data, a.p, MAIN, shared_only=False)
    print("joined everywhere, refitted: " + ", ".join("%.4g" % v for v in q))
    report(f"joined everywhere at n={a.p:g}, refitted", data, q, a.p, shared_only=False)
    report(f"joined where CTAs share an SM at n={a.p:g}, refitted (the branch)", data, p, a.p)
    if a.fit_p:
        for n in (2, 3, 4, 6, 8):
            q = fit(data, n, MAIN)
            e = [abs(price(c, q, n) / c["t"] - 1) for c in data if c["fit"]]
            h = [abs(price(c, q, n) / c["t"] - 1) for c in data if not c["fit"]]  # noqa: E501
            print(f"  n={n}: fit {100 * statistics.median(e):.1f} / {100 * p90(e):.1f}  held {100 * statistics.median(h):.1f} / {100 * p90(h):.1f}")


if __name__ == "__main__":
    main()
