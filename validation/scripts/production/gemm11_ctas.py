#!/usr/bin/env python3
"""Branch block12 (issue 10): does the main kernel of a cuBLASLt grid of fewer CTAs than SMs follow its
bytes per CTA over one SM's own stream (Little's law: a CTA's bytes in flight over DRAM latency, as
fp8_row_sm_stream and grouped_mm_cta_rate price other kernels)? Committed data only.

Per-kernel data: validation/results/h200-block11/iso.jsonl (96 decode GEMMs alone, each main nvjet
kernel's duration and grid). Whole-call data: h200-gemm-small (kernel-only time as `perfmodel
accuracy` takes it; CTAs from the kernel name's tile and block11's split rule).

Prices: the block of CALIBRATION (block11's opt-in file): `perfmodel gemm --impl fused` device time,
less the splitKreduce price (floor 1.64 us + (2 + 4 s) M N bytes at 4658.4 GB/s) for a split plan,
is the main kernel's price. F = kernel_floor + the block's fixed (0.509 + 1.5 us) is its fixed part.

The hypothesis as one parameter: main' = max(main price, F + bytes per CTA / r_sm), bytes = weight +
activations (2 (N K + M K)), r_sm fitted (grid search, mean squared log error) on the even-indexed
iso kernels of < 132 CTAs; the odd ones and all of h200-gemm-small held out.

    python3 validation/scripts/production/gemm11_ctas.py PERFMODEL CALIBRATION [--rows]
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_gemm  # noqa: E402
import gemm11_compare as gc  # noqa: E402

READ_GBPS = 4658.4  # hardware/h200.calibration.yaml read_bandwidth
REDUCE_US = 1.64  # the block's split_k_reduce (gemm11_reduce.py)
F_US = 0.5087 + 1.5  # kernel_floor + the block's fixed
SMS = 132
SMALL = "validation/results/h200-gemm-small/kernels.json"


def reduce_us(m, n, s):
    return REDUCE_US + (2 + 4 * s) * m * n / (READ_GBPS * 1e3) if s > 1 else 0.0


def price_us(pm, cal, m, n, k):
    out = subprocess.run([pm, "gemm", "--card", "h200", "--m", str(m), "--n", str(n), "--k", str(k), "--impl", "fused",
                          "--calibration", cal, "--format", "json"], capture_output=True, text=True, check=True, cwd=gc.ROOT)
    d = json.loads(out.stdout)
    return d["device_time_s"] * 1e6, d["split_k"]


def iso_rows(pm, cal):
    """(key, CTAs, split, bytes per CTA, measured main us, priced main us) of every iso GEMM."""
    rows = []
    for line in open(os.path.join(gc.SET, "iso.jsonl")):
        p = json.loads(line)
        main = [k for k in p["kernels"] if k["name"].startswith("nvjet")][0]
        m, n, k = p["m"], p["n"], p["k"]
        _, split = gc.plan_of(main["name"], main["ctas"], n, m)
        dev, msplit = price_us(pm, cal, m, n, k)
        rows.append(dict(key=(p["model"], m, p["role"]), ctas=main["ctas"], split=split, name=main["name"],
                         bcta=2.0 * (n * k + m * k) / main["ctas"], meas=main["dur_us"],
                         price=dev - reduce_us(m, n, msplit), n=n, k=k))
    return rows


def small_rows(pm, cal):
    """h200-gemm-small: (name, CTAs, bytes per CTA, kernel-only measured us, price us, main price us)."""
    with tempfile.TemporaryDirectory() as d:
        info, files = fit_gemm.case_sets(d)
        out = subprocess.run([pm, "accuracy", "--card", "h200", "--calibration", cal, "--measured", *files,
                              "--format", "json"], capture_output=True, text=True, check=True, cwd=gc.ROOT)
    cases = {c["name"]: c for c in json.load(open(os.path.join(gc.ROOT, SMALL)))["cases"]}
    rows = []
    for c in json.loads(out.stdout)["profile_cases"]:
        if c.get("profile") != "fused" or c["kernel"] != "gemm" or c["name"] not in cases:
            continue
        s = cases[c["name"]]
        tile = re.search(r"nvjet_sm90_\w+?_(\d+)x(\d+)_", s["kernel_names"][0])
        if not tile:
            continue
        tiles = -(-s["n"] // int(tile.group(1))) * -(-s["m"] // int(tile.group(2)))
        split = max(1, min(SMS // tiles, s["k"] // 1536)) if "splitK" in s["kernel_names"][0] else 1
        pred = c["predicted_s"] * 1e6
        _, msplit = price_us(pm, cal, s["m"], s["n"], s["k"])
        rows.append(dict(name=c["name"], ctas=tiles * split, bcta=2.0 * (s["n"] * s["k"] + s["m"] * s["k"]) / (tiles * split),
                         meas=c["measured_s"] * 1e6, pred=pred, main=pred - reduce_us(s["m"], s["n"], msplit)))
    return rows


def capped(main, bcta, r_gbps):
    return max(main, F_US + bcta / (r_gbps * 1e3)) if r_gbps else main


def stats(errs):
    a = sorted(abs(e) for e in errs)
    return 100 * statistics.median(a), 100 * a[int(0.9 * (len(a) - 1))], 100 * statistics.fmean(errs)


def main():
    pm, cal = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    iso = iso_rows(pm, cal)
    few = [r for r in iso if r["ctas"] < SMS]
    fit = [r for i, r in enumerate(few) if i % 2 == 0]
    held = [r for i, r in enumerate(few) if i % 2 == 1]
    if "--rows" in sys.argv:
        for r in sorted(iso, key=lambda r: (r["ctas"], r["split"])):
            print(f"{r['ctas']:4d} CTAs split {r['split']}  {r['key'][0]:10s} M{r['key'][1]:<4d} {r['key'][2]:6s} "
                  f"{r['name'][15:40]:25s} {r['bcta'] / 1e3:6.0f} KB/CTA  main {r['meas']:6.2f} us  price {r['price']:6.2f} "
                  f"{r['price'] / r['meas'] - 1:+6.1%}  per CTA {r['bcta'] / (r['meas'] - F_US) / 1e3:5.1f} GB/s  "
                  f"all CTAs {r['bcta'] * r['ctas'] / (r['meas'] - F_US) / 1e3:5.0f} GB/s")
    # The contrast that decides it: the same nvjet 64x8_64x16 kernel at 32-40 CTAs and at 80-128.
    print("64x8_64x16 nvjet kernels (main kernel, M <= 8): CTAs, split, KB per CTA, us, KB per CTA / (us - F)")
    for r in sorted(iso, key=lambda r: r["ctas"]):
        if "_64x8_64x16_" in r["name"]:
            print(f"  {r['ctas']:4d} s{r['split']} {r['bcta'] / 1e3:5.0f} KB {r['meas']:6.2f} us "
                  f"{r['bcta'] / (r['meas'] - F_US) / 1e3:5.1f} GB/s  ({r['key'][0]} {r['key'][2]} M{r['key'][1]})")
    best = min((sum(math.log(capped(r["price"], r["bcta"], g) / r["meas"]) ** 2 for r in fit), g)
               for g in [0] + list(range(20, 301, 2)))
    r_sm = best[1]
    print(f"fitted r_sm = {r_sm} GB/s a CTA (0 = no cap) on {len(fit)} even iso main kernels of < {SMS} CTAs")
    for label, rows in (("iso < 132 CTAs fitted", fit), ("iso < 132 CTAs held out", held),
                        ("iso split < 132 CTAs (all)", [r for r in few if r["split"] > 1])):
        b = stats([r["price"] / r["meas"] - 1 for r in rows])
        a = stats([capped(r["price"], r["bcta"], r_sm) / r["meas"] - 1 for r in rows])
        print(f"{label} ({len(rows)}): median / p90 / mean {b[0]:.1f} / {b[1]:.1f} / {b[2]:+.1f} % -> "
              f"{a[0]:.1f} / {a[1]:.1f} / {a[2]:+.1f} %")
    small = small_rows(pm, cal)
    # The fitted cap, then caps that bind (34 GB/s: what the worst gemm-small miss needs).
    for r_try in (r_sm, 34, 50, 70):
        print(f"r_sm = {r_try} GB/s a CTA:")
        for label, rows in (("iso < 132 CTAs held out", held), ("gemm-small < 132 CTAs", [r for r in small if r["ctas"] < SMS]),
                            ("gemm-small all", small)):
            if label.startswith("iso"):
                b = stats([r["price"] / r["meas"] - 1 for r in rows])
                a = stats([capped(r["price"], r["bcta"], r_try) / r["meas"] - 1 for r in rows])
            else:
                b = stats([r["pred"] / r["meas"] - 1 for r in rows])
                a = stats([(r["pred"] - r["main"] + capped(r["main"], r["bcta"], r_try)) / r["meas"] - 1 for r in rows])
            print(f"  {label} ({len(rows)}, held out): median / p90 / mean {b[0]:.1f} / {b[1]:.1f} / {b[2]:+.1f} % -> "
                  f"{a[0]:.1f} / {a[1]:.1f} / {a[2]:+.1f} %")
    # What r_sm the worst held-out misses would need, and what that does to the 32-CTA kernels.
    for nm in ("linear_bf16_l3_70b_tp8_q_m1_n1024_k8192", "linear_bf16_l32_1b_q_m1_n2048_k2048"):
        r = [x for x in small if x["name"] == nm][0]
        need = r["bcta"] / (r["meas"] - (r["pred"] - r["main"]) - F_US) / 1e3
        print(f"{nm}: {r['ctas']} CTAs, {r['bcta'] / 1e3:.0f} KB a CTA, measured {r['meas']:.2f} us, priced "
              f"{r['pred'] / r['meas'] - 1:+.1%}; a per-CTA stream pricing it exactly: {need:.0f} GB/s")


if __name__ == "__main__":
    main()
