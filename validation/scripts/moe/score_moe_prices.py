#!/usr/bin/env python3
"""Scores price files written before a run (price_moe_plan.py) against the run's layers: the grouped GEMMs' profiled
_fused_moe_gemm_kernel time and the layer's graph replay, median, p90 (nearest rank) and largest |predicted / measured - 1|.

    python3 validation/scripts/moe/score_moe_prices.py validation/results/h100-moeh100b validation/results/moeh100b/prices_*.txt
"""
import json
import math
import os
import statistics
import sys


def measured(folder):
    out = {}
    for c in json.load(open(os.path.join(folder, "hf.json")))["moe_cases"]:
        if c["ok"]:
            g = sum(x["device_s"] for x in c["kernel_device_s"] if x["name"].startswith("_fused_moe_gemm_kernel"))
            out[(c["model"], c["phase"], c["tokens"])] = (c["median_s"], g)
    return out


def main(folder, price_files):
    meas = measured(folder)
    print("| prices | layers | grouped GEMMs median (decode / prefill) | p90 | largest | layers median | largest |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in price_files:
        layer, grouped = [], []
        for line in open(path):
            if line.startswith("#"):
                continue
            model, phase, tokens, layer_us, grouped_us = line.split()
            key = (model, phase, int(tokens))
            if key not in meas:
                continue
            wall, gemm = meas[key]
            layer.append(abs(float(layer_us) * 1e-6 / wall - 1))
            grouped.append((phase, abs(float(grouped_us) * 1e-6 / gemm - 1)))
        g = [e for _, e in grouped]
        by = {p: [e for q, e in grouped if q == p] for p in ("decode", "prefill")}
        by = {p: f"{100 * statistics.median(v):.1f}" if v else "-" for p, v in by.items()}  # a plan may hold one phase
        p90 = sorted(g)[max(0, math.ceil(0.9 * len(g)) - 1)]
        print(f"| {os.path.basename(path)} | {len(g)} | {100 * statistics.median(g):.1f} % ({by['decode']} / "
              f"{by['prefill']}) | {100 * p90:.1f} % | {100 * max(g):.1f} % | {100 * statistics.median(layer):.1f} % | "
              f"{100 * max(layer):.1f} % |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
