#!/usr/bin/env python3
"""The L2's work at vLLM's default fused_moe tile (64 x 64 x 32, half lines), read off Nsight Compute: the CTA tile
loads (fused_moe_cost.cpp's L2 term, the padded rows too) plus the DRAM bytes read, over the kernel's duration, per
prefill GEMM of every Nsight set that ran the default tile at many row blocks an expert. Reads; fits and prices nothing.

    python3 validation/scripts/moe/l2_work_rate.py

Why: the L2 term prices the tile loads alone at one rate (l2_tile_rate, fitted on the H200's Mixtral prefill at 2048
tokens and carried to the H100 by the L2's size). The tile loads alone ran 4.6-7.9 TB/s on the H100 as the tokens
grew (h100-bigncu) while the L2 stayed 92-96 % busy: the DRAM bytes pass through the L2 as well, and their share of the
L2's work falls as an expert's row blocks multiply. The table shows whether tile loads plus DRAM reads run at one rate
a card.
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fit_fused_moe_l2 import expected_row_blocks  # noqa: E402
from prefill_ncu_table import SHAPES, rows as prefill_rows  # noqa: E402
from read_decodencu import launches  # noqa: E402
from read_twoblock import ncu_cases  # noqa: E402

RESULTS = os.path.join(HERE, "..", "..", "results")
BLOCK = 64  # the default tile's BLOCK_M = BLOCK_N; BLOCK_K 32


def tile_bytes(model, gemm, row_blocks):
    """Every CTA K step's BLOCK_M x BLOCK_K of A and BLOCK_K x BLOCK_N of weights, bf16."""
    _, _, d, inter = SHAPES[model]
    n, k = (2 * inter, d) if gemm == "w13" else (d, inter)
    return row_blocks * math.ceil(n / BLOCK) * k * 2 * BLOCK * 2


def routed_blocks(model, tokens):
    E, k, _, _ = SHAPES[model]
    return expected_row_blocks(E, k, tokens, BLOCK)


def cases():
    """(set, routing, model, tokens or picks, GEMM, row blocks, duration s, DRAM read bytes, L2 busy %)."""
    for card in ("h200", "h100"):
        folder = f"{card}-prefillncu"
        for r in prefill_rows(os.path.join(RESULTS, folder, "ncu.txt")):
            if r["phase"] == "prefill":
                yield (folder, "routed", r["model"], r["T"], r["gemm"], routed_blocks(r["model"], r["T"]),
                       r["us"] * 1e-6, r["dram_gb"] * 1e9, r["busiest"])
    for r, g, _, _, k in launches(os.path.join(RESULTS, "h100-bigncu")):
        if r["config"] == "default":
            yield ("h100-bigncu", "routed", r["model"], r["tokens"], g, routed_blocks(r["model"], r["tokens"]),
                   k["gpu__time_duration.sum"], k["dram__bytes_read.sum"],
                   k["lts__throughput.avg.pct_of_peak_sustained_elapsed"])
    for k in ncu_cases(os.path.join(RESULTS, "h100-driftncu")):
        blocks = 8 * k["picks"] / BLOCK  # 8 experts, every block full (fixed routing)
        yield ("h100-driftncu", "fixed", k["model"], k["picks"], k["gemm"], blocks, k["duration_s"],
               k["dram_read_bytes"], k["l2_pct"])


def main():
    print("| set | routing | model | tokens (fixed: picks an expert) | GEMM | row blocks an expert | us | tile loads GB | "
          "DRAM read GB | tile loads TB/s | tile + DRAM TB/s | L2 busy % |")
    print("| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for folder, routing, model, T, g, blocks, t, dram, busy in cases():
        E = SHAPES[model][0]
        tiles = tile_bytes(model, g, blocks)
        print(f"| {folder} | {routing} | {model} | {T} | {g} | {blocks / E:.1f} | {t * 1e6:.0f} | {tiles / 1e9:.1f} | "
              f"{dram / 1e9:.2f} | {tiles / t / 1e12:.2f} | {(tiles + dram) / t / 1e12:.2f} | {busy:.1f} |")


if __name__ == "__main__":
    main()
