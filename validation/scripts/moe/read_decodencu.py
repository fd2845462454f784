#!/usr/bin/env python3
"""decodencu's reading (validation/results/decodencu): per fused_moe kernel under Nsight Compute, its time, the DRAM
bytes over the touched experts' weights (expected touched experts, uniform routing), the DRAM rate and share of peak,
the L2's hit rate and the achieved warps.

    python3 validation/scripts/moe/read_decodencu.py validation/results/<card>-decodencu
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_tuned import ncu_sections  # noqa: E402

# (experts, top_k, hidden, intermediate): probe_tuned.py's MODELS and CHECK_MODELS
MODELS = {"qwen3-30b-a3b": (128, 8, 2048, 768), "mixtral-8x22b": (8, 2, 6144, 16384),
          "deepseek-v2-lite": (64, 6, 2048, 1408), "qwen3-235b-a22b": (128, 8, 4096, 1536),
          "mixtral-8x7b": (8, 2, 4096, 14336)}


def launches(folder):
    """probe_tuned.py --once's launches under Nsight, in order: (record, GEMM, K, expected weight bytes, metrics). The
    weights are the expected touched experts' (uniform routing)."""
    path = os.path.join(folder, "ncu.txt")
    recs = [json.loads(line) for line in open(path) if line.startswith("{")]
    for r, g, k in zip((r for r in recs for _ in (0, 1)), ("w13", "w2") * len(recs), ncu_sections(path)):
        E, top_k, d, inter = MODELS[r["model"]]
        touched = E * (1 - (1 - top_k / E) ** r["tokens"])
        N, K = (2 * inter, d) if g == "w13" else (d, inter)
        yield r, g, K, touched * N * K * 2, k


def main(folder):
    print("| model | tokens | config | GEMM | tile | K | us | DRAM MB / weights | TB/s | DRAM % of peak | L2 hit % | "
          "warps % |")
    print("| --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r, g, K, weights, k in launches(folder):
        t, dram = k["gpu__time_duration.sum"], k["dram__bytes_read.sum"]
        print(f"| {r['model']} | {r['tokens']} | {r['config']} | {g} | {r['BM']}x{r['BN']}x{r['BK']} | {K} | "
              f"{t * 1e6:.1f} | {dram / 1e6:.0f} / {weights / 1e6:.0f} | {dram / t / 1e12:.2f} | "
              f"{k['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.1f} | {k['lts__t_sector_hit_rate.pct']:.1f} | "
              f"{k['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
