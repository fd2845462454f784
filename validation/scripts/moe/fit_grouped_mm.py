#!/usr/bin/env python3
"""Fits the eager profile's torch._grouped_mm parameters (hardware/h200.calibration.yaml, profiles:
eager: aten: grouped_mm_floor, grouped_mm_tile_latency, grouped_mm_cta_rate) on the Qwen3 kernel
cases of h200-moe/hf.json and reports the DeepSeek-V2-Lite cases held out.

Usage: python3 validation/scripts/moe/fit_grouped_mm.py [validation/results/h200-moe/hf.json]

The model is lib/src/cost/grouped_mm_cost.cpp's: CUTLASS's persistent grouped GEMM walks
ceil(rows/64) x ceil(N/128) tiles per touched expert on at most one CTA per SM; a call costs
floor + waves x max(tile latency + the op's bytes / tiles / min(CTA rate, B / CTAs), tile FLOPs / SM peak),
B = the card's read rate x gemm_stream_efficiency. A grid search minimizes the fit set's median
|error| plus 0.3 x its largest.
"""
import json
import math
import statistics
import sys

SMS, READ_BW, STREAM_EFF, PEAK = 132, 4658.4e9, 0.84, 801.126e12  # h200.calibration.yaml


def touched(e, k, t):
    return e * (1 - (1 - k / e) ** t)


def predict(c, floor, latency, rate):
    e, k, t, n, kd = c["experts"], c["top_k"], c["tokens"], c["n"], c["k"]
    groups = max(1, math.ceil(touched(e, k, t) - 1e-9))
    rows = math.ceil(t * k / groups)
    tiles = groups * math.ceil(rows / 64) * math.ceil(n / 128)
    ctas = min(tiles, SMS)
    waves = math.ceil(tiles / ctas)
    op_bytes = touched(e, k, t) * n * kd * 2 + t * k * (kd + n) * 2  # grouped_gemm.cpp's bytes
    r = min(rate, READ_BW * STREAM_EFF / ctas)
    tile_flops = 2 * min(rows, 64) * min(n, 128) * kd
    return floor + waves * max(latency + op_bytes / tiles / r, tile_flops / (PEAK / SMS))


def main(path):
    cases = [c for c in json.load(open(path))["kernel_cases"] if c["kernel"] == "grouped_gemm" and c["ok"]]
    fit = [c for c in cases if c["name"].startswith("grouped_mm_qwen3")]
    held = [c for c in cases if c not in fit]
    best = None
    for floor in (x * 1e-6 for x in range(4, 20)):
        for latency in (x * 0.25e-6 for x in range(0, 24)):
            for rate in (x * 1e9 for x in range(10, 80)):
                errs = sorted(abs(predict(c, floor, latency, rate) / c["median_s"] - 1) for c in fit)
                score = statistics.median(errs) + 0.3 * errs[-1]
                if best is None or score < best[0]:
                    best = (score, floor, latency, rate)
    _, floor, latency, rate = best
    print(f"grouped_mm_floor: {floor * 1e6:.3g} us, grouped_mm_tile_latency: {latency * 1e6:.3g} us, "
          f"grouped_mm_cta_rate: {rate / 1e9:.3g} GB/s")
    for name, group in (("fit (Qwen3)", fit), ("held out (DeepSeek-V2-Lite)", held)):
        errs = []
        for c in group:
            p = predict(c, floor, latency, rate)
            errs.append(abs(p / c["median_s"] - 1))
            print(f"  {c['name']}: {p * 1e6:.1f} us predicted, {c['median_s'] * 1e6:.1f} us measured, "
                  f"{p / c['median_s'] - 1:+.1%}")
        print(f"{name}: {len(group)} cases, median |error| {statistics.median(errs):.1%}, max {max(errs):.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/results/h200-moe/hf.json")
