#!/usr/bin/env python3
"""Fits the eager profile's torch._grouped_mm parameters (hardware/h200.calibration.yaml, profiles:
eager: aten: grouped_mm_floor, grouped_mm_cta_rate, grouped_mm_stream) on a fit subset of the Qwen3
AND Mixtral kernel cases and reports every other measured case held out.

Usage: python3 validation/scripts/moe/fit_grouped_mm.py [validation/results]

Fit: h200-moe-sync's Qwen3-30B-A3B and Mixtral-8x7B cases at T = 1 and T = 64 (8 cases: few CTAs,
long and short K, full card). Held out: their T = 8 and T = 256 cases, h200-moe's Qwen3 (an
earlier lease) and DeepSeek-V2-Lite cases, and h200-moe-fused's routing sweep (K 2048-14336 on
32 and 64 CTAs; 2-128 rows per expert on a full card).

The model is lib/src/cost/grouped_mm_cost.cpp's: CUTLASS's persistent grouped GEMM walks
ceil(rows/64) x ceil(N/128) tiles per touched expert on at most one CTA per SM; a call costs
  floor + waves x max(fetched / cta_rate + tile bytes x CTAs / stream, tile FLOPs / SM peak)
with tile bytes = the op's bytes / tiles and fetched = the weight slab a CTA loads for one tile
(the whole slab; half of it when the expert has two or more row tiles: the 2 x 1 cluster's
multicast). A grid search minimizes the fit set's median |error| plus 0.3 x its largest.
"""
import json
import math
import os
import statistics
import sys

SMS, PEAK = 132, 801.126e12  # h200.calibration.yaml (bf16 GEMM peak)


def touched(e, k, t):
    return e * (1 - (1 - k / e) ** t)


def geometry(c):
    """(tiles, CTAs, waves, op bytes, rows per expert, row tiles per expert) as grouped_gemm.cpp and
    grouped_mm_cost.cpp count them; the sweep's cases give their routing outright."""
    n, kd = c["n"], c["k"]
    if "rows_per_expert" in c:
        groups, rows = c["experts_touched"], c["rows_per_expert"]
        op_bytes = 2 * (groups * n * kd + groups * rows * (kd + n))
    else:
        e, k, t = c["experts"], c["top_k"], c["tokens"]
        groups = max(1, math.ceil(touched(e, k, t) - 1e-9))
        rows = math.ceil(t * k / groups)
        op_bytes = touched(e, k, t) * n * kd * 2 + t * k * (kd + n) * 2
    row_tiles = math.ceil(rows / 64)
    tiles = groups * row_tiles * math.ceil(n / 128)
    ctas = min(tiles, SMS)
    return tiles, ctas, math.ceil(tiles / ctas), op_bytes, rows, row_tiles


def predict(c, floor, cta_rate, stream):
    tiles, ctas, waves, op_bytes, rows, row_tiles = geometry(c)
    tile_bytes = op_bytes / tiles
    fetched = tile_bytes * row_tiles / min(2, row_tiles)
    mma = 2 * min(rows, 64) * min(c["n"], 128) * c["k"] / (PEAK / SMS)
    return floor + waves * max(fetched / cta_rate + tile_bytes * ctas / stream, mma)


def load(results):
    cases = []
    for run in ("h200-moe", "h200-moe-sync", "h200-moe-fused"):
        for c in json.load(open(os.path.join(results, run, "hf.json"))).get("kernel_cases", []):
            if c["kernel"] == "grouped_gemm" and c["ok"]:
                cases.append(dict(c, run=run))
    return cases


def in_fit(c):
    return c["run"] == "h200-moe-sync" and c["tokens"] in (1, 64)


def main(results):
    cases = load(results)
    fit = [c for c in cases if in_fit(c)]
    held = [c for c in cases if not in_fit(c)]
    best = None
    for floor in (x * 0.5e-6 for x in range(8, 40)):
        for rate in (x * 5e9 for x in range(6, 60)):
            for stream in (x * 0.1e12 for x in range(25, 60)):
                errs = sorted(abs(predict(c, floor, rate, stream) / c["median_s"] - 1) for c in fit)
                score = statistics.median(errs) + 0.3 * errs[-1]
                if best is None or score < best[0]:
                    best = (score, floor, rate, stream)
    _, floor, rate, stream = best
    print(f"grouped_mm_floor: {floor * 1e6:.3g} us, grouped_mm_cta_rate: {rate / 1e9:.3g} GB/s, "
          f"grouped_mm_stream: {stream / 1e9:.4g} GB/s")
    groups = (("fit", fit), ("held out", held),
              ("held out: Mixtral", [c for c in held if "mixtral" in c["name"]]),
              ("held out: routing sweep", [c for c in held if c["run"] == "h200-moe-fused"]))
    for c in cases:
        p = predict(c, floor, rate, stream)
        print(f"  {'fit ' if in_fit(c) else 'held'} {c['run']:15s} {c['name']:40s} {p * 1e6:7.1f} us predicted, "
              f"{c['median_s'] * 1e6:7.1f} measured, {p / c['median_s'] - 1:+.1%}")
    for name, group in groups:
        errs = sorted(abs(predict(c, floor, rate, stream) / c["median_s"] - 1) for c in group)
        print(f"{name}: {len(group)} cases, median |error| {statistics.median(errs):.1%}, "
              f"p90 {errs[min(len(errs) - 1, round(0.9 * (len(errs) - 1)))]:.1%}, max {errs[-1]:.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results")
