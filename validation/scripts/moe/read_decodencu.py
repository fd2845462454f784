#!/usr/bin/env python3
"""decodencu's reading (validation/results/decodencu): per fused_moe kernel under Nsight Compute, its time, the DRAM
bytes over the touched experts' weights (expected touched experts, uniform routing), the DRAM rate and share of peak,
the L2's hit rate and the achieved warps.

    python3 validation/scripts/moe/read_decodencu.py validation/results/<card>-decodencu
"""
import json
import os
import re
import sys

# (experts, top_k, hidden, intermediate): probe_tuned.py's MODELS and CHECK_MODELS
MODELS = {"qwen3-30b-a3b": (128, 8, 2048, 768), "mixtral-8x22b": (8, 2, 6144, 16384),
          "deepseek-v2-lite": (64, 6, 2048, 1408), "qwen3-235b-a22b": (128, 8, 4096, 1536),
          "mixtral-8x7b": (8, 2, 4096, 14336)}
UNITS = {"us": 1e-6, "ms": 1e-3, "ns": 1e-9, "s": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
         "hz": 1.0, "Khz": 1e3, "Mhz": 1e6, "Ghz": 1e9, "%": 1.0}


def kernels(path):
    """Nsight's reports in launch order: {metric: value in SI units}."""
    out, cur = [], None
    for line in open(path):
        if "_fused_moe_gemm_kernel (" in line:
            cur = {}
            out.append(cur)
        elif cur is not None and re.match(r"^\s+[a-z0-9_]+__", line):
            parts = line.split()
            unit = parts[1] if len(parts) > 2 else ""
            cur[parts[0]] = float(parts[-1].replace(",", "")) * UNITS.get(unit, 1.0)
    return out


def main(folder):
    path = os.path.join(folder, "ncu.txt")
    recs = [json.loads(line) for line in open(path) if line.startswith("{")]
    ks = kernels(path)
    print("| model | tokens | config | GEMM | tile | K | us | DRAM MB / weights | TB/s | DRAM % of peak | L2 hit % | "
          "warps % |")
    print("| --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r, (g, k) in zip((r for r in recs for _ in (0, 1)), zip(("w13", "w2") * len(recs), ks)):
        E, top_k, d, inter = MODELS[r["model"]]
        touched = E * (1 - (1 - top_k / E) ** r["tokens"])
        N, K = (2 * inter, d) if g == "w13" else (d, inter)
        weights = touched * N * K * 2
        t, dram = k["gpu__time_duration.sum"], k["dram__bytes_read.sum"]
        print(f"| {r['model']} | {r['tokens']} | {r['config']} | {g} | {r['BM']}x{r['BN']}x{r['BK']} | {K} | "
              f"{t * 1e6:.1f} | {dram / 1e6:.0f} / {weights / 1e6:.0f} | {dram / t / 1e12:.2f} | "
              f"{k['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.1f} | {k['lts__t_sector_hit_rate.pct']:.1f} | "
              f"{k['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
